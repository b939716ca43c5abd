// The registry of live temporary folders and the signal handler that removes them (see
// temp_dir.h). Everything the handler touches is a fixed-size global written before it is
// published through an atomic, and the removal uses system calls only: a signal may arrive in the
// middle of malloc, so the handler must not allocate, lock, or use <filesystem>.
#include "base/temp_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>

namespace onnxc {

namespace {

// A slot is free (0), being written or cleared (1), or holds a live folder's path (2).
enum SlotState : int { kFree = 0, kBusy = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};

Slot g_slots[kMaxLiveTempDirs];

// Folders nest at most this deep below a temp folder before the handler gives up on a branch
// (bounds its stack: one getdents buffer per level).
constexpr int kMaxRemoveDepth = 24;
// Attempts at emptying and removing one folder before giving up on it.
constexpr int kRemovePasses = 8;

// Removes `name` under the open folder `parent`: a file or link by unlinkat, a folder by emptying
// it first. A few passes a few milliseconds apart, since a compiler that got the same Ctrl-C may
// still add a file before it dies.
bool remove_at(int parent, const char* name, int depth) {
  if (::unlinkat(parent, name, 0) == 0 || errno == ENOENT) return true;
  if ((errno != EISDIR && errno != EPERM) || depth > kMaxRemoveDepth) return false;
#if defined(__linux__) && defined(SYS_getdents64)
  for (int pass = 0; pass < kRemovePasses; ++pass) {
    if (pass > 0) {
      const struct timespec pause = {0, 5 * 1000 * 1000};  // nanosleep is async-signal-safe
      ::nanosleep(&pause, nullptr);
    }
    int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    alignas(8) char buf[1024];
    long got;
    while ((got = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
      for (long at = 0; at < got;) {
        // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name (NUL-terminated).
        unsigned short reclen;
        ::memcpy(&reclen, buf + at + 16, sizeof reclen);
        const char* entry = buf + at + 19;
        if (::strcmp(entry, ".") != 0 && ::strcmp(entry, "..") != 0)
          remove_at(fd, entry, depth + 1);
        at += reclen;
      }
    }
    ::close(fd);
    if (::unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return true;
    if (errno != ENOTEMPTY && errno != EEXIST) return false;
  }
#endif
  return false;
}

void remove_live_temp_dirs() {
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kLive) remove_tree_signal_safe(s.path);
}

extern "C" void remove_temp_dirs_and_reraise(int sig) {
  int saved_errno = errno;
  remove_live_temp_dirs();
  // The default action (terminate) is taken once this handler returns and unblocks `sig`, so the
  // parent sees "killed by SIGINT" as it would without onnxc's cleanup.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  errno = saved_errno;
}

}  // namespace

bool remove_tree_signal_safe(const char* path) {
  return remove_at(AT_FDCWD, path, 0);
}

int register_temp_dir(const std::string& path) {
  if (path.empty() || path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kMaxLiveTempDirs; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kBusy, std::memory_order_acq_rel))
      continue;
    ::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kLive, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_temp_dir(int slot) {
  if (slot < 0 || slot >= kMaxLiveTempDirs) return;
  g_slots[slot].state.store(kBusy, std::memory_order_release);
  g_slots[slot].path[0] = '\0';
  g_slots[slot].state.store(kFree, std::memory_order_release);
}

void remove_temp_dirs_on_signals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction act {};
    act.sa_handler = remove_temp_dirs_and_reraise;
    sigemptyset(&act.sa_mask);
    // Block the other cleanup signals while one is being handled: one cleanup at a time.
    for (int other : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&act.sa_mask, other);
    ::sigaction(sig, &act, nullptr);
  }
}

}  // namespace onnxc
