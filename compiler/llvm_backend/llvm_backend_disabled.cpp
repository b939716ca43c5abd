// The LLVM backend's entry points in a build without LLVM (ONNXC_WITH_LLVM=OFF): each refuses
// with the one line saying how to turn the backend on.
#include "llvm_backend/llvm_backend.h"

namespace onnxc {

bool llvm_backend_enabled() {
  return false;
}

std::string llvm_backend_disabled_message() {
  return "--emit llvm|bc|asm|obj needs the LLVM backend: install llvm-14-dev, libclang-14-dev and "
         "libclang-cpp14-dev and configure with -DONNXC_WITH_LLVM=ON";
}

std::string compile_with_llvm(const LlvmSource&, const LlvmOptions&, std::vector<char>*) {
  return llvm_backend_disabled_message();
}

}  // namespace onnxc
