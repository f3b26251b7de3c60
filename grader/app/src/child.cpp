#include "child.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "correctness.hpp"
#include "cusparse_timer.hpp"
#include "executor.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/plugin/plugin.hpp"
#include "uploaded.hpp"

namespace spmv::grade {
namespace {

// A failure the row's verdict is made of; carries the child's Outcome.
class RowFailure : public std::runtime_error {
 public:
  RowFailure(Outcome outcome, int status, const std::string& message)
      : std::runtime_error(message), outcome_(outcome), status_(status) {}
  [[nodiscard]] Outcome outcome() const { return outcome_; }
  [[nodiscard]] int status() const { return status_; }

 private:
  Outcome outcome_;
  int status_;
};

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// A launch's return value and the error synchronizing left, as a failure.
void check_launch(spmv_status status, int error, const std::string& who) {
  if (status == SPMV_NOT_IMPLEMENTED) {
    throw RowFailure(Outcome::kNotImplemented, status, who + " returned SPMV_NOT_IMPLEMENTED");
  }
  if (status != SPMV_SUCCESS) {
    throw RowFailure(Outcome::kLaunchFailed, status,
                     who + " returned " + (status > 0 ? cuda_error_name(status) : std::to_string(status)));
  }
  if (error != 0) throw RowFailure(Outcome::kCudaError, error, who + ": " + cuda_error_name(error));
}

}  // namespace

class RowRun {
 public:
  RowRun(const RowTask& task, const RowChannel& channel)
      : task_(task), prepared_(*task.prepared), channel_(channel), report_(channel.report()) {}

  void start_up() {
    load_plugins();
    channel_.set_stage(Stage::kStartingCuda);
    executor_ = task_.memory == SPMV_MEMORY_HOST ? make_host_executor() : make_device_executor(task_.device);
    channel_.set_stage(Stage::kWaitingForTurn);
  }

  void run() {
    upload();
    size_scratch();
    const bool measure_cusparse = report_.measure_cusparse.load(std::memory_order_acquire) != 0;
    if (measure_cusparse && executor_->space() == MemorySpace::kDevice) time_cusparse();
    for (int run = 0; run < kRunsPerRow; ++run) run_submission(run);
    check_inputs();
    // Verify first, then time: a wrong kernel is not timed.
    if (evaluate_correctness(prepared_, channel_).passed) time_against_reference();
  }

 private:
  void load_plugins() {
    channel_.set_stage(Stage::kLoadingPlugins);
    try {
      SubmissionCall guard(channel_.region());
      submission_ = std::make_unique<Plugin>(Plugin::load(task_.submission, {.forbid_vendor_libraries = true}));
    } catch (const PluginError& e) {
      throw RowFailure(Outcome::kSubmissionUnusable, 0, e.what());
    }
    submission_kernel_ = submission_->find(task_.kernel);
    if (submission_kernel_ == nullptr) {
      throw RowFailure(Outcome::kNotImplemented, 0, "the submission has no kernel named " + task_.kernel);
    }
    channel_.set_stage(Stage::kLoadingReference);
    reference_ = std::make_unique<Plugin>(Plugin::load(task_.reference, {.forbid_vendor_libraries = false}));
    reference_kernel_ = &reference_->require(task_.kernel);
  }

  void upload() {
    channel_.set_stage(Stage::kUploading);
    const MemorySpace space = executor_->space();
    matrix_ = upload_matrix(space, task_.format, prepared_);
    for (int run = 0; run < kRunsPerRow; ++run) {
      // One x buffer per run, so a change made in one run cannot be undone
      // by the next one before the inputs are checked.
      x_.emplace_back(space, std::span<const float>(prepared_.x[x_of_run(run)]));
    }
    const std::size_t words = channel_.area(0).size();
    y_ = RawBuffer(space, words * sizeof(std::uint32_t));
    fresh_y_.assign(words, kGuardBits);
    std::fill(fresh_y_.begin() + kGuardWords, fresh_y_.end() - kGuardWords, kPoisonBits);
    settle("the upload");
  }

  // A copy from pageable host memory may still be in flight when cudaMemcpy
  // returns: wait for it before a kernel reads (or writes) the memory.
  void settle(const char* what) const { check_cuda(executor_->synchronize(), what); }

  [[nodiscard]] float* y_values() const { return static_cast<float*>(y_.data()) + kGuardWords; }

  static std::size_t scratch_bytes(const spmv_kernel_entry& kernel, const void* view) {
    return kernel.scratch_size != nullptr ? kernel.scratch_size(view) : 0;
  }

  void size_scratch() {
    channel_.set_stage(Stage::kScratchSize);
    std::size_t submission_bytes = 0;
    {
      SubmissionCall guard(channel_.region());
      submission_bytes = scratch_bytes(*submission_kernel_, matrix_->view());
    }
    submission_scratch_ = RawBuffer(executor_->space(), submission_bytes);
    reference_scratch_ = RawBuffer(executor_->space(), scratch_bytes(*reference_kernel_, matrix_->view()));
  }

  void time_cusparse() {
    channel_.set_stage(Stage::kCusparse);
    TimingOptions options = task_.timing;
    options.min_time_ms /= 2;  // context only: half the effort
    CusparseTiming timing;
    try {
      timing = time_cusparse_csr(prepared_.csr, prepared_.x[0], *executor_, options);
    } catch (const std::exception& e) {
      // Context only: a failure here must not cost the row.
      timing.note = e.what();
    }
    report_.cusparse_timed = timing.timed ? 1 : 0;
    report_.cusparse_ms = timing.timing.median_ms;
    report_.cusparse_samples = timing.timing.samples;
    store_text(report_.cusparse_note, timing.note);
  }

