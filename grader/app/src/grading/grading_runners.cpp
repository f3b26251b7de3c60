#include "grading/grading_runners.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "grading/setup.hpp"
#include "model/exit_codes.hpp"

namespace spmv::grade {
namespace {

// CUDA_VISIBLE_DEVICES for a runner: only the GPU graded on. Indices are
// those of the grader's own view (its CUDA_VISIBLE_DEVICES, if set).
std::string visible_device(int device) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') return std::to_string(device);
  std::vector<std::string> entries(1);
  for (const char* c = visible; *c != '\0'; ++c) {
    if (*c == ',') {
      entries.emplace_back();
    } else {
      entries.back() += *c;
    }
  }
  return device < static_cast<int>(entries.size()) ? entries[static_cast<std::size_t>(device)] : "-1";
}

// The settings of a grading's runners: their memory space, their GPU.
RunnerSpec in_space(RunnerSpec spec, spmv_memory_space memory, int device) {
  spec.space = memory == SPMV_MEMORY_HOST ? "host" : "device";
  if (spec.space == "device") spec.visible_devices = visible_device(device);
  return spec;
}

// How long a start waits for timed bursts to end, and bursts for the starts
// under way, at most; and how long a start holds the GPU's quiet for its
// runner's CUDA context (the row's own wait for "CUDA ready" is longer).
// A start waits out a whole timed stretch (a slow kernel's can pass a
// second: ten bursts of tens of milliseconds, their checks and the
// reference's bursts after) rather than begin inside it; both waits stay
// bounded, so a stuck row slows the grading without stopping it.
constexpr std::chrono::milliseconds kStartPatience{5000};
constexpr std::chrono::milliseconds kQuietPatience{2000};
constexpr std::chrono::seconds kContextWait{10};

// Asks a reference runner to quit, and waits a little for it to.
void quit(Runner& runner) {
  runner::Request quit;
  quit.command = runner::Command::kQuit;
  runner.send(quit);
  runner.wait_for_exit(Clock::now() + std::chrono::seconds(2));
}

// A runner started and asked kHello; returns once it answered (its CUDA
// context made) or kContextWait passed, the answer left for its row.
std::unique_ptr<Runner> say_hello(std::unique_ptr<Runner> runner) {
  runner::Request hello;
  hello.command = runner::Command::kHello;
  runner->send(hello);
  runner->await_reply(Clock::now() + kContextWait);
  return runner;
}

}  // namespace

GradingRunners::GradingRunners(const RunnerSpec& common, const Defaults& defaults, const Setup& setup, int device,
                               const std::filesystem::path& logs, std::unique_ptr<GpuShare> share)
    : share_(std::move(share)),
      // Two starts at once on the device: with short rows graded in under
      // 200 ms on the H100, rows waited for runners started one after
      // another (a start is its sandbox, its process and its CUDA context,
      // and waits while bursts are timed). One on the host, whose kernels
      // share the CPU with the starts.
      launcher_(setup.reference.memory == SPMV_MEMORY_DEVICE ? 2 : 1),
      submission_(
          for_program(in_space(common, setup.reference.memory, device), defaults.runner, setup.submission.path, {})),
      reference_spec_(for_program(in_space(common, setup.reference.memory, device), defaults.reference_runner,
                                  setup.reference.path, logs / "reference-runner.log")) {}

std::unique_ptr<Runner> GradingRunners::submission(const std::filesystem::path& log) {
  return std::make_unique<Runner>(submission_spec(log));
}

RunnerSpec GradingRunners::submission_spec(const std::filesystem::path& log) const {
  RunnerSpec spec = submission_;
  spec.log_file = log;
  return spec;
}

std::future<std::unique_ptr<Runner>> GradingRunners::start_submission(const std::filesystem::path& log,
                                                                      bool append_log) {
  RunnerSpec spec = submission_spec(log);
  spec.append_log = append_log;
  return start_on_launcher(std::move(spec));
}

// The spec travels with the job, by value: a start still queued or under way
// reads nothing of this object.
std::future<std::unique_ptr<Runner>> GradingRunners::start_on_launcher(RunnerSpec spec) {
  // A start holds the GPU's quiet from kHello (its CUDA context) to the
  // answer; its sandbox is made and its process started beside timed
  // bursts, which that does not touch. On the H100, holding the whole
  // start made the rows' waits for starts 27 s over the public cases
  // instead of 17 s, with speedups no closer to 1.
  //
  // With the GPU shared (gpu_share.hpp), a start is also work on the GPU:
  // it waits while any grading times (this one too: between its scored
  // row's bursts, a start would lengthen the stretch the others wait
  // for), and meanwhile does not count as a start under way.
  return launcher_.start([spec = std::move(spec), quiet = &quiet_, share = share_.get()] {
    auto runner = std::make_unique<Runner>(spec);
    const auto patience = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    for (;;) {
      QuietGpu::Hold starting = quiet->start(kStartPatience);
      GpuShare::Hold active = share->try_active(true);
      if (!active.held() && std::chrono::steady_clock::now() > patience) active = share->active();
      if (active.held()) return say_hello(std::move(runner));
      starting.release();
      std::this_thread::sleep_for(GpuShare::kPoll);
    }
  });
}

