// One row (kernel, case) graded through two runners: the submission's, made
// for this row, and the reference runner the grading keeps. The grader
// drives every step and records what it saw (row_record.hpp):
//
//   1. the submission's runner answers kHello ("CUDA ready"): a failure up to
//      here is the grader's, and is retried once with a fresh runner;
//   2. the reference runner sets the row's matrix up first (so a submission
//      that grabs the GPU's memory cannot make the reference fail), once the
//      previous row's runner is gone; a pilot burst sets the links per burst
//      (burst_timing.hpp), and the reference is timed, each burst beside a
//      calibration burst (links without the launch: the runner's own
//      kernels and round trip); nothing of any submission is alive, and no
//      runner is being started while any side's bursts are timed
//      (quiet_gpu.hpp);
//   3. kLoad, kSetup and three kRun in the submission's runner; the grader
//      checks y against its golden results;
//   4. if correct, timing: the launch captured into a burst (its host code
//      runs only then), bursts timed by the grader's clock, and after each
//      reply links chosen at random copied out, to be checked in full once
//      the bursts are done (chain.hpp);
//   5. the submission's runner ended, the reference timed again; both sides'
//      times are per launch, bursts minus the reference runner's
//      calibration (timing_checks.hpp checks them).
#pragma once

#include "judging/row_record.hpp"
#include "rows/row_plan.hpp"

namespace spmv::grade {

RowRecord grade_row(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory);

}  // namespace spmv::grade
