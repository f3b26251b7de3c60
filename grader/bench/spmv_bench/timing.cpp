#include "spmv_bench/timing.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "spmv/memory/buffer.hpp"
#include "spmv_bench/cuda_check.hpp"

namespace spmv::bench {
namespace {

// A backstop against calls too short for the event clock to see.
constexpr int kMaxRuns = 100000;

}  // namespace

TimingResult time_calls(runner::Executor& executor, const std::function<bool()>& enqueue_one,
                        const TimingOptions& options) {
  const runner::TimedLaunch call = [&] {
    spmv_status status = SPMV_SUCCESS;
    int error = 0;
    const double ms = executor.time([&] { return enqueue_one() ? SPMV_SUCCESS : SPMV_NOT_IMPLEMENTED; }, status, error);
    if (status != SPMV_SUCCESS) throw std::runtime_error("a timed call returned SPMV_NOT_IMPLEMENTED");
    SPMV_CUDA_CHECK(static_cast<cudaError_t>(error));
    return ms;
  };
  const runner::TimingOptions loop{.min_runs = options.min_runs,
                                   .max_runs = kMaxRuns,
                                   .warmup_runs = options.warmup_runs,
                                   .min_time_ms = options.min_seconds * 1e3,
                                   .max_time_ms = options.max_seconds * 1e3};
  return runner::time_interleaved({call}, loop).front();
}

TimingResult time_copy(runner::Executor& executor, std::size_t bytes, const TimingOptions& options) {
  bytes = std::max<std::size_t>(bytes, 4);
  Buffer<std::uint8_t> source(MemorySpace::kDevice, bytes);
  Buffer<std::uint8_t> target(MemorySpace::kDevice, bytes);
  // Arbitrary non-zero contents: never time on memory nothing wrote.
  SPMV_CUDA_CHECK(cudaMemsetAsync(source.data(), 0x5a, bytes, executor.stream()));
  SPMV_CUDA_CHECK(cudaMemsetAsync(target.data(), 0xa5, bytes, executor.stream()));
  return time_calls(
      executor,
      [&] {
        SPMV_CUDA_CHECK(
            cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, executor.stream()));
        return true;
      },
      options);
}

CopyBandwidth measure_copy_bandwidth(runner::Executor& executor, std::size_t bytes) {
  const TimingOptions options{.warmup_runs = 3, .min_runs = 20, .min_seconds = 0.2, .max_seconds = 5.0};
  CopyBandwidth result;
  result.bytes_per_copy = bytes;
  result.timing = time_copy(executor, bytes, options);
  result.gb_per_s = 2.0 * static_cast<double>(bytes) / (result.timing.median_ms * 1e6);
  return result;
}

}  // namespace spmv::bench
