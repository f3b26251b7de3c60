#include "row_grading.hpp"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <deque>
#include <future>
#include <optional>
#include <thread>
#include <cmath>

#include "correctness.hpp"
#include "spmv/plugin/plugin.hpp"
#include "timing_checks.hpp"

namespace spmv::grade {
namespace {

using runner::Command;
using runner::ReplyKind;
using runner::Reply;
using runner::Request;

// Starting a runner (CUDA's context) takes well under this.
constexpr double kStartupTimeoutS = 60;
// Every timed launch is checked with this probability, and the last of a
// batch when none of the batch was: a launch that skips its work is caught
// with a probability of at least 1/8 each time.
constexpr double kCheckProbability = 1.0 / 8;
constexpr int kBatch = 8;
// Launch-free round trips that measure a submission runner's own overhead.
constexpr int kIdleLaunches = 12;
// Checks of timed launches computed beside the next launches, at most.
constexpr std::size_t kMaxPendingChecks = 6;

Request make_request(Command command) {
  Request request;
  request.command = command;
  return request;
}

Clock::time_point after_seconds(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string how_it_ended(const RunnerEnd& end) {
  switch (end.kind) {
    case RunnerEnd::Kind::kSignaled: return "was killed by signal " + std::to_string(end.signal);
    case RunnerEnd::Kind::kExited: return "exited with status " + std::to_string(end.code);
    case RunnerEnd::Kind::kTimedOut: return "did not answer in time";
    case RunnerEnd::Kind::kKilled: return "ended";
    case RunnerEnd::Kind::kRunning: break;
  }
  return "is still running";
}

// Seeds and check decisions from the kernel's random source: a runner that
// sees every x it is given still cannot predict the next, nor which launch
// will be checked.
struct Unpredictable {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    result_type value = 0;
    while (::getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
    }
    return value;
  }
};

// A launch's time: its events on the stream it was given, or the span of
// every kernel it started on any stream (the launch recorder's), whichever
// is longer: work moved to another stream is counted.
double launch_ms(const Reply& reply) { return std::max(reply.ms, reply.span_ms); }

double median_of(std::vector<double> values) { return values.empty() ? 0.0 : runner::median(std::move(values)); }

// The value a tenth of the samples are below: what the grader's clock saw
// when the machine did not get in the way. Delays from other load only ever
// add to a round trip; work a launch did not report is in every one.
double low_quantile(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 10);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

class RowGrader {
 public:
  RowGrader(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory)
      : plan_(plan), prepared_(*plan.prepared), factory_(factory), runner_(pending.take()),
        log_(std::move(pending.log)),
        results_(std::make_shared<ResultMemory>(runner::result_area_bytes(prepared_.csr.rows))),
        reference_results_(runner::result_area_bytes(prepared_.csr.rows)) {
    record_.log_file = log_;
  }

  RowRecord grade() {
    if (!phase("start", start())) return finish();
    deadline_ = after_seconds(plan_.timeout_s);
    if (plan_.measure_cusparse && !phase("cusparse", measure_cusparse())) return finish();
    if (!phase("reference", reference_setup())) return finish();
    if (!phase("calibrate", calibrate()) || !phase("load", load()) || !phase("setup", setup())) return finish();
    for (int run = 0; run < kRunsPerRow; ++run) {
      if (!run_once(run)) return finish();
    }
    phase("runs", true);
    record_.results.emplace(results_->words(), prepared_.csr.rows);
    if (evaluate_correctness(prepared_, *record_.results, record_.modified_inputs).passed) {
      phase("check", true);
      if (!phase("timing", time_against_reference())) return finish();
    }
    record_.completed = true;
    record_.stage = Stage::kDone;
    return finish();
  }

 private:
  // Charges the time since the previous phase to `name`; passes `ok` on.
  bool phase(const char* name, bool ok) {
    const Clock::time_point now = Clock::now();
    record_.phase_ms[name] += std::chrono::duration<double, std::milli>(now - phase_start_).count();
    phase_start_ = now;
    return ok;
  }

  RowRecord finish() {
    if (record_.completed) retire_runner();
    collect_checks();
    if (runner_) {
      const RunnerEnd end = runner_->end();
      if (record_.end.kind == RunnerEnd::Kind::kRunning && !record_.completed) record_.end = end;
    }
    phase("end", true);
    if (!record_.results) record_.results.emplace(results_->words(), prepared_.csr.rows);
    record_.result_memory = results_;
    return std::move(record_);
  }

