#include "rows/burst_timing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "spmv/runner/chain.hpp"

namespace spmv::grade {

double median_of(std::vector<double> values) { return values.empty() ? 0.0 : runner::median(std::move(values)); }

int choose_links(double link_ms, std::int64_t rows, double burst_ms) {
  const double wanted = link_ms > 0 ? std::ceil(burst_ms / link_ms) : runner::kMaxLinks;
  const std::size_t per_link = runner::history_bytes(rows, 1);
  const std::size_t fit = per_link > 0 ? kMaxHistoryBytes / per_link : runner::kMaxLinks;
  const double links = std::min({wanted, static_cast<double>(runner::kMaxLinks), static_cast<double>(fit)});
  return std::max(1, static_cast<int>(links));
}

int kept_pairs(std::int64_t rows, const runner::TimingOptions& options) {
  const int bursts = std::max(options.warmup_runs, 1) + std::max(options.max_runs, options.min_runs);
  const std::size_t pair_bytes = 2 * static_cast<std::size_t>(std::max<std::int64_t>(rows, 1)) * sizeof(float);
  const auto fit = static_cast<std::int64_t>(kMaxKeptLinkBytes / pair_bytes);
  const std::int64_t pairs =
      std::min<std::int64_t>({std::int64_t{bursts} * kChecksFastBurst, fit, runner::kMaxKeptPairs});
  return static_cast<int>(std::max<std::int64_t>(pairs, 1));
}

double fastest_two(std::vector<double> ms) {
  if (ms.empty()) return 0;
  if (ms.size() == 1) return ms.front();
  std::partial_sort(ms.begin(), ms.begin() + 2, ms.end());
  return (ms[0] + ms[1]) / 2;
}

bool among_fastest_two(double ms, const std::vector<double>& kept) {
  return std::count_if(kept.begin(), kept.end(), [ms](double other) { return other < ms; }) < 2;
}

double per_launch_ms(const std::vector<double>& bursts_ms, const std::vector<double>& empty_ms, int links) {
  if (bursts_ms.empty() || links < 1) return 0;
  return std::max(0.0, (fastest_two(bursts_ms) - fastest_two(empty_ms)) / links);
}

namespace {

// Each non-empty window's per_launch_ms.
std::vector<double> window_times(const std::vector<std::vector<double>>& windows, const std::vector<double>& empty_ms,
                                 int links) {
  std::vector<double> times;
  for (const auto& window : windows) {
    if (!window.empty()) times.push_back(per_launch_ms(window, empty_ms, links));
  }
  return times;
}

double disagreement(const std::vector<double>& times) {
  if (times.empty()) return 0;
  const auto [fastest, slowest] = std::minmax_element(times.begin(), times.end());
  return *fastest > 0 ? *slowest / *fastest - 1 : 0;
}

}  // namespace

double windows_disagreement(const std::vector<std::vector<double>>& windows, const std::vector<double>& empty_ms,
                            int links) {
  return disagreement(window_times(windows, empty_ms, links));
}

double windows_per_launch_ms(const std::vector<std::vector<double>>& windows, const std::vector<double>& empty_ms,
                             int links) {
  const std::vector<double> times = window_times(windows, empty_ms, links);
  if (times.empty()) return 0;
  if (disagreement(times) > kWindowsAgree) return *std::min_element(times.begin(), times.end());
  return std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
}

double burst_noise(const std::vector<double>& bursts_ms, const std::vector<double>& empty_ms) {
  if (bursts_ms.size() < 2) return 0;
  std::vector<double> sorted = bursts_ms;
  std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end());
  const double launches = (sorted[0] + sorted[1]) / 2 - fastest_two(empty_ms);
  return launches > 0 ? (sorted[1] - sorted[0]) / launches : 1;
}

bool needs_more_bursts(int count, double noise, const runner::TimingOptions& options) {
  return count < options.min_runs || (count < options.max_runs && noise > kNoiseTarget);
}

bool needs_more_bursts(const std::vector<double>& bursts_ms, const std::vector<double>& empty_ms,
                       const runner::TimingOptions& options) {
  const auto count = static_cast<int>(bursts_ms.size());
  return count < options.min_runs || needs_more_bursts(count, burst_noise(bursts_ms, empty_ms), options);
}

std::pair<double, double> closest_events(const std::vector<double>& clock_ms, const std::vector<double>& event_ms) {
  std::pair<double, double> closest{0, 0};
  for (std::size_t k = 0; k < std::min(clock_ms.size(), event_ms.size()); ++k) {
    const double ms = clock_ms[k];
    const double events = event_ms[k];
    if (ms > 0 && (closest.first == 0 || events * closest.first > closest.second * ms)) closest = {ms, events};
  }
  return closest;
}

}  // namespace spmv::grade
