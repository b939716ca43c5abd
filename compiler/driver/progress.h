// Progress of a long command (issue 38): `onnxc test` over the 1,951 conformance cases runs for
// minutes. On a terminal (stderr a TTY) one line is rewritten in place: done / total, the counts
// so far (passed, failed), elapsed and the time left at the rate so far. Otherwise each call to
// `update` with `milestone` prints one plain line, so that CI logs stay readable and show where a
// slow run is. stdout is left to the command's report. Safe to call from several threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace onnxc {

class Progress {
 public:
  // `what`: the work, as the line names it ("cases built and run"); `total`: items to do.
  Progress(std::string what, size_t total);
  // Reports `done` of the total items finished, with `counts` ("12 passed, 1 failed"). A plain
  // (non-terminal) line is printed only for a milestone (a finished batch, say).
  void update(size_t done, const std::string& counts, bool milestone);
  // Ends the terminal line (plain output has nothing to end).
  void finish();

  // "1m05s", "42s": a duration as the progress line shows it.
  static std::string duration(double seconds);

 private:
  std::string line(size_t done, const std::string& counts) const;

  std::string what_;
  size_t total_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
};

}  // namespace onnxc
