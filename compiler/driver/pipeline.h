// The compiler pipeline, shared by every subcommand: load -> validate -> import -> infer/fold ->
// fusion -> dead-code elimination, and then C++ generation.
#pragma once

#include <memory>
#include <string>

#include "codegen/cpp_emitter.h"
#include "frontend/importer.h"
#include "ir/ir.h"
#include "support/diagnostics.h"

namespace onnxc {

// Loads and validates only (`onnxc check`): true when the model obeys the IR spec.
bool check_model(const std::string& path, Diagnostics& diag);

// Switches of the middle end (until the pass manager's --disable-pass replaces them).
struct PipelineOptions {
  bool fusion = true;  // fuse-matmul-add, fold-batchnorm, fuse-epilogue (passes/fusion.h)
};

// Runs the front half of the pipeline. Returns null after reporting every error found.
std::unique_ptr<Module> lower_model(const std::string& path, const ImportOptions& options,
                                    Diagnostics& diag, const PipelineOptions& pipeline = {});

// Writes `code` next to `cpp_path`: the .cpp, the .h with the same stem, and in external-weights
// mode the .bin. Returns false (reported) if a file cannot be written.
bool write_generated(const std::string& cpp_path, const GeneratedCode& code,
                     const CodegenOptions& options, Diagnostics& diag);

// "model" for "/a/b/model.onnx", made a valid C++ identifier.
std::string default_model_name(const std::string& path);

}  // namespace onnxc