void GradingRunners::start_reference() {
  if (reference_ || reference_starting_.valid()) return;
  reference_starting_ = start_on_launcher(reference_spec_);
}

Runner& GradingRunners::reference() {
  if (!reference_) {
    start_reference();
    reference_ = reference_starting_.get();
    const auto deadline = Clock::now() + std::chrono::seconds(static_cast<int>(kMinimumProbeTimeout));
    const auto ready = reference_->receive(deadline);
    runner::Request load;
    load.command = runner::Command::kLoad;
    if (ready && ready->kind == runner::ReplyKind::kOk) ready_message_ = runner::read_text(ready->message);
    const auto loaded = ready && ready->kind == runner::ReplyKind::kOk ? reference_->call(load, deadline) : ready;
    if (!loaded || loaded->kind != runner::ReplyKind::kOk) {
      const std::string why = loaded ? runner::read_text(loaded->message) : "it ended or did not answer";
      throw SetupError("the reference runner did not start: " + why + " (see " + reference_spec_.log_file.string() +
                       ")");
    }
  }
  return *reference_;
}

void GradingRunners::restart_reference() {
  reference_.reset();
  // The next reference runner's output follows the failed one's in the log
  // the grader's message points to, which would otherwise lose why it failed.
  reference_spec_.append_log = true;
}

void GradingRunners::end_reference() {
  if (!reference_) return;
  const std::lock_guard lock(retiring_mutex_);
  retiring_.push_back(std::async(std::launch::async, [runner = std::move(reference_), share = share_.get()]() mutable {
    const GpuShare::Hold ending = share->active();  // its end is work on the GPU
    try {
      quit(*runner);
    } catch (const std::exception&) {
      // One that cannot be asked is ended with its process group.
    }
    runner.reset();
  }));
}

void GradingRunners::retire(std::unique_ptr<Runner> runner, GpuShare::Hold activity) {
  const std::lock_guard lock(retiring_mutex_);
  retiring_.push_back(std::async(
      std::launch::async, [runner = std::move(runner), activity = std::move(activity), share = share_.get()]() mutable {
        // A runner ending is work on the GPU (its context torn down).
        const GpuShare::Hold ending = activity.held() ? std::move(activity) : share->active();
        runner->end();
        runner.reset();
      }));
}

GradingRunners::~GradingRunners() {
  try {
    settle();
  } catch (const std::exception&) {
    // A runner that failed to end is gone with its process group.
  }
  // The reference runner ends as work on the GPU too, asked to quit first
  // (its last words, how its images were served, reach its log), before
  // the launcher it was started from is stopped, which takes it along.
  try {
    const GpuShare::Hold ending = share_->active();
    if (reference_) quit(*reference_);
    reference_.reset();
  } catch (const std::exception&) {
    reference_.reset();
  }
  launcher_.stop();
}

QuietGpu::Hold GradingRunners::quiet() { return quiet_.quiet(kQuietPatience); }

void GradingRunners::settle() {
  std::vector<std::future<void>> ending;
  {
    const std::lock_guard lock(retiring_mutex_);
    ending.swap(retiring_);
  }
  for (auto& each : ending) each.get();
}

void GradingRunners::check_gpu_health(const RowResult& row, int device, const std::filesystem::path& output_dir) {
  settle();
  std::string why;
  for (const double pause : {0.0, 1.0, 2.0, 4.0}) {
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    const GpuShare::Hold probing = active();
    const GpuInfo health =
        probe_gpu(device, kMinimumProbeTimeout, logs_dir(output_dir) / "gpu-health.log", std::nullopt);
    if (health.count > 0 && health.copy_gbps) return;
    why = health.note.empty() ? "no GPU found" : health.note;
  }
  throw SetupError("the GPU failed its health check after the row " + row.kernel + " / " + row.case_name + " (" +
                   row.summary + "): " + why +
                   ". Grading stopped; the rows graded so far are in the reports, and "
                   "spmv-grade --resume grades the rest once the GPU works again.");
}

}  // namespace spmv::grade