  // Waits for "CUDA ready". A runner that fails to start is replaced, after
  // a pause that lets the GPU recover (a runner started while the previous
  // row's submission held all of the GPU's memory fails to create its
  // context; the driver frees that memory a moment after the process is
  // gone); the row is the grader's failure only if every attempt fails.
  bool start() {
    record_.stage = Stage::kStarting;
    static constexpr double kPausesS[] = {0, 0.25, 1, 3};
    for (const double pause : kPausesS) {
      if (pause > 0) {
        runner_->end();
        factory_.settle();
        std::this_thread::sleep_for(std::chrono::duration<double>(pause));
        runner_ = start_submission_runner(factory_, log_).take();
      }
      const auto reply = runner_->receive(after_seconds(kStartupTimeoutS));
      if (reply && reply->kind == ReplyKind::kOk) return true;
      const std::string why = reply ? runner::read_text(reply->message) : "it " + how_it_ended(runner_->end());
      record_.grader_failure = "the submission's runner did not start (4 attempts in 4 s): " + why;
    }
    return false;
  }

  // A step of the submission's runner; false (and the record says why) if
  // it failed or the runner ended.
  bool step(Stage stage, const Request& request, std::span<const int> fds = {}, Reply* out = nullptr) {
    record_.stage = stage;
    const auto reply = runner_->call(request, deadline_, fds);
    if (!reply) {
      record_.end = runner_->end();
      return false;
    }
    if (reply->kind != ReplyKind::kOk) {
      record_.refused = reply->kind;
      record_.status = reply->status;
      record_.message = runner::read_text(reply->message);
      return false;
    }
    if (out != nullptr) *out = *reply;
    return true;
  }

  // A step of the reference runner (the grader's side): retried once on a
  // fresh reference runner, then the row is the grader's failure.
  std::optional<Reply> reference_step(const Request& request, std::span<const int> fds = {},
                                      bool redo_setup = true) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (attempt > 0) {
        factory_.settle();
        factory_.restart_reference();
        if (redo_setup && !reference_ready_again()) break;
      }
      Runner& reference = factory_.reference();
      const auto reply = reference.call(request, after_seconds(std::max(plan_.timeout_s, kStartupTimeoutS)), fds);
      if (reply && reply->kind == ReplyKind::kOk) return reply;
      const std::string why = reply ? runner::read_text(reply->message) : "it " + how_it_ended(reference.end());
      record_.grader_failure = "the reference runner failed: " + why;
    }
    return std::nullopt;
  }

  bool reference_ready_again() {
    if (!reference_set_up_) return true;
    Runner& reference = factory_.reference();
    const auto reply = reference.call(setup_request(), after_seconds(kStartupTimeoutS), setup_fds(reference_results_));
    return reply && reply->kind == ReplyKind::kOk;
  }

  Request setup_request() const {
    Request request = make_request(Command::kSetup);
    request.format = plan_.format;
    runner::store_text(request.kernel, plan_.kernel);
    return request;
  }

  std::array<int, 2> setup_fds(const ResultMemory& results) {
    return {matrix_image(prepared_, plan_.format), results.fd()};
  }

  bool measure_cusparse() {
    Request setup = make_request(Command::kSetup);
    setup.format = SPMV_FORMAT_CSR;
    const std::array<int, 2> fds{matrix_image(prepared_, SPMV_FORMAT_CSR), reference_results_.fd()};
    if (!reference_step(setup, fds, false)) return false;
    factory_.settle();  // the previous row's runner is gone before anything is timed
    Request time = make_request(Command::kCusparse);
    time.seed = random_();
    time.cusparse_runs = plan_.timing.min_runs;
    time.cusparse_min_ms = plan_.timing.min_time_ms / 2;
    // Context only: cuSPARSE refusing a matrix costs the row nothing.
    const auto reply = factory_.reference().call(time, after_seconds(std::max(plan_.timeout_s, kStartupTimeoutS)));
    if (reply && reply->kind == ReplyKind::kOk && reply->ms > 0) record_.cusparse_ms = reply->ms;
    return true;
  }

  bool reference_setup() {
    record_.stage = Stage::kStarting;
    const auto fds = setup_fds(reference_results_);
    if (!reference_step(setup_request(), fds, false)) return false;
    reference_set_up_ = true;
    factory_.settle();  // the previous row's runner is gone before anything is timed
    return reference_solo();
  }

  // What the launch recorder saw: the first foreign kernel, or why it
  // recorded nothing.
  void note_recording(const Reply& reply) {
    const std::string foreign = runner::read_text(reply.foreign_kernel);
    if (!foreign.empty() && record_.foreign_kernel.empty()) record_.foreign_kernel = foreign;
    const std::string note = runner::read_text(reply.recorder_note);
    if (!note.empty() && record_.recorder_note.empty()) record_.recorder_note = note;
  }

