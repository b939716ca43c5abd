// The clang driver command line of the LLVM backend, and --emit's names. Plain C++ (no LLVM
// header), built with and without the backend: the tests check the command line either way.
// Configure-time facts arrive as macros (CMakeLists.txt): where clang's builtin headers are, and
// arm-none-eabi's header folder and GCC version.
#include <string>

#include "llvm_backend/llvm_backend.h"
#include "llvm_backend/llvm_targets.h"

#ifndef ONNXC_CLANG_EXECUTABLE
#define ONNXC_CLANG_EXECUTABLE "clang++"
#endif
#ifndef ONNXC_CLANG_RESOURCE_DIR
#define ONNXC_CLANG_RESOURCE_DIR ""
#endif
#ifndef ONNXC_NONE_EABI_INCLUDE
#define ONNXC_NONE_EABI_INCLUDE "/usr/lib/arm-none-eabi/include"
#endif
#ifndef ONNXC_NONE_EABI_GCC_VERSION
#define ONNXC_NONE_EABI_GCC_VERSION ""
#endif

namespace onnxc {

bool parse_llvm_emit(std::string_view name, LlvmEmit* out) {
  if (name == "llvm")
    *out = LlvmEmit::kLlvmIr;
  else if (name == "bc")
    *out = LlvmEmit::kBitcode;
  else if (name == "asm")
    *out = LlvmEmit::kAssembly;
  else if (name == "obj")
    *out = LlvmEmit::kObject;
  else
    return false;
  return true;
}

std::vector<std::string> clang_command_line(const LlvmOptions& options,
                                            const std::string& file_name) {
  const LlvmTarget* row = find_llvm_target(options.target);
  if (!row) return {};
  // The generated code uses neither exceptions nor RTTI; the warnings are g++'s to give (the g++
  // path builds the same code with -Wall -Wextra -Werror).
  std::vector<std::string> args = {
      ONNXC_CLANG_EXECUTABLE, "-std=c++17", "-O" + std::to_string(options.opt_level),
      "-fno-exceptions",      "-fno-rtti",  "-w"};
  if (*ONNXC_CLANG_RESOURCE_DIR) {
    args.push_back("-resource-dir");
    args.push_back(ONNXC_CLANG_RESOURCE_DIR);
  }
  for (std::string& a :
       llvm_target_arguments(*row, ONNXC_NONE_EABI_INCLUDE, ONNXC_NONE_EABI_GCC_VERSION))
    args.push_back(std::move(a));
  if (options.image_libs) {
    args.push_back("-DONNXC_IMAGE_LIBS");
    for (const std::string& dir : options.image_include_dirs) args.push_back("-I" + dir);
  }
  args.push_back("-c");
  args.push_back(file_name);
  return args;
}

}  // namespace onnxc
