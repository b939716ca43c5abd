#include "passes/memory_planner.h"

#include <catch2/catch.hpp>

using namespace onnxc;

namespace {
BufferRequest buffer(const char* name, size_t size, int first, int last) {
  BufferRequest r;
  r.name = name;
  r.size = size;
  r.first_use = first;
  r.last_use = last;
  return r;
}
}  // namespace

TEST_CASE("greedy planner reuses space of dead buffers", "[planner]") {
  // a: nodes 0-1, b: 1-2, c: 2-3. a and c never live together, so c can take a's place.
  std::vector<BufferRequest> req = {buffer("a", 1000, 0, 1), buffer("b", 500, 1, 2),
                                    buffer("c", 1000, 2, 3)};
  auto plan = make_greedy_by_size_planner()->plan(req);
  CHECK(check_plan(req, plan).empty());
  CHECK(plan.offsets[0] == 0);
  CHECK(plan.offsets[2] == 0);     // reuses a's bytes
  CHECK(plan.offsets[1] == 1024);  // after a, aligned to 64
  CHECK(plan.arena_size == 1024 + 512);
}

TEST_CASE("sequential planner never reuses", "[planner]") {
  std::vector<BufferRequest> req = {buffer("a", 10, 0, 0), buffer("b", 70, 1, 1)};
  auto plan = make_sequential_planner()->plan(req);
  CHECK(plan.offsets == std::vector<size_t>{0, 64});
  CHECK(plan.arena_size == 64 + 128);
  CHECK(check_plan(req, plan).empty());
}

TEST_CASE("greedy planner fills a gap between live buffers", "[planner]") {
  // big1 and big2 are live at node 5 with a 256-byte gap between them once small dies.
  std::vector<BufferRequest> req = {buffer("big1", 4096, 0, 9), buffer("big2", 2048, 0, 9),
                                    buffer("mid", 256, 5, 6)};
  auto plan = make_greedy_by_size_planner()->plan(req);
  CHECK(check_plan(req, plan).empty());
  CHECK(plan.offsets[0] == 0);
  CHECK(plan.offsets[1] == 4096);
  CHECK(plan.offsets[2] == 6144);
}

TEST_CASE("overlap checker reports conflicts, misalignment and overflow", "[planner]") {
  std::vector<BufferRequest> req = {buffer("a", 128, 0, 2), buffer("b", 128, 1, 3)};
  MemoryPlan bad;
  bad.offsets = {0, 64};
  bad.arena_size = 128;
  auto errors = check_plan(req, bad);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].find("'a' [0, 128) overlaps 'b' [64, 192)") != std::string::npos);
  CHECK(errors[1].find("'b' [64, 192) ends past the arena") != std::string::npos);
  MemoryPlan misaligned;
  misaligned.offsets = {0, 130};
  misaligned.arena_size = 512;
  CHECK(check_plan(req, misaligned).at(0).find("not 64-byte aligned") != std::string::npos);
}

TEST_CASE("plan printout lists offsets, sizes and lifetimes", "[planner]") {
  std::vector<BufferRequest> req = {buffer("x", 100, 0, 1)};
  auto plan = make_greedy_by_size_planner()->plan(req);
  std::string text = print_plan(req, plan);
  CHECK(text.find("         0        100  nodes    0..1    x") != std::string::npos);
  CHECK(text.find("arena 128 bytes") != std::string::npos);
}

TEST_CASE("overlapping_live_pairs: byte overlaps of intervals live at once", "[planner]") {
  // a and b share bytes and node 2; c takes a's bytes after a died; d is empty.
  std::vector<LiveInterval> items = {
      {0, 128, 0, 2}, {64, 192, 2, 3}, {0, 64, 3, 4}, {32, 32, 0, 4}};
  auto pairs = overlapping_live_pairs(items);
  // b is reported against a and then left out, so c (overlapping b) is not reported again.
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0] == std::make_pair(size_t{0}, size_t{1}));
  // Lifetimes are inclusive: ending at node 2 and starting at node 2 is live together.
  CHECK(overlapping_live_pairs({{0, 64, 0, 2}, {0, 64, 3, 5}}).empty());
  CHECK(overlapping_live_pairs({{0, 64, 0, 2}, {0, 64, 2, 5}}).size() == 1);
  // An interval inside a larger live one, found whichever neighbour holds it.
  CHECK(overlapping_live_pairs({{0, 64, 0, 9}, {64, 1024, 0, 9}, {128, 192, 1, 1}}).size() == 1);
  CHECK(overlapping_live_pairs({{0, 64, 0, 9}, {64, 1024, 0, 9}, {0, 192, 1, 1}}).at(0) ==
        std::make_pair(size_t{0}, size_t{2}));
}

TEST_CASE("overlapping_live_pairs: 200k intervals live at once cost O(n log n)", "[planner]") {
  // Every pair is live together (the check once listed all 2e10 pairs: 17 GB for nested Ifs).
  std::vector<LiveInterval> items;
  const size_t n = 200000;
  for (size_t i = 0; i < n; ++i) items.push_back({i * 64, i * 64 + 64, 0, 0});
  CHECK(overlapping_live_pairs(items).empty());
  items.push_back({n * 32 + 8, n * 32 + 16, 0, 0});  // inside interval n / 2
  auto pairs = overlapping_live_pairs(items);
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0] == std::make_pair(n / 2, n));
}