  // The submission's runner before its plugin is loaded: the same timed
  // steps without a launch, so the grader knows what this runner's round
  // trip costs by itself (its overhead) from a window no submission code
  // ran in.
  bool calibrate() {
    Request setup = make_request(Command::kSetup);
    setup.format = SPMV_FORMAT_CSR;  // no kernel: the case's shape only
    const std::array<int, 2> fds{shape_image(prepared_), results_->fd()};
    if (!step(Stage::kStarting, setup, fds)) return false;
    std::vector<double> idle, overhead;
    for (int k = 0; k < kIdleLaunches + 2; ++k) {
      Request request = make_request(Command::kTimed);
      request.seed = random_();
      Reply reply;
      if (!step(Stage::kStarting, request, {}, &reply)) return false;
      if (k < 2) continue;
      idle.push_back(runner_->last_round_trip_ms() - launch_ms(reply));
      if (reply.span_ms > 0) overhead.push_back(reply.ms - reply.span_ms);
    }
    record_.timing.submission_idle_ms = low_quantile(idle);
    stream_overhead_ms_ = std::max(0.0, low_quantile(overhead));
    return true;
  }

  bool load() {
    Reply reply;
    if (!step(Stage::kLoadingPlugins, make_request(Command::kLoad), {}, &reply)) return false;
    for (int k = 0; k < reply.kernel_count && k < static_cast<int>(runner::kMaxKernels); ++k) {
      if (runner::read_text(reply.kernels[k].name) == plan_.kernel) return true;
    }
    record_.refused = ReplyKind::kNotImplemented;
    record_.message = "the submission has no kernel named " + plan_.kernel;
    return false;
  }

  bool setup() { return step(Stage::kUploading, setup_request(), setup_fds(*results_)); }

  bool run_once(int run) {
    Request request = make_request(Command::kRun);
    request.slot = run;
    request.seed = prepared_.x_seeds[static_cast<std::size_t>(x_of_run(run))];
    Reply reply;
    if (!step(static_cast<Stage>(static_cast<int>(Stage::kRun1) + run), request, {}, &reply)) return false;
    note_recording(reply);
    const std::string modified = runner::read_text(reply.modified);
    if (!modified.empty()) {
      record_.modified_inputs += (record_.modified_inputs.empty() ? "" : ", ") + modified + " (run " +
                                 std::to_string(run + 1) + ")";
    }
    return true;
  }

  // A submission's launch time: launch_ms, with the span charged the
  // stream's own overhead around a kernel (the events' front-end latency
  // and tail, measured on the runner's stand-in in calibrate()), which a
  // kernel launched on our stream pays inside its events. Work moved to
  // another stream escapes the timing gate and would otherwise be timed
  // without it: up to 1.3x on the smallest public cases on the H100.
  double submission_launch_ms(const Reply& reply) const {
    return std::max(reply.ms, reply.span_ms > 0 ? reply.span_ms + stream_overhead_ms_ : 0.0);
  }

  // One timed launch of the submission; false if it failed.
  bool submission_sample(Stage stage, bool keep, bool last_of_batch) {
    Request request = make_request(Command::kTimed);
    request.seed = random_();
    Reply reply;
    if (!step(stage, request, {}, &reply)) return false;
    note_recording(reply);
    const double round_trip = runner_->last_round_trip_ms();
    if (keep) {
      const double ms = submission_launch_ms(reply);
      window_.submission_ms.push_back(ms);
      window_.parts[0].push_back(reply.ms);
      window_.parts[1].push_back(reply.span_ms);
      window_.submission_unexplained.push_back(round_trip - ms);
      window_.spent[0] += round_trip;
    }
    const bool check = std::bernoulli_distribution(kCheckProbability)(random_) || (last_of_batch && !checked_in_batch_);
    if (!check) return true;
    checked_in_batch_ = true;
    Request copy = make_request(Command::kCopyOut);
    copy.slot = runner::kTimedSlot;
    if (!step(Stage::kCheckingTimed, copy)) return false;
    window_.submission_copy.push_back(runner_->last_round_trip_ms());
    ++record_.timing.checked_launches;
    // The check (x from the seed, the golden result, the comparison) costs
    // the grader milliseconds on a large case: it runs beside the next
    // launches, on a copy of y taken now.
    const std::size_t words = runner::slot_words(prepared_.csr.rows);
    const std::uint32_t* slot = results_->words() + static_cast<std::size_t>(runner::kTimedSlot) * words;
    auto y_copy = std::make_shared<std::vector<std::uint32_t>>(slot, slot + words);
    if (pending_checks_.size() >= kMaxPendingChecks && !collect_one_check()) return false;
    pending_checks_.push_back(std::async(std::launch::async, [&prepared = prepared_, seed = request.seed, y_copy] {
      return check_launch_result(prepared, seed, ResultView(y_copy->data(), prepared.csr.rows), 0);
    }));
    record_.stage = stage;
    return true;
  }

