// A fresh, private temporary folder (mkdtemp under the system temp directory) that is removed with
// everything in it when the object goes out of scope, on every return path. While it lives, its
// path sits in a small registry of live folders: after remove_temp_dirs_on_signals(), SIGINT,
// SIGTERM and SIGHUP remove every registered folder (with system calls only, no allocation)
// before the signal's default action ends the process. It does NOT survive SIGKILL, nor more
// than kMaxLiveTempDirs folders alive at once (the rest are only removed on scope exit).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace onnxc {

// Live folders the signal handler can remove.
constexpr int kMaxLiveTempDirs = 16;

// Adds / removes an absolute path to / from the registry of live folders; register returns the
// slot (or -1 when the registry is full or the path too long), which unregister takes back.
int register_temp_dir(const std::string& path);
void unregister_temp_dir(int slot);

// Installs the handler for SIGINT, SIGTERM and SIGHUP (those not ignored: nohup and background
// jobs keep their SIG_IGN): it removes the registered folders, then re-raises the signal with its
// default action, so the exit status still says "killed by SIGINT".
void remove_temp_dirs_on_signals();

// Removes `path` and everything in it using only async-signal-safe system calls (openat,
// getdents64, unlinkat); the handler's tool, usable anywhere. Returns true when it is gone.
bool remove_tree_signal_safe(const char* path);

class TempDir {
 public:
  // Creates TEMP/<prefix>XXXXXX; path() is empty if that failed (see ok()).
  explicit TempDir(const std::string& prefix) {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) return;
    std::string templ = (base / (prefix + "XXXXXX")).string();
    if (!::mkdtemp(templ.data())) return;
    path_ = std::filesystem::absolute(templ, ec);
    if (ec) path_ = templ;
    slot_ = register_temp_dir(path_.string());
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty() && !keep_) std::filesystem::remove_all(path_, ec);
    unregister_temp_dir(slot_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::filesystem::path& path() const { return path_; }
  // Leaves the folder in place (e.g. --keep, to inspect a failed build), also on a signal.
  void keep() {
    keep_ = true;
    unregister_temp_dir(slot_);
    slot_ = -1;
  }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
  int slot_ = -1;
};

}  // namespace onnxc
