// One row (kernel, case) graded through two runners: the submission's, made
// for this row, and the reference runner the grading keeps. The grader
// drives every step and records what it saw (row_record.hpp):
//
//   1. the submission's runner answers kHello ("CUDA ready"): a failure up to
//      here is the grader's, and is retried once with a fresh runner;
//   2. the reference runner sets the row's matrix up first, so a submission
//      that grabs the GPU's memory cannot make the reference fail, and times
//      it alone (its solo time, to compare with);
//   3. kLoad, kSetup and three kRun in the submission's runner; the grader
//      checks y against its golden results;
//   4. if correct, timing: the runners alternate launch by launch, the
//      submission's blocked on its channel while the reference runs; each
//      timed launch gets an x of a fresh seed, and after
//      each launch the grader decides at random whether to check its y (at
//      least one in every batch); the grader's clock bounds the reported
//      times (timing_checks.hpp).
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "case_data.hpp"
#include "row_record.hpp"
#include "runner_client.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::grade {

struct RowPlan {
  PreparedCase* prepared = nullptr;
  std::string kernel;
  spmv_format format = SPMV_FORMAT_CSR;
  double timeout_s = 60;
  runner::TimingOptions timing;
  bool measure_cusparse = false;
};

// Starts runners: the submission's (fresh each time) and the reference's.
class RunnerFactory {
 public:
  virtual ~RunnerFactory() = default;
  virtual std::unique_ptr<Runner> submission(const std::filesystem::path& log) = 0;
  // submission() and its kHello, on the factory's Launcher.
  virtual std::future<std::unique_ptr<Runner>> start_submission(const std::filesystem::path& log) = 0;
  // The reference runner, started (and set up to answer) on first use or
  // after restart_reference().
  virtual Runner& reference() = 0;
  virtual void restart_reference() = 0;
  // A runner whose row is finished: ended in the background (its CUDA
  // context takes tens of milliseconds to be torn down) while the next row
  // starts. settle() waits until every retired runner is gone, and is called
  // before anything is timed or measured.
  virtual void retire(std::unique_ptr<Runner> runner) = 0;
  virtual void settle() = 0;
};

// A submission runner being started on a thread of its own (its sandbox
// made, its kHello sent), ahead of its turn: take() waits for it.
struct PendingRunner {
  std::future<std::unique_ptr<Runner>> starting;
  std::filesystem::path log;
  std::unique_ptr<Runner> take() { return starting.get(); }
};
PendingRunner start_submission_runner(RunnerFactory& factory, const std::filesystem::path& log);

RowRecord grade_row(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory);

}  // namespace spmv::grade
