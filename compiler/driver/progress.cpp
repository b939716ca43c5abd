#include "driver/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace onnxc {

Progress::Progress(std::string what, size_t total)
    : what_(std::move(what)),
      total_(total),
      tty_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

std::string Progress::duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

std::string Progress::line(size_t done, const std::string& counts) const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string s = fmt::format("onnxc test: {}/{} {} ({}), {} elapsed", done, total_, what_, counts,
                              duration(elapsed));
  if (done > 0 && done < total_)
    s += fmt::format(", ~{} left", duration(elapsed / static_cast<double>(done) * (total_ - done)));
  return s;
}

void Progress::update(size_t done, const std::string& counts, bool milestone) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line(done, counts).c_str());
    drawn_ = true;
  } else if (milestone) {
    std::fprintf(stderr, "%s\n", line(done, counts).c_str());
  }
  std::fflush(stderr);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tty_ && drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

}  // namespace onnxc
