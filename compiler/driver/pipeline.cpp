#include "driver/pipeline.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/sha256.h"
#include "frontend/contrib_expander.h"
#include "frontend/function_inliner.h"
#include "frontend/model_loader.h"
#include "frontend/pin_flags.h"
#include "frontend/validator.h"

namespace onnxc {
namespace fs = std::filesystem;

bool check_model(const std::string& path, Diagnostics& diag) {
  diag.set_model(path);
  onnx::ModelProto proto;
  return load_model(path, proto, diag) && validate_model(proto, diag);
}

std::unique_ptr<Module> lower_model(const std::string& path, const ImportOptions& options,
                                    Diagnostics& diag, PassManager* passes) {
  diag.set_model(path);
  onnx::ModelProto proto;
  if (!load_model(path, proto, diag)) return nullptr;
  if (!validate_model(proto, diag)) return nullptr;
  if (!inline_model_functions(proto, diag)) return nullptr;  // calls become ordinary nodes
  if (!expand_contrib_ops(proto, diag)) return nullptr;      // com.microsoft -> standard nodes
  if (!check_pin_flags(proto, options, diag)) return nullptr;
  auto module = import_model(proto, options, diag);
  if (!diag.ok()) return nullptr;
  module->target = options.target;
  module->max_bytes = options.max_bytes;
  module->max_arena = options.max_arena;
  module->check_bounds = options.check_bounds;
  module->source_path = fs::path(path).filename().string();
  module->model_name = default_model_name(path);
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  module->model_hash = sha256_hex(bytes.str());
  PassManager default_passes;
  if (!(passes ? passes : &default_passes)->run(*module, diag)) return nullptr;
  return module;
}

bool write_generated(const std::string& cpp_path, const GeneratedCode& code,
                     const CodegenOptions& options, Diagnostics& diag) {
  fs::path cpp(cpp_path);
  fs::path header = cpp.parent_path() / options.header_file;
  auto write = [&](const fs::path& p, const char* data, size_t n) {
    std::ofstream out(p, std::ios::binary);
    out.write(data, static_cast<std::streamsize>(n));
    if (!out) diag.error("cannot write '{}'", p.string());
    return static_cast<bool>(out);
  };
  bool ok = write(cpp, code.source.data(), code.source.size()) &&
            write(header, code.header.data(), code.header.size());
  if (ok && options.weights == WeightsMode::kExternal) {
    fs::path bin = cpp;
    bin.replace_extension(".bin");
    ok = write(bin, reinterpret_cast<const char*>(code.weights.data()), code.weights.size());
  }
  return ok;
}

std::string default_model_name(const std::string& path) {
  return cpp_identifier(fs::path(path).stem().string());
}

}  // namespace onnxc
