// How code generated with --threads N runs its heavy kernels on several cores.
//
// run() takes an onnxc::Parallel: a parallel-for over the caller's threads. onnxc never creates
// a thread itself; onnxc/thread_pool.h has a small portable pool, and any other pool (an RTOS's,
// an application's) fits by filling the struct:
//
//   struct Parallel {
//     void (*parallel_for)(void* pool, std::ptrdiff_t tasks, ParallelTask task, void* context);
//     void* pool;
//   };
//
// parallel_for calls task(context, i) once for every i in [0, tasks), in any order and on any of
// its threads, the caller's included, and returns when all have returned. A kernel splits its
// work into exactly `tasks` parts (the --threads count) by a fixed rule, and part i always uses
// slice i of the node's scratch: which thread runs a part, and how many threads there are, never
// changes what it computes, so the outputs are bit-identical for any pool, serial included.
// kSerial runs the parts one after another on the caller's thread.
//
// The wrappers below split a serial kernel variant by rows of its output (channels of a
// depthwise convolution, rows or column panels of a GEMM with packed B). The convolution GEMM
// splits inside the kernel instead (onnxc/conv.h: position blocks first, so that no part packs
// another's panels).
#ifndef ONNXC_PARALLEL_H
#define ONNXC_PARALLEL_H

#include <cstddef>

namespace onnxc {

// (std::ptrdiff_t is onnxc::index_t: this header stands alone, for the model's header.)
using ParallelTask = void (*)(void* context, std::ptrdiff_t task);

struct Parallel {
  void (*parallel_for)(void* pool, std::ptrdiff_t tasks, ParallelTask task, void* context);
  void* pool;
};

inline void serial_for(void* /*pool*/, std::ptrdiff_t tasks, ParallelTask task, void* context) {
  for (std::ptrdiff_t i = 0; i < tasks; ++i) task(context, i);
}
constexpr Parallel kSerial = {serial_for, nullptr};

// Runs f(i) for i in [0, tasks) on `par` (f: any callable; it outlives the call).
template <typename F>
inline void parallel_run(const Parallel& par, std::ptrdiff_t tasks, F& f) {
  par.parallel_for(
      par.pool, tasks, [](void* context, std::ptrdiff_t i) { (*static_cast<F*>(context))(i); }, &f);
}

// The part [lo, hi) of `units` that task `task` of `tasks` takes (contiguous, sizes differ by
// at most one unit).
inline void split_range(std::ptrdiff_t units, std::ptrdiff_t task, std::ptrdiff_t tasks,
                        std::ptrdiff_t* lo, std::ptrdiff_t* hi) {
  *lo = units * task / tasks;
  *hi = units * (task + 1) / tasks;
}

// The part [lo, hi) of `n` items that task `task` of `tasks` takes in whole units of `unit`
// items (register tiles, vectors, packed panels; only the last unit may be short).
inline void split_units(std::ptrdiff_t n, std::ptrdiff_t unit, std::ptrdiff_t task,
                        std::ptrdiff_t tasks, std::ptrdiff_t* lo, std::ptrdiff_t* hi) {
  split_range((n + unit - 1) / unit, task, tasks, lo, hi);
  *hi = *hi * unit < n ? *hi * unit : n;
  *lo = *lo * unit < *hi ? *lo * unit : *hi;
}

// Bytes of one task's scratch slice: `bytes` rounded up to 64 (slices stay cache-line aligned).
constexpr std::ptrdiff_t task_scratch_bytes(std::ptrdiff_t bytes) {
  return (bytes + 63) / 64 * 64;
}

}  // namespace onnxc

#endif  // ONNXC_PARALLEL_H
