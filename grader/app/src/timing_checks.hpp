// Bounds on a row's timing from outside the submission's runner. One
// process cannot time another's kernels, so these use what the grader knows
// for itself: its own clock around each launch's round trip, the same
// measurements of the reference runner, the bytes a kernel of the format
// must move and the GPU's bandwidth measured in the same run.
//
// Rules (docs/grading.md states them with their numbers):
//  - implausible_timing, clock: the submission's round trip minus its
//    reported time (low quantile over the launches) exceeds the same
//    runner's round trip without a launch (measured before its plugin was
//    loaded) by more than kLaunchClockSlackMs plus half the reported time: the
//    launch took longer than it said. Needs kMinClockSamples launches.
//  - implausible_timing, copy: copying y out of a checked launch took more
//    than kCopyFactor times the reference's copy plus kClockSlackMs (low
//    quantiles, kMinCopies copies a side at least): work done when the check
//    was asked for, not in the timed launch.
//  - implausible_timing, floor: the reported time is below what the byte
//    model needs at kFloorMargin times the measured copy bandwidth (L2 can
//    beat DRAM; kL2Margin for working sets that fit in L2).
//  - speedup_review: a speedup above the policy's threshold (default 10x).
//  - reference_slowed: the reference's median beside the submission exceeds
//    its solo median (timed before the submission's plugin was loaded) by
//    more than kReferenceSlowdown (kL2ReferenceSlowdown for working sets
//    that fit in L2, which the submission's launches in between evict while
//    the solo launches find them there) plus kClockSlackMs / 10: something
//    of the submission ran beside it (a thread, GPU work left in flight).
//    A row over this limit has its reference timed alone once more after
//    the submission's runner is gone, and the limit uses the slower solo:
//    a machine slower for a while is not the submission's doing.
#pragma once

#include <cstdint>
#include <optional>

#include "row_record.hpp"

namespace spmv::grade {

inline constexpr double kClockSlackMs = 0.3;
// The clock rule's own slack. Honest rows of the public cases and of
// spmv-bench's suite on the H100 showed up to about 0.46 ms of round trip
// beyond the calibration's (hyb on stencil27: two kernels, their records
// and the recorder's flush after the window, none of it in the events).
inline constexpr double kLaunchClockSlackMs = 0.6;
inline constexpr int kMinClockSamples = 8;
inline constexpr int kMinCopies = 3;
inline constexpr double kReferenceSlowdown = 1.25;
inline constexpr double kL2ReferenceSlowdown = 3;
inline constexpr double kCopyFactor = 3;
inline constexpr double kFloorMargin = 1.5;
inline constexpr double kL2Margin = 6;
inline constexpr std::uint64_t kL2Bytes = std::uint64_t{40} << 20;

struct TimingBounds {
  std::uint64_t compulsory_bytes = 0;
  std::optional<double> copy_gbps;  // device-to-device copy of the run (none on the host path)
  double speedup_review = 10;       // the policy's threshold
};

// The clock rule's figure: how much longer the launches' round trips were
// than the runner's own (`idle_ms`, its calibration), beyond the reported
// time (`unexplained_ms`, low quantile); none from fewer than
// kMinClockSamples launches or without a calibration.
std::optional<double> clock_excess_ms(double unexplained_ms, double idle_ms, int samples);
// The clock rule's limit on that figure, for a reported time of `reported_ms`.
double clock_limit_ms(double reported_ms);

// The reference's median beside the submission above this is
// reference_slowed, for a solo median of `solo_ms`.
double reference_limit_ms(double solo_ms, std::uint64_t compulsory_bytes);

// Adds flags and their reasons to `timing`.
void apply_timing_checks(TimingRecord& timing, const TimingBounds& bounds);

}  // namespace spmv::grade
