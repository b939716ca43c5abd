// pool_overhead: the cost of one parallel region of onnxc::ThreadPool (onnxc/thread_pool.h), the
// pool that code generated with --threads N runs on. For each thread count it times regions of
// `threads` tasks that do (almost) nothing, back to back, and regions separated by a serial gap of
// 20 us (a model's serial nodes between two split ones), and prints microseconds per region:
// dispatch, wake-up and the closing barrier. Not a timed test: run it by hand,
//   ./build/bench/pool_overhead [threads...]     (default: 1 2 4 8 16)
// and compare with a model's time per inference divided by its split nodes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "onnxc/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<long> g_sink{0};

void touch(void* /*context*/, std::ptrdiff_t task) {
  g_sink.fetch_add(task, std::memory_order_relaxed);
}

void spin_for(std::chrono::microseconds gap) {
  const auto until = Clock::now() + gap;
  while (Clock::now() < until) {
  }
}

// Median over 5 rounds of the microseconds per region (minus the gap itself).
double region_us(onnxc::ThreadPool& pool, int regions, std::chrono::microseconds gap) {
  std::vector<double> rounds;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < regions; ++i) {
      onnxc::ThreadPool::parallel_for(&pool, pool.threads(), touch, nullptr);
      if (gap.count() > 0) spin_for(gap);
    }
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    rounds.push_back(us / regions - static_cast<double>(gap.count()));
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i) counts.push_back(std::atoi(argv[i]));
  if (counts.empty()) counts = {1, 2, 4, 8, 16};
  std::printf("threads  back_to_back_us  after_20us_gap_us\n");
  for (int threads : counts) {
    onnxc::ThreadPool pool(threads);
    region_us(pool, 1000, std::chrono::microseconds(0));  // warm-up: workers started
    const double tight = region_us(pool, 20000, std::chrono::microseconds(0));
    const double gapped = region_us(pool, 2000, std::chrono::microseconds(20));
    std::printf("%7d  %15.2f  %17.2f\n", threads, tight, gapped);
  }
  return 0;
}
