// Progress lines of long commands (issue 38): durations as printed (cli_test.cpp checks the
// plain lines of `onnxc test`).
#include "driver/progress.h"

#include <catch2/catch.hpp>

using onnxc::Progress;

TEST_CASE("progress durations read as seconds, then minutes and seconds", "[progress]") {
  CHECK(Progress::duration(0) == "0s");
  CHECK(Progress::duration(42.4) == "42s");
  CHECK(Progress::duration(59.6) == "1m00s");
  CHECK(Progress::duration(65) == "1m05s");
  CHECK(Progress::duration(3725) == "62m05s");
}
