// A small portable thread pool for code generated with --threads N (see onnxc/parallel.h):
//
//   onnxc::ThreadPool pool(2);                 // the caller's thread and 1 worker
//   model::run(inputs, outputs, workspace, pool.parallel());
//
// Threads are created once, in the constructor (the only allocations), and joined in the
// destructor; parallel_for allocates nothing. The caller's thread takes a share of the tasks too.
// Workers wait for work spinning briefly, then asleep on a condition variable: a model's kernels
// follow each other within microseconds, and waking a sleeping thread costs tens of them. One
// parallel_for at a time per pool (run() calls it from one thread). Needs std::thread: not for
// bare-metal targets (onnxc emits no thread code for them).
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
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
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

  // Thread t (0: the caller) runs tasks t, t + threads, ...; the caller returns once every
  // worker has reported the job done, so no worker is still in a job when the next one starts.
  void run(std::ptrdiff_t tasks, ParallelTask task, void* context) {
    if (threads_ == 1 || tasks <= 1) return serial_for(nullptr, tasks, task, context);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = {task, context, tasks};
      done_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    run_share(job_, 0);
    const unsigned workers = static_cast<unsigned>(threads_ - 1);
    while (done_.load(std::memory_order_acquire) < workers) pause();
  }

  struct Job {
    ParallelTask task;
    void* context;
    std::ptrdiff_t tasks;
  };

  void run_share(const Job& job, std::ptrdiff_t thread) {
    for (std::ptrdiff_t i = thread; i < job.tasks; i += threads()) job.task(job.context, i);
  }

  void work(std::ptrdiff_t thread) {
    unsigned seen = 0;
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kSpinTime;
      for (int spin = 1; generation_.load(std::memory_order_acquire) == seen; ++spin) {
        pause();
        if (spin % 256 == 0 && std::chrono::steady_clock::now() > until) break;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      seen = generation_.load(std::memory_order_relaxed);
      if (stop_) return;
      const Job job = job_;
      lock.unlock();
      run_share(job, thread);
      done_.fetch_add(1, std::memory_order_release);
    }
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
  std::atomic<unsigned> done_{0};
  Job job_ = {nullptr, nullptr, 0};
  bool stop_ = false;
};

}  // namespace onnxc

#endif  // ONNXC_THREAD_POOL_H
