// A fresh, private temporary folder (mkdtemp under the system temp directory) that is removed with
// everything in it when the object goes out of scope, on every return path. It does NOT survive
// a kill signal: an interrupted run may still leave its folder behind.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace onnxc {

class TempDir {
 public:
  // Creates TEMP/<prefix>XXXXXX; path() is empty if that failed (see ok()).
  explicit TempDir(const std::string& prefix) {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) return;
    std::string templ = (base / (prefix + "XXXXXX")).string();
    if (::mkdtemp(templ.data())) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty() && !keep_) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::filesystem::path& path() const { return path_; }
  // Leaves the folder in place (e.g. --keep, to inspect a failed build).
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace onnxc
