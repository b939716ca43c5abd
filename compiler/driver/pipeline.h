// The compiler pipeline, shared by every subcommand: load -> validate -> import -> the passes of
// passes/pass_list.h (run by a PassManager), and then C++ generation.
#pragma once

#include <memory>
#include <string>

#include "base/diagnostics.h"
#include "codegen/cpp_emitter.h"
#include "frontend/importer.h"
#include "ir/ir.h"
#include "passes/pass_manager.h"

namespace onnxc {

// Loads and validates only (`onnxc check`): true when the model obeys the IR spec.
bool check_model(const std::string& path, Diagnostics& diag);

// Runs the front half of the pipeline: load, validate, import, then the passes, with `passes`
// (disabled passes, dumps, statistics) or the default pipeline when null. Returns null after
// reporting every error found.
std::unique_ptr<Module> lower_model(const std::string& path, const ImportOptions& options,
                                    Diagnostics& diag, PassManager* passes = nullptr);

// Writes `code` next to `cpp_path`: the .cpp, the .h with the same stem, and in external-weights
// mode the .bin. Returns false (reported) if a file cannot be written.
bool write_generated(const std::string& cpp_path, const GeneratedCode& code,
                     const CodegenOptions& options, Diagnostics& diag);

// "model" for "/a/b/model.onnx", made a valid C++ identifier.
std::string default_model_name(const std::string& path);

}  // namespace onnxc
