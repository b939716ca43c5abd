// C++ code generation: one .h with the typed API and one .cpp with the weights, the planned
// arena layout and one block of statements per node. The output has no heap use, no exceptions,
// no RTTI and no mutable globals, and the same module always gives byte-identical text.
#pragma once

#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "ir/ir.h"
#include "passes/memory_planner.h"

namespace onnxc {

enum class WeightsMode {
  kEmbedded,  // in the .cpp, as a string literal
  kExternal,  // in a .bin file that run() takes
  // Declared by the .cpp (linked_weights_symbol()) and defined elsewhere from the blob's bytes:
  // the LLVM backend (compiler/llvm_backend/) puts them into the object file, never as text.
  kLinked,
};
enum class RuntimeMode {
  kInline,   // runtime headers are pasted into the .cpp: it builds on its own
  kInclude,  // the .cpp #includes "onnxc/..." headers; add runtime/ to the include path
};

struct CodegenOptions {
  std::string name;         // C++ namespace and symbol prefix
  std::string header_file;  // file name the .cpp includes ("model.h")
  WeightsMode weights = WeightsMode::kEmbedded;
  RuntimeMode runtime = RuntimeMode::kInline;
  // The flags that shape the output, recorded in the file banner ("--name m --dim batch=1").
  // Never paths, the working directory or anything else machine-specific: the same model bytes
  // and flags must give byte-identical files from anywhere.
  std::string flags;
  // --profile (onnxc bench): wrap each top-level node block in ONNXC_PROFILE_BEGIN/END(index)
  // hooks for the host to time. Off, nothing of it is emitted.
  bool profile = false;
};

struct GeneratedCode {
  std::string header;
  std::string source;
  std::vector<uint8_t> weights;  // the blob; written to a .bin in external mode
  size_t arena_bytes = 0;
  std::string memory_plan;  // print_plan() of the arena
};

bool generate_cpp(const Module& module, const CodegenOptions& options, GeneratedCode& out,
                  Diagnostics& diag);

// The extern "C" byte array a --weights linked .cpp declares for model namespace `name`.
std::string linked_weights_symbol(const std::string& name);

// A C++ identifier made from an arbitrary ONNX name ("input.1" -> "input_1"); see
// sanitize_identifier in codegen/identifiers.h.
std::string cpp_identifier(const std::string& name);

// Text of a runtime header, embedded in the compiler at build time; "" if unknown.
const char* runtime_header_text(const std::string& path);
// The paths of every embedded runtime header ("onnxc/base.h", ...), sorted.
std::vector<std::string> runtime_header_paths();

}  // namespace onnxc
