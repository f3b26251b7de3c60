// Timing of GPU work with CUDA events on one stream.
//
// Each timed call sits between its own pair of events, so the median is of
// single calls and host-side gaps between calls are not counted. Work is
// enqueued in batches without synchronizing in between; the stream only
// waits at the end of a batch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace spmv::bench {

struct TimingOptions {
  int warmup_runs = 5;       // untimed calls first (module load, caches, clocks)
  int min_runs = 50;         // at least this many timed calls ...
  double min_seconds = 0.3;  // ... and at least this much timed GPU time,
  double max_seconds = 5.0;  // unless the calls already took this long
};

struct TimingResult {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int runs = 0;
};

// Median, minimum and maximum of `samples_ms` (not empty).
TimingResult summarize(std::vector<double> samples_ms);

// Times `enqueue_one`, which must enqueue exactly one call on `stream` and
// return without synchronizing. Owns its events; one Timer serves any
// number of measurements on the same device.
class Timer {
 public:
  explicit Timer(cudaStream_t stream) : stream_(stream) {}
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer();

  TimingResult time(const std::function<void()>& enqueue_one, const TimingOptions& options);

 private:
  // Times `count` calls enqueued back to back; appends one sample per call.
  void time_batch(const std::function<void()>& enqueue_one, int count, std::vector<double>& samples_ms);
  void ensure_events(std::size_t pairs);

  cudaStream_t stream_;
  std::vector<cudaEvent_t> starts_, stops_;
};

// Device-to-device copy bandwidth in GB/s (1e9 bytes per second), counting
// the bytes read plus the bytes written: the ceiling a memory-bound kernel
// that reads and writes can approach.
struct CopyBandwidth {
  double gb_per_s = 0;
  std::size_t bytes_per_copy = 0;  // one way
  TimingResult timing;
};
CopyBandwidth measure_copy_bandwidth(Timer& timer, cudaStream_t stream, std::size_t bytes);

}  // namespace spmv::bench
