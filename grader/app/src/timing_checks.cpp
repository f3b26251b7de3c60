#include "timing_checks.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace spmv::grade {
namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

void flag(TimingRecord& timing, const std::string& name, const std::string& reason) {
  bool present = false;
  for (const auto& existing : timing.flags) present = present || existing == name;
  if (!present) timing.flags.push_back(name);
  timing.flag_reasons.push_back(name + ": " + reason);
}

}  // namespace

std::optional<double> clock_excess_ms(double unexplained_ms, double idle_ms, int samples) {
  if (samples < kMinClockSamples || idle_ms <= 0) return std::nullopt;
  return unexplained_ms - idle_ms;
}

double clock_limit_ms(double reported_ms) { return kLaunchClockSlackMs + 0.5 * reported_ms; }

double reference_limit_ms(double solo_ms, std::uint64_t compulsory_bytes) {
  const double slowdown = compulsory_bytes <= kL2Bytes ? kL2ReferenceSlowdown : kReferenceSlowdown;
  return slowdown * solo_ms + kClockSlackMs / 10;
}

void apply_timing_checks(TimingRecord& timing, const TimingBounds& bounds) {
  if (!timing.timed || timing.submission_ms <= 0) return;
  const double reported = timing.submission_ms;
  const auto excess =
      clock_excess_ms(timing.submission_unexplained_ms, timing.submission_idle_ms, timing.submission_samples);
  if (excess) timing.bound_use["clock"] = *excess / clock_limit_ms(reported);
  if (excess && *excess > clock_limit_ms(reported)) {
    flag(timing, "implausible_timing",
         "the grader's clock saw each launch take " + number(*excess) + " ms more than the runner's own overhead, while "
         "the runner reported " + number(reported) + " ms");
  }
  const bool copy_bound = timing.copies >= kMinCopies && timing.reference_copy_ms > 0;
  if (copy_bound) {
    timing.bound_use["copy"] = timing.submission_copy_ms / (kCopyFactor * timing.reference_copy_ms + kClockSlackMs);
  }
  if (copy_bound && timing.submission_copy_ms > kCopyFactor * timing.reference_copy_ms + kClockSlackMs) {
    flag(timing, "implausible_timing",
         "copying y out took " + number(timing.submission_copy_ms) + " ms against the reference's " +
             number(timing.reference_copy_ms) + " ms: work done after the timed launch");
  }
  if (bounds.copy_gbps && *bounds.copy_gbps > 0 && bounds.compulsory_bytes > 0) {
    const double margin = bounds.compulsory_bytes <= kL2Bytes ? kL2Margin : kFloorMargin;
    const double floor_ms = static_cast<double>(bounds.compulsory_bytes) / (*bounds.copy_gbps * margin * 1e6);
    timing.bound_use["floor"] = floor_ms / reported;
    if (reported < floor_ms) {
      flag(timing, "implausible_timing",
           "reported " + number(reported) + " ms, below the " + number(floor_ms) + " ms that moving " +
               std::to_string(bounds.compulsory_bytes) + " bytes needs at " + number(margin) + "x the measured copy "
               "bandwidth");
    }
  }
  const double solo_ms = std::max(timing.reference_solo_ms, timing.reference_solo_again_ms);
  const double reference_limit = reference_limit_ms(solo_ms, bounds.compulsory_bytes);
  if (solo_ms > 0) timing.bound_use["reference"] = timing.reference_ms / reference_limit;
  if (solo_ms > 0 && timing.reference_ms > reference_limit) {
    flag(timing, "reference_slowed",
         "the reference took " + number(timing.reference_ms) + " ms beside the submission against " +
             number(timing.reference_solo_ms) + " ms alone before it and " + number(timing.reference_solo_again_ms) +
             " ms alone after it");
  }
  if (timing.reference_ms > 0) timing.bound_use["speedup"] = timing.reference_ms / reported / bounds.speedup_review;
  if (timing.reference_ms > 0 && timing.reference_ms / reported > bounds.speedup_review) {
    flag(timing, "speedup_review",
         number(timing.reference_ms / reported) + "x the reference, above the review threshold of " +
             number(bounds.speedup_review) + "x");
  }
}

}  // namespace spmv::grade
