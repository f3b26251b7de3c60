#include "judging/timing_checks.hpp"

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

void apply_timing_checks(TimingRecord& timing, const TimingBounds& bounds) {
  if (!timing.timed) return;
  const double measured = timing.submission_ms;
  if (bounds.speed_checks && measured > 0 && bounds.copy_gbps && *bounds.copy_gbps > 0 && bounds.compulsory_bytes > 0) {
    const double margin = bounds.compulsory_bytes <= kL2Bytes ? kL2Margin : kFloorMargin;
    const double floor_ms = static_cast<double>(bounds.compulsory_bytes) / (*bounds.copy_gbps * margin * 1e6);
    timing.bound_use["floor"] = floor_ms / measured;
    if (measured < floor_ms) {
      flag(timing, "implausible_timing",
           "measured " + number(measured) + " ms a launch, below the " + number(floor_ms) + " ms that moving " +
               std::to_string(bounds.compulsory_bytes) + " bytes needs at " + number(margin) +
               "x the measured copy bandwidth");
    }
  }
  // Only a device runner reports events; the host path's are 0. A whole
  // burst by the runner's events sits inside the grader's round trip around
  // it, and takes most of it.
  if (timing.submission_event_burst_ms > 0 && timing.submission_burst_ms > 0) {
    const double low = timing.submission_burst_ms / kEventFactor - kEventSlackMs;
    const double high = timing.submission_burst_ms + kEventSlackMs;
    const double events = timing.submission_event_burst_ms;
    timing.bound_use["events"] = events < timing.submission_burst_ms ? std::max(low, 0.0) / events : events / high;
    if (events < low || events > high) {
      flag(timing, "implausible_timing",
           "the submission's runner timed its own bursts at " + number(events) + " ms against the grader's " +
               number(timing.submission_burst_ms) +
               " ms around them: its timers were tampered with (the grade "
               "uses the grader's)");
    }
  }
  if (!bounds.speed_checks || measured <= 0 || timing.reference_ms <= 0) return;
  timing.bound_use["speedup"] = timing.reference_ms / measured / bounds.speedup_review;
  if (timing.reference_ms / measured > bounds.speedup_review) {
    flag(timing, "speedup_review",
         number(timing.reference_ms / measured) + "x the reference, above the review threshold of " +
             number(bounds.speedup_review) + "x");
  }
}

}  // namespace spmv::grade