  // The row needs its runner no more, and its end says nothing about the
  // row: the runner is ended in the background (RunnerFactory::retire).
  void retire_runner() {
    if (runner_) factory_.retire(std::move(runner_));
  }

  // Waits for the oldest pending check; false if its launch was wrong.
  bool collect_one_check() {
    const std::string wrong = pending_checks_.front().get();
    pending_checks_.pop_front();
    if (wrong.empty()) return true;
    if (record_.timing.wrong_timed_launch.empty()) record_.timing.wrong_timed_launch = wrong;
    return false;
  }

  bool collect_checks() {
    bool all_right = true;
    while (!pending_checks_.empty()) all_right = collect_one_check() && all_right;
    return all_right;
  }

  // A timed launch of the reference: its time and the grader's round trip.
  // With `copy_out`, its y is copied out too and that copy timed, to compare
  // with the submission's copy-outs.
  struct Sample {
    double ms = 0;
    double round_trip_ms = 0;
    double event_ms = 0, span_ms = 0;  // what `ms` is the larger of
  };
  std::optional<Sample> reference_launch(bool copy_out) {
    Request request = make_request(Command::kTimed);
    request.seed = random_();
    const auto reply = reference_step(request);
    if (!reply) return std::nullopt;
    const Sample sample{launch_ms(*reply), factory_.reference().last_round_trip_ms(), reply->ms, reply->span_ms};
    if (copy_out) {
      Request copy = make_request(Command::kCopyOut);
      copy.slot = runner::kTimedSlot;
      if (!reference_step(copy)) return std::nullopt;
      window_.reference_copy.push_back(factory_.reference().last_round_trip_ms());
    }
    return sample;
  }

  bool reference_sample(bool keep, bool copy_out) {
    const auto sample = reference_launch(copy_out);
    if (!sample) return false;
    if (keep) {
      window_.reference_ms.push_back(sample->ms);
      window_.parts[2].push_back(sample->event_ms);
      window_.parts[3].push_back(sample->span_ms);
      window_.spent[1] += sample->round_trip_ms;
    }
    return true;
  }

  // The reference alone, before the submission's plugin is loaded: what
  // its times are when nothing of the submission can run beside it.
  bool reference_solo() {
    const auto solo = time_reference_alone();
    if (solo) record_.timing.reference_solo_ms = *solo;
    return solo.has_value();
  }

  // The reference's median with no submission code running beside it.
  std::optional<double> time_reference_alone() {
    const auto& options = plan_.timing;
    for (int run = 0; run < options.warmup_runs; ++run) {
      if (!reference_launch(false)) return std::nullopt;
    }
    std::vector<double> solo;
    double spent = 0;
    while (static_cast<int>(solo.size()) < std::max(options.min_runs / 4, 3) || spent < options.min_time_ms / 8) {
      if (static_cast<int>(solo.size()) >= options.max_runs) break;
      const auto sample = reference_launch(false);
      if (!sample) return std::nullopt;
      solo.push_back(sample->ms);
      spent += sample->round_trip_ms;
    }
    return median_of(solo);
  }

