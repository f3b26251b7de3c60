#include "rows/submission_session.hpp"

#include <thread>

namespace spmv::grade {
namespace {

using runner::Command;
using runner::Reply;
using runner::ReplyKind;
using runner::Request;

// The submission's runner's calibration bursts (after one that uploads
// their graph).
constexpr int kCalibrationBursts = 3;

}  // namespace

SubmissionSession::SubmissionSession(RowState& row, PendingRunner pending)
    : row_(row),
      pending_(std::move(pending)),
      log_(pending_.log),
      results_(std::make_shared<ResultMemory>(runner::result_area_bytes(row.prepared.csr.rows))) {
  row_.record.log_file = log_;
  row_.record.log_offset = pending_.log_offset;
}

// Waits for "CUDA ready". A runner that fails to start is replaced, after
// a pause that lets the GPU recover (a runner started while the previous
// row's submission held all of the GPU's memory fails to create its
// context; the driver frees that memory a moment after the process is
// gone); the row is the grader's failure only if every attempt fails.
bool SubmissionSession::start() {
  row_.record.stage = Stage::kStarting;
  // A runner kept from the row before: loaded, its hold on the share
  // kept with it.
  if (pending_.loaded) {
    runner_ = pending_.take();
    row_.active = std::move(pending_.activity);
    loaded_ = true;
    return true;
  }
  // A kernel's runner, up and not loaded, from the row before.
  if (pending_.started) {
    runner_ = pending_.take();
    return true;
  }
  // The runner started ahead, if it is still starting (runners start one
  // or two at a time, beside the rows).
  runner_ = pending_.take();
  static constexpr double kPausesS[] = {0, 0.25, 1, 3};
  for (const double pause : kPausesS) {
    if (pause > 0) {
      runner_->end();
      row_.factory.settle();
      std::this_thread::sleep_for(std::chrono::duration<double>(pause));
      // Appending: the log keeps why the attempts before failed.
      runner_ = start_submission_runner(row_.factory, log_, true).take();
    }
    const auto reply = runner_->receive(after_seconds(kStartupTimeoutS));
    if (reply && reply->kind == ReplyKind::kOk) return true;
    const std::string why = reply ? runner::read_text(reply->message) : "it " + how_it_ended(runner_->end());
    row_.record.grader_failure = "the submission's runner did not start (4 attempts in 4 s): " + why;
  }
  return false;
}

bool SubmissionSession::correctness_runs(int runs) {
  // A runner kept from the row before has the plugin loaded.
  if (!row_.phase("load", loaded_ || load()) || !row_.phase("setup", setup())) return false;
  row_.record.runs = runs;
  for (int run = 0; run < runs; ++run) {
    if (!run_once(run, run == 0 || run == runs - 1)) return false;
  }
  row_.phase("runs", true);
  row_.record.results.emplace(results_->words(), row_.prepared.csr.rows);
  return true;
}

bool SubmissionSession::step(Stage stage, const Request& request, std::span<const int> fds, Reply* out) {
  row_.record.stage = stage;
  const auto reply = runner_->call(request, row_.deadline, fds);
  if (!reply) {
    row_.record.end = runner_->end();
    return false;
  }
  if (reply->kind != ReplyKind::kOk) {
    row_.record.refused = reply->kind;
    row_.record.status = reply->status;
    row_.record.message = runner::read_text(reply->message);
    return false;
  }
  if (out != nullptr) *out = *reply;
  return true;
}

// The submission's runner's own cost (its kernels between the launches,
// its round trip), timed before it loads the plugin: bursts whose links
// hold no launch, on a matrix of the case's shape and no entry. They join
// the reference runner's calibration bursts, and both sides subtract the
// fastest two of them all: nothing the plugin does can change them, and
// a runner's calibration that came out slow (on the H100 one of 47 large
// cases had the submission's runner's at twice the reference runner's,
// whose median it matches) cannot lower the submission's time. A short
// row's speed is not scored: it has the reference runner's only.
bool SubmissionSession::calibrate() {
  Request setup = make_request(Command::kSetup);
  setup.format = SPMV_FORMAT_CSR;
  const std::array<int, 2> fds{shape_image(row_.prepared), results_->fd()};
  Request chain = make_request(Command::kChain);
  chain.links = row_.bursts.links;
  Request burst = make_request(Command::kBurst);
  burst.empty = 1;
  if (!calibration_step(setup, fds) || !calibration_step(chain)) return false;
  for (int k = 0; k < 1 + kCalibrationBursts; ++k) {  // the first uploads the graph
    burst.seed = row_.random();
    const auto reply = calibration_step(burst);
    if (!reply) return false;
    if (k == 0) continue;
    row_.bursts.submission.empty_ms.push_back(runner_->last_round_trip_ms());
    row_.bursts.submission.empty_event_ms.push_back(reply->ms);
  }
  return row_.phase("submission_calibration", true);
}

// A step of the submission's runner before its plugin is loaded: one
// that fails is the grader's failure (no submission code has run).
std::optional<Reply> SubmissionSession::calibration_step(const Request& request, std::span<const int> fds) {
  auto reply = runner_->call(request, row_.deadline, fds);
  if (reply && reply->kind == ReplyKind::kOk) return reply;
  const std::string why = reply ? runner::read_text(reply->message) : "it " + how_it_ended(runner_->end());
  row_.record.grader_failure = "the submission's runner failed its calibration, before loading the plugin: " + why;
  return std::nullopt;
}

// What the launch recorder saw: the first foreign kernel, or why it
// recorded nothing.
void SubmissionSession::note_recording(const Reply& reply) {
  const std::string foreign = runner::read_text(reply.foreign_kernel);
  if (!foreign.empty() && row_.record.foreign_kernel.empty()) row_.record.foreign_kernel = foreign;
  const std::string note = runner::read_text(reply.recorder_note);
  if (!note.empty() && row_.record.recorder_note.empty()) row_.record.recorder_note = note;
}

bool SubmissionSession::load() {
  Reply reply;
  if (!step(Stage::kLoadingPlugins, make_request(Command::kLoad), {}, &reply)) return false;
  for (int k = 0; k < reply.kernel_count && k < static_cast<int>(runner::kMaxKernels); ++k) {
    if (runner::read_text(reply.kernels[k].name) == row_.plan.kernel) return true;
  }
  row_.record.refused = ReplyKind::kNotImplemented;
  row_.record.message = "the submission has no kernel named " + row_.plan.kernel;
  return false;
}

bool SubmissionSession::setup() { return step(Stage::kUploading, row_.setup_request(), row_.setup_fds(*results_)); }

bool SubmissionSession::run_once(int run, bool check_matrix) {
  Request request = make_request(Command::kRun);
  request.slot = run;
  // x is compared after every run; the matrix after the first and the last
  // (each comparison copies every array of it back to the host; a change
  // stays, or is undone by a later call after the first was seen).
  request.check_inputs = check_matrix ? 1 : 0;
  request.seed = row_.prepared.x_seeds[static_cast<std::size_t>(x_of_run(run))];
  Reply reply;
  if (!step(static_cast<Stage>(static_cast<int>(Stage::kRun1) + run), request, {}, &reply)) return false;
  note_recording(reply);
  const std::string modified = runner::read_text(reply.modified);
  if (!modified.empty()) {
    row_.record.modified_inputs +=
        (row_.record.modified_inputs.empty() ? "" : ", ") + modified + " (run " + std::to_string(run + 1) + ")";
  }
  return true;
}

// The row needs its runner no more, and its end says nothing about the
// row: the runner is ended in the background (RunnerFactory::retire).
void SubmissionSession::retire() {
  // The runner is work on the GPU until it is gone: an active row's hold
  // goes with it; a row alone takes one for it (granted at once), which
  // outlasts the row's stretch if the runner does.
  if (runner_) {
    row_.factory.retire(std::move(runner_), row_.alone.held() ? row_.factory.active() : std::move(row_.active));
  }
}

}  // namespace spmv::grade
