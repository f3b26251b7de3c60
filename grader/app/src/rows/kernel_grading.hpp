// A kernel's rows (one per case of a group) graded through runners of the
// kernel, not one per row, in five steps:
//
//   1. correctness: one runner loads the plugin and serves the rows in turn
//      (the case set up, three checked runs). Nothing of the reference runs
//      yet: a stub's or a broken kernel's rows cost one runner and their runs.
//   2. the reference's windows before (reference_windows.hpp) for every row
//      that passed, that runner gone: links chosen from the reference's
//      pilot, a warm-up, timed bursts. Nothing of the submission has its
//      plugin loaded while they are timed.
//   3. timing: a second runner, started in step 1 once a row passed, times its own
//      calibration bursts for every row scored by speed before it loads the
//      plugin; then row by row the case set up, one checked run (step 1's
//      three stand as the row's results when it is right), the launch
//      captured, bursts timed by the grader's clock, links copied out
//      (submission_bursts.hpp).
//   4. that runner ended (its CUDA context gone): the reference's windows
//      after, for every row scored by speed, compared with those before.
//   5. the copied links checked against their golden products (CPU), each
//      row's timing made of its bursts.
//
// A runner in which a row fails (a crash, a timeout, a wrong result, a
// refused step) ends there; the next row gets a fresh one (calibrated
// afresh before its load in step 3). A row that fails in a runner that
// served an earlier row is graded again on its own (KernelRow::again_alone,
// row_grading.hpp): what the earlier rows did in that process never decides
// another row's verdict. A row that passes there is its kernel's own pass:
// what an earlier row left behind cannot make a result right for an x it
// has not seen, and each timed launch is checked by the grader.
#pragma once

#include <memory>
#include <vector>

#include "judging/row_record.hpp"
#include "rows/row_plan.hpp"

namespace spmv::grade {

// Wall-clock seconds a kernel's grading spent in steps 2 and 4 (the
// reference's windows, the waits for the GPU to settle before them
// included) and in step 3 (the submission's timing runners).
struct KernelSteps {
  double reference_s = 0;
  double timing_s = 0;
  double settle_s = 0;  // of reference_s: waiting for the runners before to be gone
};

struct KernelRow {
  RowRecord record;          // as graded in the kernel's runners
  bool again_alone = false;  // failed after another row in its runner: grade it alone
};

class KernelGrader;

// The rows of `plans` (one kernel, cases in grading order; each plan's log
// is the row's own), graded in the order given. The runners write into the
// first row's log (the rows after begin at their offset in it), step 3's
// into its ".timing" sibling. `timing_ahead`: step 3's runner starts in
// step 1, once a row has passed it (else at step 3).
class KernelGrading {
 public:
  KernelGrading(const std::vector<RowPlan>& plans, RunnerFactory& factory, bool timing_ahead);
  ~KernelGrading();
  KernelGrading(KernelGrading&&) noexcept;
  KernelGrading(const KernelGrading&) = delete;
  KernelGrading& operator=(const KernelGrading&) = delete;

  // Step 1. Several kernels' may run at once, on threads of their own
  // (each row's runner is its own process; no timing is under way).
  void check();
  // Steps 2 to 5, once no kernel's step 1 is under way (its runners gone:
  // nothing of the submission alive while the reference is timed); every
  // row's record, in the order of `plans`.
  std::vector<KernelRow> time();
  // Where time() spent its time.
  [[nodiscard]] KernelSteps steps() const;

 private:
  std::unique_ptr<KernelGrader> grader_;
};

}  // namespace spmv::grade
