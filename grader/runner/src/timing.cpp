#include "spmv/runner/timing.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace spmv::runner {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double upper = *middle;
  const double lower = *std::max_element(values.begin(), middle);
  return (lower + upper) / 2;
}

TimingResult summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("no timing samples to summarize");
  TimingResult result;
  result.min_ms = *std::min_element(samples_ms.begin(), samples_ms.end());
  result.max_ms = *std::max_element(samples_ms.begin(), samples_ms.end());
  result.samples = static_cast<int>(samples_ms.size());
  result.median_ms = median(std::move(samples_ms));
  return result;
}

std::vector<TimingResult> time_interleaved(const std::vector<TimedLaunch>& sides, const TimingOptions& options,
                                           const std::function<void()>& on_timing_starts) {
  for (int run = 0; run < options.warmup_runs; ++run) {
    for (const auto& side : sides) side();
  }
  if (on_timing_starts) on_timing_starts();

  std::vector<std::vector<double>> samples(sides.size());
  std::vector<double> totals(sides.size(), 0.0);
  const auto side_needs_more = [&](std::size_t s) {
    return static_cast<int>(samples[s].size()) < options.min_runs || totals[s] < options.min_time_ms;
  };
  const auto more_needed = [&] {
    bool needed = false;
    for (std::size_t s = 0; s < sides.size(); ++s) {
      if (static_cast<int>(samples[s].size()) >= options.max_runs) return false;
      if (!samples[s].empty() && totals[s] >= options.max_time_ms) return false;
      needed = needed || side_needs_more(s);
    }
    return needed;
  };
  while (more_needed()) {
    for (std::size_t s = 0; s < sides.size(); ++s) {
      const auto start = std::chrono::steady_clock::now();
      samples[s].push_back(sides[s]());
      totals[s] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
  }

  std::vector<TimingResult> results;
  for (auto& side_samples : samples)
    results.push_back(side_samples.empty() ? TimingResult{} : summarize(std::move(side_samples)));
  return results;
}

}  // namespace spmv::runner
