#include "driver/llvm_emit.h"

#include <filesystem>
#include <fstream>

#include "llvm_backend/llvm_targets.h"

namespace onnxc {
namespace fs = std::filesystem;

std::string llvm_emit_refusal(const std::string& runtime, std::string_view target) {
  if (!llvm_backend_enabled()) return llvm_backend_disabled_message();
  if (runtime == "include")
    return "--emit llvm|bc|asm|obj compiles the code with the runtime inlined: drop "
           "--runtime include";
  if (!find_llvm_target(target))
    return "--emit llvm|bc|asm|obj: the LLVM backend has no row for --target " +
           std::string(target) + " (compiler/llvm_backend/llvm_targets.h); use --emit cpp";
  return "";
}

LlvmSource llvm_source(const GeneratedCode& code, const CodegenOptions& options,
                       const std::string& file_name) {
  LlvmSource source;
  source.file_name = file_name;
  source.model_namespace = options.name;
  source.source = code.source;
  source.header_name = options.header_file;
  source.header = code.header;
  if (options.weights == WeightsMode::kLinked && !code.weights.empty()) {
    source.weights_symbol = linked_weights_symbol(options.name);
    source.weights = &code.weights;
  }
  return source;
}

bool write_llvm_generated(const std::string& path, const std::vector<char>& bytes,
                          const GeneratedCode& code, const CodegenOptions& options,
                          Diagnostics& diag) {
  auto write = [&](const fs::path& p, const char* data, size_t n) {
    std::ofstream out(p, std::ios::binary);
    out.write(data, static_cast<std::streamsize>(n));
    if (!out) diag.error("cannot write '{}'", p.string());
    return static_cast<bool>(out);
  };
  const fs::path out(path);
  bool ok = write(out, bytes.data(), bytes.size()) &&
            write(out.parent_path() / options.header_file, code.header.data(), code.header.size());
  if (ok && options.weights == WeightsMode::kExternal)
    ok = write(fs::path(out).replace_extension(".bin"),
               reinterpret_cast<const char*>(code.weights.data()), code.weights.size());
  return ok;
}

}  // namespace onnxc
