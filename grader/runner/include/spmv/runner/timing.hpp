// Repeated timing of launches: warm-up, then the sides (submission and
// reference) alternate launch by launch, so clock changes and other load hit
// both alike, until each side has a minimum count and has spent a minimum
// wall-clock time being timed. Wall-clock, not the samples' sum: a kernel of
// a few microseconds then needs hundreds of samples, not tens of thousands
// each paying a synchronization.
//
// spmv-grade alternates its two runners with it (each side a round trip that
// times one launch in a runner, launch.hpp); spmv-bench times each kernel
// as a side of its own, with the same executor timing in its own process.
#pragma once

#include <functional>
#include <limits>
#include <vector>

namespace spmv::runner {

// spmv-grade reads these as bursts (spmv-grade's burst_timing.hpp says how):
// runs are bursts, min_time_ms a burst's length on the GPU; its own
// defaults are those of grader/app/src/cli/options.hpp.
struct TimingOptions {
  int min_runs = 20;
  int max_runs = 100000;
  int warmup_runs = 3;
  double min_time_ms = 25;
  // Stops once a side has spent this long being timed, even short of
  // min_runs (a very slow kernel); at least one sample is always taken.
  double max_time_ms = std::numeric_limits<double>::infinity();
};

struct TimingResult {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;
};

// Median, minimum and maximum of `samples_ms`; throws std::invalid_argument when empty.
TimingResult summarize(std::vector<double> samples_ms);

// One launch of one side, timed: returns its time in milliseconds and throws
// if the launch fails.
using TimedLaunch = std::function<double()>;

// `on_timing_starts` runs between the warm-up and the first timed launch.
std::vector<TimingResult> time_interleaved(const std::vector<TimedLaunch>& sides, const TimingOptions& options,
                                           const std::function<void()>& on_timing_starts = {});

double median(std::vector<double> values);

}  // namespace spmv::runner
