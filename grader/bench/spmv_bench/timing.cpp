#include "spmv_bench/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "spmv/memory/buffer.hpp"
#include "spmv_bench/cuda_check.hpp"

namespace spmv::bench {
namespace {

// Calls enqueued before the stream is drained: large enough that launch
// gaps never starve the GPU, small enough to bound the events in use.
constexpr int kMaxBatch = 1000;
// A backstop against calls too short for the event clock to see.
constexpr int kMaxRuns = 100000;

int clamp_to_int(double value, int low, int high) {
  if (!(value > low)) return low;  // also catches NaN
  if (value > high) return high;
  return static_cast<int>(std::ceil(value));
}

}  // namespace

TimingResult summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize: no timing samples");
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  TimingResult result;
  result.median_ms = n % 2 == 1 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  result.min_ms = samples_ms.front();
  result.max_ms = samples_ms.back();
  result.runs = static_cast<int>(n);
  return result;
}

Timer::~Timer() {
  // Destruction cannot report failures; a broken context is reported elsewhere.
  for (cudaEvent_t event : starts_) cudaEventDestroy(event);
  for (cudaEvent_t event : stops_) cudaEventDestroy(event);
}

void Timer::ensure_events(std::size_t pairs) {
  while (starts_.size() < pairs) {
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    SPMV_CUDA_CHECK(cudaEventCreate(&start));
    starts_.push_back(start);
    SPMV_CUDA_CHECK(cudaEventCreate(&stop));
    stops_.push_back(stop);
  }
}

void Timer::time_batch(const std::function<void()>& enqueue_one, int count, std::vector<double>& samples_ms) {
  const auto pairs = static_cast<std::size_t>(count);
  ensure_events(pairs);
  for (std::size_t i = 0; i < pairs; ++i) {
    SPMV_CUDA_CHECK(cudaEventRecord(starts_[i], stream_));
    enqueue_one();
    SPMV_CUDA_CHECK(cudaEventRecord(stops_[i], stream_));
  }
  SPMV_CUDA_CHECK(cudaEventSynchronize(stops_[pairs - 1]));
  for (std::size_t i = 0; i < pairs; ++i) {
    float ms = 0;
    SPMV_CUDA_CHECK(cudaEventElapsedTime(&ms, starts_[i], stops_[i]));
    samples_ms.push_back(static_cast<double>(ms));
  }
}

TimingResult Timer::time(const std::function<void()>& enqueue_one, const TimingOptions& options) {
  const double max_ms = options.max_seconds * 1e3;
  const double min_ms = options.min_seconds * 1e3;

  // The first call alone: an estimate that keeps a very slow kernel's
  // warm-up and batches within max_seconds.
  std::vector<double> warmup_ms;
  time_batch(enqueue_one, 1, warmup_ms);
  double estimate_ms = std::max(warmup_ms.back(), 1e-6);
  const int more_warmup =
      std::min(options.warmup_runs - 1, clamp_to_int(0.1 * max_ms / estimate_ms, 0, kMaxBatch));
  if (more_warmup > 0) {
    time_batch(enqueue_one, more_warmup, warmup_ms);
    estimate_ms = std::max(summarize(warmup_ms).median_ms, 1e-6);
  }

  std::vector<double> samples_ms;
  double total_ms = 0;
  for (;;) {
    const auto runs = static_cast<int>(samples_ms.size());
    if ((runs >= 1 && total_ms >= max_ms) || runs >= kMaxRuns) break;
    const int runs_wanted = std::max(options.min_runs - runs, 0);
    const int runs_for_time = clamp_to_int((min_ms - total_ms) / estimate_ms, 0, kMaxBatch);
    int batch = std::min(std::max(runs_wanted, runs_for_time), kMaxBatch);
    if (batch == 0) {
      if (runs > 0) break;
      batch = 1;  // a median needs at least one sample
    }
    batch = std::min(batch, clamp_to_int((max_ms - total_ms) / estimate_ms, 1, kMaxBatch));
    const std::size_t first_new = samples_ms.size();
    time_batch(enqueue_one, batch, samples_ms);
    for (std::size_t i = first_new; i < samples_ms.size(); ++i) total_ms += samples_ms[i];
    estimate_ms = std::max(total_ms / static_cast<double>(samples_ms.size()), 1e-6);
  }
  return summarize(std::move(samples_ms));
}

CopyBandwidth measure_copy_bandwidth(Timer& timer, cudaStream_t stream, std::size_t bytes) {
  Buffer<std::uint8_t> source(MemorySpace::kDevice, bytes);
  Buffer<std::uint8_t> target(MemorySpace::kDevice, bytes);
  // Arbitrary non-zero contents: never time on memory nothing wrote.
  SPMV_CUDA_CHECK(cudaMemsetAsync(source.data(), 0x5a, bytes, stream));
  SPMV_CUDA_CHECK(cudaMemsetAsync(target.data(), 0xa5, bytes, stream));
  const TimingOptions options{.warmup_runs = 3, .min_runs = 20, .min_seconds = 0.2, .max_seconds = 5.0};
  CopyBandwidth result;
  result.bytes_per_copy = bytes;
  result.timing = timer.time(
      [&] {
        SPMV_CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream));
      },
      options);
  result.gb_per_s = 2.0 * static_cast<double>(bytes) / (result.timing.median_ms * 1e6);
  return result;
}

}  // namespace spmv::bench