  spmv_status launch(const spmv_kernel_entry& kernel, int run, const RawBuffer& scratch) const {
    return kernel.launch(matrix_->view(), x_[static_cast<std::size_t>(run)].data(), y_values(), scratch.data(),
                         executor_->stream());
  }

  void run_submission(int run) {
    channel_.set_stage(static_cast<Stage>(static_cast<int>(Stage::kRun1) + run));
    y_.copy_from_host(fresh_y_.data(), fresh_y_.size() * sizeof(std::uint32_t));
    settle("filling y");
    spmv_status status = SPMV_SUCCESS;
    {
      SubmissionCall guard(channel_.region());
      status = launch(*submission_kernel_, run, submission_scratch_);
    }
    const int error = status == SPMV_SUCCESS ? executor_->synchronize() : 0;
    check_launch(status, error, "the submission's launch");
    const auto area = channel_.area(run);
    y_.copy_to_host(area.data(), area.size_bytes());
    report_.runs_written = run + 1;
  }

  void check_inputs() {
    channel_.set_stage(Stage::kCheckingInputs);
    std::vector<std::string> modified = matrix_->modified_arrays();
    for (int run = 0; run < kRunsPerRow; ++run) {
      const auto& original = prepared_.x[x_of_run(run)];
      if (!same_contents(x_[static_cast<std::size_t>(run)].raw(), original.data(), original.size() * sizeof(float))) {
        modified.push_back("x of run " + std::to_string(run + 1));
      }
    }
    store_text(report_.modified_inputs, join(modified));
  }

  TimedLaunch timed_side(const spmv_kernel_entry& kernel, const RawBuffer& scratch, bool submission,
                         const std::string& who) {
    return [this, &kernel, &scratch, submission, who] {
      spmv_status status = SPMV_SUCCESS;
      int error = 0;
      double ms = 0;
      const auto launch_once = [&] { return launch(kernel, 0, scratch); };
      if (submission) {
        SubmissionCall guard(channel_.region());
        ms = executor_->time(launch_once, status, error);
      } else {
        ms = executor_->time(launch_once, status, error);
      }
      check_launch(status, error, who);
      return ms;
    };
  }

  void time_against_reference() {
    channel_.set_stage(Stage::kWarmup);
    const std::vector<TimedLaunch> sides{
        timed_side(*submission_kernel_, submission_scratch_, true, "the submission's launch (timing)"),
        timed_side(*reference_kernel_, reference_scratch_, false, "the reference's launch (timing)")};
    const auto results = time_interleaved(sides, task_.timing, [&] { channel_.set_stage(Stage::kTiming); });
    report_.submission_ms = results[0].median_ms;
    report_.submission_samples = results[0].samples;
    report_.reference_ms = results[1].median_ms;
    report_.reference_samples = results[1].samples;
    report_.timed = 1;
  }

  const RowTask& task_;
  const PreparedCase& prepared_;
  const RowChannel& channel_;
  RowReport& report_;
  std::unique_ptr<Plugin> submission_, reference_;
  const spmv_kernel_entry* submission_kernel_ = nullptr;
  const spmv_kernel_entry* reference_kernel_ = nullptr;
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<UploadedMatrix> matrix_;
  std::vector<Buffer<float>> x_;
  RawBuffer y_;
  std::vector<std::uint32_t> fresh_y_;
  RawBuffer submission_scratch_, reference_scratch_;
};

namespace {

void record_failure(const RowChannel& channel, Outcome outcome, int status, const char* message) {
  RowReport& report = channel.report();
  report.outcome = outcome;
  report.status = status;
  report.failed_stage = static_cast<std::int32_t>(channel.stage());
  store_text(report.message, message);
}

}  // namespace

void RowChild::start_up() {
  // Before any plugin code runs: the regions of the rows before this one
  // are still in use.
  SharedRegion::keep_only(channel_.region());
  try {
    // Deliberately never destroyed: the process ends right after the row,
    // and unloading plugins or freeing device memory after a kernel fault
    // can itself crash or hang, which would blame a finished row.
    auto* row = new RowRun(task_, channel_);
    row->start_up();
    row_ = row;
  } catch (const RowFailure& e) {
    record_failure(channel_, e.outcome(), e.status(), e.what());
  } catch (const CudaError& e) {
    record_failure(channel_, Outcome::kCudaError, e.code(), e.what());
  } catch (const std::exception& e) {
    record_failure(channel_, Outcome::kGraderFailure, 0, e.what());
  }
  if (row_ == nullptr) channel_.set_stage(Stage::kDone);
}

void RowChild::run() {
  if (row_ == nullptr) return;  // the start-up failed; the channel says why
  try {
    row_->run();
    channel_.report().outcome = Outcome::kCompleted;
  } catch (const RowFailure& e) {
    record_failure(channel_, e.outcome(), e.status(), e.what());
  } catch (const CudaError& e) {
    record_failure(channel_, Outcome::kCudaError, e.code(), e.what());
  } catch (const std::exception& e) {
    record_failure(channel_, Outcome::kGraderFailure, 0, e.what());
  }
  channel_.set_stage(Stage::kDone);
}

}  // namespace spmv::grade
