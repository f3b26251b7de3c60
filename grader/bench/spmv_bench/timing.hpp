// spmv-bench times as spmv-grade does: each call between the executor's
// CUDA events and waited for (spmv/runner/executor.hpp, Executor::time),
// repeated by the run protocol's timing loop (spmv/runner/timing.hpp:
// warm-up, then at least a count and a wall-clock time, median). So a
// kernel's time here is the time the grader would give it.
#pragma once

#include <cstddef>
#include <functional>

#include "spmv/runner/executor.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::bench {

struct TimingOptions {
  int warmup_runs = 5;       // untimed calls first (module load, caches, clocks)
  int min_runs = 50;         // at least this many timed calls ...
  double min_seconds = 0.3;  // ... and at least this much wall-clock time being timed,
  double max_seconds = 5.0;  // unless the calls already took this long
};

using runner::TimingResult;

// Times `enqueue_one`, which enqueues one call on the executor's stream
// and returns false when the kernel is not implemented (an error then).
TimingResult time_calls(runner::Executor& executor, const std::function<bool()>& enqueue_one,
                        const TimingOptions& options);

// Device-to-device copy bandwidth in GB/s (1e9 bytes per second), counting
// the bytes read plus the bytes written: the ceiling a memory-bound kernel
// that reads and writes can approach.
struct CopyBandwidth {
  double gb_per_s = 0;
  std::size_t bytes_per_copy = 0;  // one way
  TimingResult timing;
};
CopyBandwidth measure_copy_bandwidth(runner::Executor& executor, std::size_t bytes);

// One device-to-device copy of `bytes` (one way), timed as a kernel is
// (`options`): a matrix's same-size copy, whose time is the limit for a
// kernel that must move 2 * bytes, launch latency included.
TimingResult time_copy(runner::Executor& executor, std::size_t bytes, const TimingOptions& options);

}  // namespace spmv::bench
