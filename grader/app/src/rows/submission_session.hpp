// The kernel's runner session of a row: the submission's runner started (or
// taken loaded from the row before), its calibration before it loads the
// plugin, the plugin's load, the row's set-up and the three checked runs,
// its steps during the bursts, and its end. Every step is the grader's
// request with the row's deadline; the record (RowState::record) says where
// the runner was when a step failed and how it ended.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>

#include "judging/row_record.hpp"
#include "model/row.hpp"
#include "rows/row_plan.hpp"
#include "runners/runner_client.hpp"
#include "spmv/runner/protocol.hpp"

namespace spmv::grade {

class SubmissionSession {
 public:
  SubmissionSession(RowState& row, PendingRunner pending);
  SubmissionSession(const SubmissionSession&) = delete;
  SubmissionSession& operator=(const SubmissionSession&) = delete;

  // Waits for "CUDA ready" (or takes the runner kept from the row before);
  // false (the record says why) if every attempt fails.
  bool start();
  // The submission's load, set-up and the first `runs` checked runs, its
  // results kept; false (the record says why) if a step failed.
  bool correctness_runs(int runs = kRunsPerRow);
  // The runner's own cost, timed before it loads the plugin, into the
  // row's submission side; false (the grader's failure) if a step failed.
  bool calibrate();
  // A step of the runner; false (and the record says why) if it failed or
  // the runner ended.
  bool step(Stage stage, const runner::Request& request, std::span<const int> fds = {}, runner::Reply* out = nullptr);
  // The row needs its runner no more: it is ended in the background.
  void retire();

  [[nodiscard]] bool has_runner() const { return runner_ != nullptr; }
  Runner& runner() { return *runner_; }
  std::unique_ptr<Runner> release_runner() { return std::move(runner_); }
  // The result area the runner writes y into.
  [[nodiscard]] const std::shared_ptr<ResultMemory>& results() const { return results_; }

 private:
  std::optional<runner::Reply> calibration_step(const runner::Request& request, std::span<const int> fds = {});
  void note_recording(const runner::Reply& reply);
  bool load();
  bool setup();
  bool run_once(int run, bool check_matrix);

  RowState& row_;
  PendingRunner pending_;
  std::unique_ptr<Runner> runner_;
  std::filesystem::path log_;
  std::shared_ptr<ResultMemory> results_;
  bool loaded_ = false;  // the runner came with the plugin loaded (PendingRunner::loaded)
};

}  // namespace spmv::grade
