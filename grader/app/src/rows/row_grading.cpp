#include "rows/row_grading.hpp"

#include "judging/correctness.hpp"
#include "rows/link_checks.hpp"
#include "rows/reference_windows.hpp"
#include "rows/row_timing.hpp"
#include "rows/submission_bursts.hpp"
#include "rows/submission_session.hpp"

namespace spmv::grade {
namespace {

using runner::ReplyKind;

// One row's grading, step by step (row_grading.hpp): its phases are the
// reference's windows (reference_windows.hpp), the submission's runner
// session (submission_session.hpp), the checks of the timed launches
// (link_checks.hpp) and the timing made of the bursts (row_timing.hpp);
// the verdict is judged later, from the record alone (judging/verdict.hpp).
// What they share, and the row's holds on the GPU, is the RowState.
class RowGrader {
 public:
  RowGrader(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory)
      : row_(plan, factory), session_(row_, std::move(pending)), reference_(row_), checks_(row_) {}

  RowRecord grade() {
    if (!row_.phase("start", session_.start())) return finish();
    // The GPU shared with other gradings (gpu_share.hpp): this row is
    // active on it until its timed stretch, alone from there to its end; a
    // row graded again is alone from here.
    if (row_.plan.alone) {
      row_.be_alone();
    } else {
      row_.be_active();
    }
    row_.phase("share", true);
    // Until the reference's first bursts are timed (after the row's own
    // runner is up: a reservation would hold its start back).
    row_.reservation = row_.factory.reserve();
    row_.deadline = after_seconds(row_.plan.timeout_s);
    if (row_.plan.measure_cusparse && !row_.phase("cusparse", reference_.measure_cusparse())) return finish();
    if (!row_.phase("reference_bursts", reference_setup()) || !session_.correctness_runs()) return finish();
    if (evaluate_correctness(row_.prepared, *row_.record.results, row_.record.modified_inputs).passed) {
      passed_ = true;
      row_.phase("check", true);
      if (!row_.phase("bursts", time_submission())) return finish();
      if (!row_.phase("reference_after_bursts", time_reference_after())) return finish();
      // The links' checks (the CPU's golden products of the links copied
      // out) once the row's timed stretch is over: beside the reference's
      // bursts they slowed whole windows of them on the largest cases. They
      // touch no GPU: with the GPU shared the row holds nothing of the share
      // while they run (but a row graded again alone, which keeps the GPU to
      // its end), and they run at the lowest CPU priority, so that another
      // grading's timed bursts beside them lose no CPU to them.
      if (row_.alone.held() && !row_.plan.alone) row_.alone.release();
      if (!row_.phase("checks", checks_.run_checks())) return finish();
    }
    row_.record.completed = true;
    row_.record.stage = Stage::kDone;
    return finish();
  }

  // The row's holds on the GPU are let go first, in this order, as when
  // they were the last fields of one class.
  ~RowGrader() {
    row_.alone.release();
    row_.active.release();
    row_.reservation.release();
    row_.quiet.release();
  }
  RowGrader(const RowGrader&) = delete;
  RowGrader& operator=(const RowGrader&) = delete;

 private:
  RowRecord finish() {
    RowRecord& record = row_.record;
    // A runner that finished its row, or answered that its kernel is not
    // implemented (a stub's every row), ends in the background; any other
    // is ended now, for how it ended.
    if (record.completed ||
        (record.refused == ReplyKind::kNotImplemented && record.end.kind == RunnerEnd::Kind::kRunning)) {
      session_.retire();
    }
    checks_.collect_checks();
    if (session_.has_runner()) {
      const RunnerEnd end = session_.runner().end();
      if (record.end.kind == RunnerEnd::Kind::kRunning && !record.completed) record.end = end;
    }
    row_.active.release();
    row_.alone.release();
    row_.phase("end", true);
    if (!record.results) record.results.emplace(session_.results()->words(), row_.prepared.csr.rows);
    record.result_memory = session_.results();
    return std::move(record);
  }

