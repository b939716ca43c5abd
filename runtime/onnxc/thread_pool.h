// A small portable thread pool for code generated with --threads N (see onnxc/parallel.h):
//
//   onnxc::ThreadPool pool(2);                 // the caller's thread and 1 worker
//   model::run(inputs, outputs, workspace, pool.parallel());
//
// Threads are created once, in the constructor (the only allocations), and joined in the
// destructor; parallel_for allocates nothing. The caller's thread takes tasks too.
// Dispatch costs no lock while the workers are awake: the caller publishes the job and bumps a
// generation counter, workers spinning on it take tasks from a shared counter (whoever is free
// takes the next one, so a late thread delays nothing), and the caller waits until every worker
// has checked out of the job. Workers spin for a while, then sleep on a condition variable (the
// caller takes the lock only when one sleeps): a model's kernels follow each other within
// microseconds, and waking a sleeping thread costs tens of them. Measured with
// bench/pool_overhead.cpp (16-core Xeon, 16 threads): 5.5 us per region, against 15.8 with a
// mutex and condition variable on every dispatch. One parallel_for at a time per pool
// (run() calls it from one thread). Needs std::thread: not for bare-metal targets (onnxc emits no
// thread code for them).
#ifndef ONNXC_THREAD_POOL_H
#define ONNXC_THREAD_POOL_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "onnxc/parallel.h"

namespace onnxc {

class ThreadPool {
 public:
  // `threads` threads in all, the caller's included (at least 1).
  explicit ThreadPool(int threads) : threads_(threads > 1 ? threads : 1) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_release);
      generation_.fetch_add(1, std::memory_order_seq_cst);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }
  Parallel parallel() { return {&ThreadPool::parallel_for, this}; }

  static void parallel_for(void* pool, std::ptrdiff_t tasks, ParallelTask task, void* context) {
    static_cast<ThreadPool*>(pool)->run(tasks, task, context);
  }

 private:
  // How long an idle worker polls before it sleeps: longer than the gaps between a model's
  // parallel kernels (its serial ops run meanwhile), short next to the gaps between inferences.
  static constexpr std::chrono::microseconds kSpinTime{2000};

  // The caller publishes the job, then bumps generation_ (release: a worker that sees the new
  // generation sees the job). Sleeping workers need the lock and a notify; awake ones do not.
  void run(std::ptrdiff_t tasks, ParallelTask task, void* context) {
    if (threads_ == 1 || tasks <= 1) return serial_for(nullptr, tasks, task, context);
    job_ = {task, context, tasks};
    next_task_.store(0, std::memory_order_relaxed);
    checked_out_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      // The lock orders this notify after a sleeper's check of generation_ (no lost wake-up).
      std::lock_guard<std::mutex> lock(mutex_);
      wake_.notify_all();
    }
    take_tasks(job_);
    const unsigned workers = static_cast<unsigned>(threads_ - 1);
    for (int spin = 1; checked_out_.load(std::memory_order_acquire) < workers; ++spin) relax(spin);
  }

  struct Job {
    ParallelTask task;
    void* context;
    std::ptrdiff_t tasks;
  };

  // Runs tasks until none is left. Which thread runs a task never changes what it computes
  // (onnxc/parallel.h), so taking them first come, first served keeps outputs bit-identical.
  void take_tasks(const Job& job) {
    for (;;) {
      const std::ptrdiff_t i = next_task_.fetch_add(1, std::memory_order_relaxed);
      if (i >= job.tasks) return;
      job.task(job.context, i);
    }
  }

  // Waits until generation_ moves past `seen`: spinning for kSpinTime, then asleep.
  void wait_for_job(unsigned seen) {
    const auto until = std::chrono::steady_clock::now() + kSpinTime;
    for (int spin = 1; generation_.load(std::memory_order_acquire) == seen; ++spin) {
      relax(spin);
      if (spin % 256 == 0 && std::chrono::steady_clock::now() > until) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_seq_cst) != seen; });
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
        return;
      }
    }
  }

  void work() {
    unsigned seen = 0;
    for (;;) {
      wait_for_job(seen);
      seen = generation_.load(std::memory_order_acquire);
      if (stop_.load(std::memory_order_acquire)) return;
      take_tasks(job_);
      // The caller returns (and may publish the next job) only once every worker is out.
      checked_out_.fetch_add(1, std::memory_order_release);
    }
  }

  // One step of a wait: a pause instruction, and after kSpinsBeforeYield steps also a yield, so
  // that a pool with more threads than free cores (the caller's threads too) still progresses.
  static constexpr int kSpinsBeforeYield = 256;
  static void relax(int spin) {
    pause();
    if (spin > kSpinsBeforeYield) std::this_thread::yield();
  }

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<unsigned> generation_{0};
  std::atomic<unsigned> sleepers_{0};
  std::atomic<std::ptrdiff_t> next_task_{0};
  std::atomic<unsigned> checked_out_{0};
  Job job_ = {nullptr, nullptr, 0};
  std::atomic<bool> stop_{false};
};

}  // namespace onnxc

#endif  // ONNXC_THREAD_POOL_H
