// A row's plan, the runners it draws on, and what the phases of its grading
// (row_grading.cpp) share: the record being made, the row's random source,
// the deadline of the submission's steps, the clock of its phases, its
// bursts and its holds on the GPU.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cases/case_data.hpp"
#include "judging/row_record.hpp"
#include "rows/row_timing.hpp"
#include "runners/gpu_share.hpp"
#include "runners/quiet_gpu.hpp"
#include "runners/runner_client.hpp"
#include "spmv/runner/protocol.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::grade {

class ReferenceMemo;

struct RowPlan {
  PreparedCase* prepared = nullptr;
  std::string kernel;
  spmv_format format = SPMV_FORMAT_CSR;
  double timeout_s = 60;
  runner::TimingOptions timing;
  bool measure_cusparse = false;
  // The policy's timing.min_reference_us: a row whose reference is shorter
  // is correctness-only, and its submission gets half_of_bursts bursts.
  double min_reference_us = 0;
  // The GPU the grading's alone from the row's start to its end (a row
  // graded again, having not passed cleanly beside other gradings); else
  // alone only while the row is timed (gpu_share.hpp).
  bool alone = false;
  // The row's own log.
  std::filesystem::path log;
  // The reference's windows kept for the gradings on the same GPU
  // (reference_memo.hpp; a kernel's rows, kernel_grading.cpp), if any.
  const ReferenceMemo* memo = nullptr;
};

// Starts runners: the submission's (fresh each time) and the reference's.
class RunnerFactory {
 public:
  virtual ~RunnerFactory() = default;
  virtual std::unique_ptr<Runner> submission(const std::filesystem::path& log) = 0;
  // submission() and its kHello, on the factory's Launcher; `append_log`:
  // the runner adds to `log` (a row's runner started again) instead of
  // starting it afresh.
  virtual std::future<std::unique_ptr<Runner>> start_submission(const std::filesystem::path& log, bool append_log) = 0;
  // The reference runner, started (and set up to answer) on first use or
  // after restart_reference().
  virtual Runner& reference() = 0;
  virtual void restart_reference() = 0;
  // A runner whose row is finished: ended in the background (its CUDA
  // context takes tens of milliseconds to be torn down) while the next row
  // starts. settle() waits until every retired runner is gone, and is called
  // before anything is timed or measured. `activity`: the row's hold on the
  // GPU's share, kept until the runner is gone (else one is taken).
  virtual void retire(std::unique_ptr<Runner> runner, GpuShare::Hold activity) = 0;
  virtual void settle() = 0;
  // Bursts about to be timed: while the hold lives no runner begins its
  // start-up, and it first waits for those under way (quiet_gpu.hpp).
  virtual QuietGpu::Hold quiet() = 0;
  // A row's first timed bursts to come: while the hold lives no runner
  // begins its start-up (quiet_gpu.hpp).
  virtual QuietGpu::Hold reserve() = 0;
  // The grading's share of the GPU with other gradings (gpu_share.hpp):
  // work on the GPU that is not timed, and timing.
  virtual GpuShare::Hold active() = 0;
  virtual GpuShare::Hold alone() = 0;
  // Whether other gradings may share the GPU (--gpu-share).
  [[nodiscard]] virtual bool shared() const = 0;
};

// A submission runner being started on a thread of its own (its sandbox
// made, its kHello sent), ahead of its turn: take() waits for it.
struct PendingRunner {
  std::future<std::unique_ptr<Runner>> starting;
  std::filesystem::path log;
  // Or a runner whose plugin is loaded already, kept from the row before
  // (RowRecord::kept), with its hold on the GPU's share.
  std::unique_ptr<Runner> loaded;
  GpuShare::Hold activity;
  // Or a runner started (its "CUDA ready" received) that has not loaded the
  // plugin: a kernel's runner handed from row to row before its load.
  std::unique_ptr<Runner> started;
  // Where this row's output begins in `log` (a kept runner's log holds the
  // rows before too).
  std::uintmax_t log_offset = 0;
  std::unique_ptr<Runner> take() {
    if (loaded) return std::move(loaded);
    if (started) return std::move(started);
    return starting.get();
  }
};
PendingRunner start_submission_runner(RunnerFactory& factory, const std::filesystem::path& log,
                                      bool append_log = false);

// Starting a runner (CUDA's context) takes well under this.
inline constexpr double kStartupTimeoutS = 60;

runner::Request make_request(runner::Command command);
// The sum of a row's phases (RowRecord::phase_ms, RowResult::phase_ms).
double total_ms(const std::map<std::string, double>& phases);
Clock::time_point after_seconds(double seconds);
// "was killed by signal 9", "did not answer in time", ...
std::string how_it_ended(const RunnerEnd& end);

// Seeds and check decisions from the kernel's random source: a runner that
// sees every x it is given still cannot predict the next, nor which launch
// will be checked.
struct Unpredictable {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()();
};

// What the phases of one row's grading share.
class RowState {
 public:
  RowState(const RowPlan& row_plan, RunnerFactory& runners)
      : plan(row_plan), prepared(*row_plan.prepared), factory(runners) {}
  RowState(const RowState&) = delete;
  RowState& operator=(const RowState&) = delete;

  // Charges the time since the previous phase to `name`; passes `ok` on.
  bool phase(const char* name, bool ok);
  // The phases' clock from now: the time since the last phase was another
  // row's (a kernel's rows take turns: kernel_grading.hpp).
  void resume_clock() { phase_start_ = Clock::now(); }

  // The row's hold on the GPU's share: active (waits while another grading
  // times), or alone (the activity let go first: a member waiting to be
  // alone while active would hold up the others waiting for the same).
  void be_active();
  void be_alone();

  // The kSetup of the row's matrix in its format, and its memory files: the
  // matrix image and `results`.
  [[nodiscard]] runner::Request setup_request() const;
  std::array<int, 2> setup_fds(const ResultMemory& results);

  const RowPlan& plan;
  PreparedCase& prepared;
  RunnerFactory& factory;
  RowRecord record;
  Unpredictable random;
  Clock::time_point deadline = Clock::now();  // of the submission's steps
  RowBursts bursts;
  QuietGpu::Hold quiet;        // from the submission's bursts to the reference's after them
  QuietGpu::Hold reservation;  // from the row's beginning to the reference's bursts before
  GpuShare::Hold active;       // the row's work on the GPU, untimed (gpu_share.hpp)
  GpuShare::Hold alone;        // its timed stretch: no other grading's work on the GPU

 private:
  Clock::time_point phase_start_ = Clock::now();
};

}  // namespace spmv::grade