  // The reference's matrix set up, the previous row's runner gone, and the
  // reference timed: before this row's submission runner loads its plugin,
  // so nothing of any submission is alive while it runs.
  bool reference_setup() {
    if (!reference_.set_up()) return false;
    row_.phase("reference_setup", true);
    if (!row_.phase("choose_links", reference_.choose_links())) return false;
    // A link of the pilot holds the reference's launch and the runner's own
    // kernels, and a share of the burst's fixed cost: more than the launch.
    // Under the policy's threshold even so, the row is short whatever its
    // bursts say: its speed scores nothing, so its reference is timed
    // without waiting for the GPU to be quiet, and the reservation ends
    // now, letting the next rows' runners start beside it.
    if (reference_.short_by_pilot()) {
      row_.reservation.release();
      return reference_.warmup() && reference_.time_before() && row_.phase("reference_bursts", true);
    }
    // The previous row's runner gone before anything is timed (its end
    // overlaps the pilot, which sets the links only).
    row_.factory.settle();
    row_.phase("settle", true);
    const QuietGpu::Hold quiet = row_.factory.quiet();
    row_.phase("quiet", true);
    row_.be_alone();
    row_.phase("share", true);
    const bool timed = reference_.warmup() &&
                       (!row_.factory.shared() || row_.plan.alone || reference_.links_again_alone()) &&
                       reference_.time_before() && row_.phase("reference_bursts", true) &&
                       (reference_.short_row() || session_.calibrate());
    row_.reservation.release();
    // Short by its bursts: nothing more of the row is timed.
    if (timed && reference_.short_row() && !row_.plan.alone) row_.be_active();
    return timed;
  }

  // Once the submission's runner has ended (its CUDA context gone): the
  // reference again, so that a drift of the machine's speed during the row
  // is shared by both sides. A short row's speed is not scored: its
  // reference time is that of the bursts before, and its runner ends in the
  // background.
  bool time_reference_after() {
    if (reference_.short_row()) {
      row_.quiet.release();
      session_.retire();
      finish_timing();
      return true;
    }
    session_.retire();
    row_.factory.settle();
    row_.phase("settle_after", true);
    if (!row_.quiet.held()) row_.quiet = row_.factory.quiet();
    row_.phase("quiet", true);
    if (!reference_.warmup() || !reference_.time_after()) return false;
    row_.quiet.release();
    finish_timing();
    return true;
  }

  // The submission's bursts (submission_bursts.hpp), with the GPU quiet
  // while they are timed but for a short row's, whose times score nothing
  // (a runner may start beside them).
  bool time_submission() {
    if (!time_submission_bursts(row_, session_, checks_, reference_.short_row(), [&] {
          if (!reference_.short_row()) row_.quiet = row_.factory.quiet();
        })) {
      return false;
    }
    // The runner is needed no more: it ends (its CUDA context torn down);
    // the checks of the links it copied out come after the reference's
    // bursts (run_checks). On the device the GPU stays quiet until the
    // reference's bursts after are done: a start let in while this runner
    // ends would outlast that (a context takes longer to make than to end)
    // and hold those bursts up; it waits for the row's next stretch without
    // timing instead.
    if (!bursts_on_device(row_.bursts)) row_.quiet.release();
    session_.retire();
    return true;
  }

  void finish_timing() {
    grade::finish_timing(row_.record.timing, row_.bursts, reference_.short_row(), reference_.short_by_pilot(),
                         reference_.pilot_link_ms());
  }

  RowState row_;
  SubmissionSession session_;
  ReferenceWindows reference_;
  LinkChecks checks_;
  bool passed_ = false;  // the three checked runs were correct
};

}  // namespace

RowRecord grade_row(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory) {
  return RowGrader(plan, std::move(pending), factory).grade();
}

}  // namespace spmv::grade
