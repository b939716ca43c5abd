// What the driver does for --emit llvm|bc|asm|obj (compile and `onnxc test`): the checks made
// before lowering, and the hand-over of codegen's output to the LLVM backend
// (llvm_backend/llvm_backend.h). No LLVM header: the backend is behind that plain interface.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"
#include "codegen/cpp_emitter.h"
#include "llvm_backend/llvm_backend.h"

namespace onnxc {

// Why --emit (anything but cpp) cannot be served for `runtime` (--runtime) and onnxc target
// `target` ("native" resolved): the backend is not built in, --runtime include (clang gets no
// include path), or the LLVM target table has no row. "" when it can. One line each.
std::string llvm_emit_refusal(const std::string& runtime, std::string_view target);

// The source the LLVM backend compiles: codegen's .cpp as `file_name` (a bare file name), its
// header under the name the .cpp includes, and, with WeightsMode::kLinked, the weights' symbol
// and bytes (`code` must outlive the result).
LlvmSource llvm_source(const GeneratedCode& code, const CodegenOptions& options,
                       const std::string& file_name);

// Writes the backend's `bytes` to `path` and codegen's header beside it (and the .bin with
// --weights external). False (reported) if a file cannot be written.
bool write_llvm_generated(const std::string& path, const std::vector<char>& bytes,
                          const GeneratedCode& code, const CodegenOptions& options,
                          Diagnostics& diag);

}  // namespace onnxc