  // Launch by launch, the sides alternate. While the reference is timed,
  // the submission's runner is blocked on its channel (it has answered and
  // waits for the next request); a thread of its own could still run, which
  // the comparison with the reference's solo time catches.
  //
  // A timing whose round trips break the clock rule is done once more from
  // scratch, and the second is the row's: on the H100 an honest row once
  // came out just over the rule while the machine was slow for a moment. A
  // submission forging every launch breaks it again and is flagged; one
  // that forged only the first timing is measured by the second.
  bool time_against_reference() {
    const auto& options = plan_.timing;
    for (int run = 0; run < options.warmup_runs; ++run) {
      if (!submission_sample(Stage::kWarmup, false, false) || !reference_sample(false, false)) return false;
    }
    record_.stage = Stage::kTiming;
    if (!time_launches()) return false;
    const auto excess = clock_excess_ms(low_quantile(window_.submission_unexplained), record_.timing.submission_idle_ms,
                                        static_cast<int>(window_.submission_ms.size()));
    if (excess && *excess > clock_limit_ms(median_of(window_.submission_ms))) {
      record_.timing.parts_ms["clock_retimed_excess"] = *excess;
      window_ = {};
      if (!time_launches()) return false;
    }
    // Nothing more is asked of the runner: it ends while the last checks run.
    retire_runner();
    if (!collect_checks()) return false;
    TimingRecord& timing = record_.timing;
    timing.timed = true;
    timing.submission_ms = median_of(window_.submission_ms);
    timing.reference_ms = median_of(window_.reference_ms);
    timing.submission_samples = static_cast<int>(window_.submission_ms.size());
    timing.reference_samples = static_cast<int>(window_.reference_ms.size());
    const char* part_names[] = {"submission_event", "submission_span", "reference_event", "reference_span"};
    for (std::size_t k = 0; k < std::size(window_.parts); ++k) timing.parts_ms[part_names[k]] = median_of(window_.parts[k]);
    timing.parts_ms["submission_stream_overhead"] = stream_overhead_ms_;
    timing.submission_unexplained_ms = low_quantile(window_.submission_unexplained);
    timing.submission_copy_ms = low_quantile(window_.submission_copy);
    timing.reference_copy_ms = low_quantile(window_.reference_copy);
    timing.copies = static_cast<int>(std::min(window_.submission_copy.size(), window_.reference_copy.size()));
    // Slower beside the submission than alone: timed alone again, now that
    // the submission's runner is gone, before that is held against it.
    if (timing.reference_ms > reference_limit_ms(timing.reference_solo_ms, compulsory_bytes(prepared_, plan_.format))) {
      factory_.settle();
      const auto again = time_reference_alone();
      if (!again) return false;
      timing.reference_solo_again_ms = *again;
    }
    return true;
  }

  // Both sides' timed launches, alternating, until the options are met.
  bool time_launches() {
    const auto& options = plan_.timing;
    const auto needs_more = [&](std::size_t side, std::size_t count) {
      return static_cast<int>(count) < options.min_runs || window_.spent[side] < options.min_time_ms;
    };
    int in_batch = 0;
    while (static_cast<int>(window_.submission_ms.size()) < options.max_runs &&
           (needs_more(0, window_.submission_ms.size()) || needs_more(1, window_.reference_ms.size()))) {
      if (in_batch == 0) checked_in_batch_ = false;
      const bool last_of_batch = ++in_batch == kBatch;
      const int checked_before = record_.timing.checked_launches;
      if (!submission_sample(Stage::kTiming, true, last_of_batch)) return false;
      // The reference's copy-out is timed whenever the submission's was, to compare.
      if (!reference_sample(true, record_.timing.checked_launches != checked_before)) return false;
      if (last_of_batch) in_batch = 0;
    }
    // A batch cut short by the end of the timing still gets its check: one
    // more launch, not kept, checked.
    return in_batch == 0 || checked_in_batch_ || submission_sample(Stage::kTiming, false, true);
  }

  const RowPlan& plan_;
  PreparedCase& prepared_;
  RunnerFactory& factory_;
  std::unique_ptr<Runner> runner_;
  std::filesystem::path log_;
  std::shared_ptr<ResultMemory> results_;
  ResultMemory reference_results_;
  Unpredictable random_;
  Clock::time_point deadline_ = Clock::now();
  Clock::time_point phase_start_ = Clock::now();
  RowRecord record_;
  bool reference_set_up_ = false;
  bool checked_in_batch_ = false;
  std::deque<std::future<std::string>> pending_checks_;
  // One timing's launches (time_launches()); a timing done again starts afresh.
  struct Window {
    double spent[2] = {0, 0};  // round trips, submission then reference
    std::vector<double> submission_ms, reference_ms, submission_unexplained, submission_copy, reference_copy;
    std::vector<double> parts[4];  // kept launches' events and spans: submission, then reference
  } window_;
  double stream_overhead_ms_ = 0;  // events minus span of the stand-in, low quantile (calibrate())
};

}  // namespace

PendingRunner start_submission_runner(RunnerFactory& factory, const std::filesystem::path& log) {
  PendingRunner pending;
  pending.log = log;
  // Making a sandbox (namespaces, a uid, a copy of the plugin) takes the
  // grader tens of milliseconds: not on the path of the row being graded.
  pending.starting = factory.start_submission(log);
  return pending;
}

RowRecord grade_row(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory) {
  return RowGrader(plan, std::move(pending), factory).grade();
}

}  // namespace spmv::grade
