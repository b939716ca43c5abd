// `onnxc inspect --threads N` (driver/thread_report.h): the split nodes with the grid their
// parallel forms run, and the predicted speedup. Expected values are worked out from the
// definitions (conv_gemm_grid's cost, the 20 us split rule), not read off the output.
#include "driver/thread_report.h"

#include <catch2/catch.hpp>
#include <regex>

#include "harness/filecheck.h"
#include "ir/target.h"
#include "passes/fusion_harness.h"

using namespace onnxc;
using onnxc::testing::filecheck;

namespace {

// onnxc::testing::split_and_whole_convs lowered for x86-64-v4 at `threads`.
std::unique_ptr<Module> two_convs(int threads) {
  Diagnostics diag;
  std::unique_ptr<Module> m =
      import_model(onnxc::testing::split_and_whole_convs(), ImportOptions{}, diag);
  REQUIRE(m);
  m->target = with_threads(*find_target("x86-64-v4"), threads);
  PassOptions options;
  options.stop_after = "plan-memory";
  PassManager pm(options);
  REQUIRE(pm.run(*m, diag));
  return m;
}

double predicted_speedup(const std::string& report) {
  std::smatch m;
  REQUIRE(std::regex_search(report, m, std::regex("speedup ([0-9.]+)")));
  return std::stod(m[1]);
}

}  // namespace

TEST_CASE("inspect --threads lists each split node with its grid and predicts the speedup",
          "[driver][threads]") {
  const std::string report = thread_report(*two_convs(4));
  INFO(report);
  // 1024 positions in 32 panels of 32, 32 rows in 4 tiles of 8: grids of 4 parts cost
  // panels x depth x (rows + 48 packing rows, kConvPackRows): 4 x 1 -> 8 x 80 per 32 x 80 whole
  // = 25%; 2 x 2 -> 16 x 64 = 40%; 1 x 4 -> 32 x 56 = 70%. So 4 position groups, 25% the largest
  // part.
  CHECK(filecheck(report, {"CHECK: threads: 4", "CHECK: big", "CHECK-SAME: Conv",
                           "CHECK-SAME: 4 position groups x 1 channel groups", "CHECK-SAME: 25.0%",
                           "CHECK-NOT: small", "CHECK: model: 1 split nodes, 1 whole",
                           "CHECK-NEXT: whole: small (Conv)"}) == "");
  // The small conv stays whole and each region costs 6 us: between 1 and 4, under 4 x 25%.
  const double speedup = predicted_speedup(report);
  CHECK(speedup > 1.5);
  CHECK(speedup < 4.0);
}

TEST_CASE("inspect --threads 2: the conv in two position groups, under twice as fast",
          "[driver][threads]") {
  const std::string report = thread_report(*two_convs(2));
  INFO(report);
  CHECK(filecheck(report, {"CHECK: big", "CHECK-SAME: 2 position groups x 1 channel groups",
                           "CHECK-SAME: 50.0%"}) == "");
  CHECK(predicted_speedup(report) < 2.0);
}
