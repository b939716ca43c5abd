#include "driver/host_files.h"

#include <fstream>

#include "codegen/cpp_emitter.h"

namespace onnxc {
namespace fs = std::filesystem;

namespace {

bool write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

bool write_host_files(const fs::path& dir) {
  std::error_code ec;
  // One level at a time, never the parent: under `onnxc test` the parent is the work folder,
  // which a signal may have removed meanwhile (base/temp_dir.h).
  fs::create_directory(dir, ec);
  if (!ec) fs::create_directory(dir / "onnxc", ec);
  if (ec) return false;
  for (const char* name : {"test_harness.cpp", "bench_main.cpp"})
    if (!write_file(dir / name, template_text(name))) return false;
  for (const std::string& header : runtime_header_paths())
    if (!write_file(dir / header, runtime_header_text(header))) return false;
  return true;
}

}  // namespace onnxc
