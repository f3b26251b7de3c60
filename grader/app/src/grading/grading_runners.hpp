// The runners of a grading: a fresh submission runner per row, one
// reference runner for the whole grading (restarted if it fails), all in
// sandboxes of the grading's isolation level, in folders under one private
// work folder.
#pragma once

#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "grading/setup.hpp"
#include "model/row.hpp"
#include "rows/row_grading.hpp"
#include "runners/runner_client.hpp"

namespace spmv::grade {

class GradingRunners final : public RunnerFactory {
 public:
  // Runners of `common`'s settings: the submission's and the reference's
  // plugin of `setup`, in `defaults`' runner programs, on GPU `device` when
  // the reference works in device memory; the reference runner logs into
  // `logs`.
  // `share`: the grading's share of the GPU with other gradings
  // (gpu_share.hpp), taken before the plugins and the GPU were probed.
  GradingRunners(const RunnerSpec& common, const Defaults& defaults, const Setup& setup, int device,
                 const std::filesystem::path& logs, std::unique_ptr<GpuShare> share);

  std::unique_ptr<Runner> submission(const std::filesystem::path& log) override;
  // A submission runner's spec (for the --memcheck pass).
  [[nodiscard]] RunnerSpec submission_spec(const std::filesystem::path& log) const;
  std::future<std::unique_ptr<Runner>> start_submission(const std::filesystem::path& log, bool append_log) override;

  // Starts the reference runner on the launcher, unless it is started
  // already: its start-up (a CUDA context) then overlaps the grader's own.
  void start_reference();
  Runner& reference() override;
  void restart_reference() override;
  // The reference runner asked to quit and left to end in the background
  // (its last words reach its log), once the grading needs it no more:
  // its CUDA context is torn down while the reports are written.
  void end_reference();

  // What the reference runner said when it was ready: the restrictions it
  // put itself under, as every runner of the grading does.
  [[nodiscard]] const std::string& ready_message() const { return ready_message_; }

  void retire(std::unique_ptr<Runner> runner, GpuShare::Hold activity = {}) override;
  void settle() override;
  QuietGpu::Hold quiet() override;
  QuietGpu::Hold reserve() override { return quiet_.reserve(); }
  GpuShare::Hold active() override { return share_->active(); }
  GpuShare::Hold alone() override { return share_->alone(); }
  GpuShare::Hold try_active() { return share_->try_active(); }
  [[nodiscard]] bool shared() const override { return share_->shared(); }

  // After a row whose submission crashed or hung: a trusted process (the GPU
  // probe's) must still create a context and copy on the GPU, else the next
  // rows would fail for the GPU's sake. Tried 4 times over 7 s; then the
  // grading stops with a clear message (the finished rows are in the
  // reports; --resume grades the rest once the GPU is back).
  // `device`: the GPU probed; its log goes into `output_dir`'s logs.
  void check_gpu_health(const RowResult& row, int device, const std::filesystem::path& output_dir);

  GradingRunners(const GradingRunners&) = delete;
  GradingRunners& operator=(const GradingRunners&) = delete;
  // The launcher stops first: its starts not begun are dropped, not run
  // while this object goes.
  ~GradingRunners() override;

 private:
  std::future<std::unique_ptr<Runner>> start_on_launcher(RunnerSpec spec);

  // Declared before the launcher, whose starts hold them.
  QuietGpu quiet_;
  std::unique_ptr<GpuShare> share_;
  // Declared early, so ended late: its thread outlives every runner it started.
  Launcher launcher_;
  RunnerSpec submission_;  // but its log, each row's own
  RunnerSpec reference_spec_;
  std::unique_ptr<Runner> reference_;
  std::future<std::unique_ptr<Runner>> reference_starting_;
  std::string ready_message_;
  std::mutex retiring_mutex_;  // retire() is called from the threads of the kernels' checks too
  std::vector<std::future<void>> retiring_;
};

}  // namespace spmv::grade
