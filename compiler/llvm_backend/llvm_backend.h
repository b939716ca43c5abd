// The LLVM backend (issue 36): compiles the C++ that codegen emits into LLVM IR, bitcode,
// assembly or an object file, in-process, with clang as the front end. The generated C++ stays the
// kernel IR; this layer only turns it into machine code for the target and places the weights.
// It makes no decision about the model: it takes codegen's text and weight bytes as they are.
//
// This header names no LLVM type, so that the driver's translation units never see LLVM's
// headers; the implementation lives in onnxc_llvm, built with LLVM's flags (CMake option
// ONNXC_WITH_LLVM). Without LLVM the same functions exist and refuse with one line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnxc {

// What --emit asks for besides C++.
enum class LlvmEmit { kLlvmIr, kBitcode, kAssembly, kObject };

// "llvm", "bc", "asm" or "obj" into `out`; false for any other name ("cpp" included).
bool parse_llvm_emit(std::string_view name, LlvmEmit* out);

// The generated code, as codegen wrote it, with the weights kept apart: the source declares
// `weights_symbol` (an extern "C" byte array) and this backend defines it from `weights`.
struct LlvmSource {
  std::string file_name;        // "model.cpp": the module's id and source name (never a path)
  std::string model_namespace;  // codegen's --name: NS::run and NS_run stay external
  std::string source;           // the .cpp text
  std::string header_name;      // "model.h", as the source #includes it
  std::string header;           // the .h text
  std::string weights_symbol;   // "" when the model has no weights
  const std::vector<uint8_t>* weights = nullptr;  // their bytes (ONNX byte order)
};

struct LlvmOptions {
  LlvmEmit emit = LlvmEmit::kObject;
  std::string target = "generic";  // an onnxc --target name, "native" already resolved
  int opt_level = 2;               // -O0..-O3, as the g++ path that builds the same code
  // ImageDecoder's WebP and JPEG 2000 decoders (onnxc/image_system.h): compiled with
  // -DONNXC_IMAGE_LIBS and these header folders (pkg-config's -I flags for libwebp and
  // libopenjp2), and the object may then call those two libraries (WebP*, opj_*).
  bool image_libs = false;
  std::vector<std::string> image_include_dirs;
};

// True when onnxc was built with the LLVM backend.
bool llvm_backend_enabled();

// The one line onnxc prints for --emit llvm|bc|asm|obj when built without the backend.
std::string llvm_backend_disabled_message();

// Compiles `source` for `options.target` into `out` (the bytes of the .ll, .bc, .s or .o).
// Returns "" on success, else one line saying what went wrong (the first compiler error, an
// undefined symbol outside the C memory and string functions and libm, a target without a row).
std::string compile_with_llvm(const LlvmSource& source, const LlvmOptions& options,
                              std::vector<char>* out);

// The clang driver command line compile_with_llvm uses for `options` and a source named
// `file_name` (for tests and for `--emit` users who want to reproduce a build).
std::vector<std::string> clang_command_line(const LlvmOptions& options,
                                            const std::string& file_name);

}  // namespace onnxc
