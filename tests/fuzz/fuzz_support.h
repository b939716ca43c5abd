// Shared by the fuzz targets that load models: the folder external data resolves against.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace onnxc::fuzz {

// A folder of the fuzzer's own, holding one 64-byte file ("data.bin") so that successful
// external-data reads are reachable too; made once per process.
inline const std::string& model_dir() {
  static const std::string dir = [] {
    auto path = std::filesystem::temp_directory_path() / "onnxc-fuzz-model-dir";
    std::filesystem::create_directories(path);
    std::ofstream(path / "data.bin", std::ios::binary) << std::string(64, '\x3f');
    return path.string();
  }();
  return dir;
}

}  // namespace onnxc::fuzz
