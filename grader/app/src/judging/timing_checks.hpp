// Checks on a row's timing. The time that grades is the grader's own clock
// around chained bursts (spmv/runner/chain.hpp, row_grading.cpp): every
// launch counted did its work inside the measured time, and no number from
// inside the submission's process enters it. What is left to check:
//
//  - implausible_timing, floor: the time per launch is below what the byte
//    model needs at kFloorMargin times the measured copy bandwidth (L2 can
//    beat DRAM: kL2Margin for working sets that fit in L2).
//  - implausible_timing, events: the submission's runner reported, from its
//    own CUDA events, bursts shorter than the grader's clock saw around them
//    by more than kEventFactor (less kEventSlackMs: the round trip's own
//    share, most of a burst of a tiny case), or longer (beyond
//    kEventSlackMs): its timers were tampered with. Judged on the burst
//    whose events came closest to the clock (TimingRecord). A diagnostic
//    only: the grade never uses the events.
//  - speedup_review: a speedup above the policy's threshold (default 10x).
//
// Rows whose reference launch is shorter than the policy's
// min_reference_us are timed but correctness-only (scoring.cpp): they get
// the events check only.
#pragma once

#include <cstdint>
#include <optional>

#include "judging/row_record.hpp"

namespace spmv::grade {

inline constexpr double kFloorMargin = 1.5;
inline constexpr double kL2Margin = 6;
inline constexpr std::uint64_t kL2Bytes = std::uint64_t{40} << 20;
inline constexpr double kEventFactor = 1.5;
inline constexpr double kEventSlackMs = 0.1;

struct TimingBounds {
  std::uint64_t compulsory_bytes = 0;
  std::optional<double> copy_gbps;  // device-to-device copy of the run (none on the host path)
  double speedup_review = 10;       // the policy's threshold
  bool speed_checks = true;         // the floor and speedup_review (not on a correctness-only row)
};

// Adds flags and their reasons to `timing`.
void apply_timing_checks(TimingRecord& timing, const TimingBounds& bounds);

}  // namespace spmv::grade
