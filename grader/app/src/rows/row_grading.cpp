#include "rows/row_grading.hpp"

#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <future>
#include <optional>
#include <thread>
#include <tuple>

#include "judging/correctness.hpp"
#include "judging/timing_checks.hpp"
#include "rows/burst_timing.hpp"
#include "rows/copy_buffers.hpp"
#include "spmv/plugin/plugin.hpp"

namespace spmv::grade {
namespace {

using runner::Command;
using runner::Reply;
using runner::ReplyKind;
using runner::Request;

// Starting a runner (CUDA's context) takes well under this.
constexpr double kStartupTimeoutS = 60;
// Link checks computed beside the next bursts, at most.
constexpr std::size_t kMaxPendingChecks = 6;
// The submission's runner's calibration bursts (after one that uploads
// their graph).
constexpr int kCalibrationBursts = 3;

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

// One side's bursts by the grader's clock (and the runner's own events, a
// diagnostic), with its calibration bursts (links without the launch).
struct Side {
  std::vector<double> bursts_ms, empty_ms, event_ms, empty_event_ms;
  void add(const auto& full, const auto& empty) {
    bursts_ms.push_back(full.ms);
    event_ms.push_back(full.event_ms);
    empty_ms.push_back(empty.ms);
    empty_event_ms.push_back(empty.event_ms);
  }
  void append(const Side& other) {
    const auto extend = [](std::vector<double>& mine, const std::vector<double>& theirs) {
      mine.insert(mine.end(), theirs.begin(), theirs.end());
    };
    extend(bursts_ms, other.bursts_ms);
    extend(empty_ms, other.empty_ms);
    extend(event_ms, other.event_ms);
    extend(empty_event_ms, other.empty_event_ms);
  }
};

class RowGrader {
 public:
  RowGrader(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory)
      : plan_(plan),
        prepared_(*plan.prepared),
        factory_(factory),
        pending_(std::move(pending)),
        log_(pending_.log),
        results_(std::make_shared<ResultMemory>(runner::result_area_bytes(prepared_.csr.rows))),
        reference_results_(runner::result_area_bytes(prepared_.csr.rows)) {
    record_.log_file = log_;
    record_.log_offset = pending_.log_offset;
  }

  RowRecord grade() {
    if (!phase("start", start())) return finish();
    // The GPU shared with other gradings (gpu_share.hpp): this row is
    // active on it until its timed stretch, alone from there to its end; a
    // row graded again is alone from here.
    if (plan_.alone) {
      be_alone();
    } else {
      be_active();
    }
    phase("share", true);
    if (plan_.tried_first) return try_first();
    // Until the reference's first bursts are timed (after the row's own
    // runner is up: a reservation would hold its start back).
    reservation_ = factory_.reserve();
    deadline_ = after_seconds(plan_.timeout_s);
    if (plan_.measure_cusparse && !phase("cusparse", measure_cusparse())) return finish();
    if (!phase("reference_bursts", reference_setup()) || !correctness_runs()) return finish();
    if (evaluate_correctness(prepared_, *record_.results, record_.modified_inputs).passed) {
      passed_ = true;
      phase("check", true);
      if (!phase("bursts", time_submission())) return finish();
      if (!phase("reference_after_bursts", time_reference_after())) return finish();
      // The links' checks (the CPU's golden products of the links copied
      // out) once the row's timed stretch is over: beside the reference's
      // bursts they slowed whole windows of them on the largest cases. They
      // touch no GPU: with the GPU shared the row holds nothing of the share
      // while they run (but a row graded again alone, which keeps the GPU to
      // its end), and they run at the lowest CPU priority, so that another
      // grading's timed bursts beside them lose no CPU to them.
      if (alone_.held() && !plan_.alone) alone_.release();
      if (!phase("checks", run_checks())) return finish();
    }
    record_.completed = true;
    record_.stage = Stage::kDone;
    return finish();
  }

 private:
  // A row tried first: the submission's load, set-up and runs, and their
  // check, with nothing of the reference. A row that fails ends with its
  // verdict; one that passes is to be graded again from the start.
  RowRecord try_first() {
    deadline_ = after_seconds(plan_.timeout_s);
    if (!correctness_runs()) return finish();
    record_.passed_when_tried = evaluate_correctness(prepared_, *record_.results, record_.modified_inputs).passed;
    phase("check", true);
    record_.completed = true;
    record_.stage = Stage::kDone;
    return finish();
  }

  // The submission's load, set-up and checked runs, its results kept; false
  // (the record says why) if a step failed.
  bool correctness_runs() {
    // A runner kept from the row before has the plugin loaded.
    if (!phase("load", loaded_ || load()) || !phase("setup", setup())) return false;
    for (int run = 0; run < kRunsPerRow; ++run) {
      if (!run_once(run)) return false;
    }
    phase("runs", true);
    record_.results.emplace(results_->words(), prepared_.csr.rows);
    return true;
  }

  // Charges the time since the previous phase to `name`; passes `ok` on.
  bool phase(const char* name, bool ok) {
    const Clock::time_point now = Clock::now();
    record_.phase_ms[name] += std::chrono::duration<double, std::milli>(now - phase_start_).count();
    phase_start_ = now;
    return ok;
  }

  RowRecord finish() {
    // A runner that is well and loaded, after a kernel that answered "not
    // implemented" at a run (a stub's) or a short row that passed, goes to
    // the next such row, of this case or the next (RowPlan::may_keep_runner).
    const bool stub = record_.refused == ReplyKind::kNotImplemented && record_.stage >= Stage::kRun1;
    const bool short_pass = record_.completed && passed_ && record_.timing.timed && record_.timing.short_row &&
                            record_.timing.wrong_timed_launch.empty();
    if (plan_.may_keep_runner && runner_ && (stub || short_pass) && record_.end.kind == RunnerEnd::Kind::kRunning &&
        active_.held() && !alone_.held()) {
      record_.kept = std::move(runner_);
      record_.kept_activity = std::move(active_);
    }
    // A runner that finished its row, or answered that its kernel is not
    // implemented (a stub's every row), ends in the background; any other
    // is ended now, for how it ended.
    if (record_.completed ||
        (record_.refused == ReplyKind::kNotImplemented && record_.end.kind == RunnerEnd::Kind::kRunning)) {
      retire_runner();
    }
    collect_checks();
    if (runner_) {
      const RunnerEnd end = runner_->end();
      if (record_.end.kind == RunnerEnd::Kind::kRunning && !record_.completed) record_.end = end;
    }
    active_.release();
    alone_.release();
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
    // A runner kept from the row before: loaded, its hold on the share
    // kept with it.
    if (pending_.loaded) {
      runner_ = pending_.take();
      active_ = std::move(pending_.activity);
      loaded_ = true;
      return true;
    }
    // The runner started ahead, if it is still starting (runners start one
    // or two at a time, beside the rows).
    runner_ = pending_.take();
    static constexpr double kPausesS[] = {0, 0.25, 1, 3};
    for (const double pause : kPausesS) {
      if (pause > 0) {
        runner_->end();
        factory_.settle();
        std::this_thread::sleep_for(std::chrono::duration<double>(pause));
        // Appending: the log keeps why the attempts before failed.
        runner_ = start_submission_runner(factory_, log_, true).take();
      }
      const auto reply = runner_->receive(after_seconds(kStartupTimeoutS));
      if (reply && reply->kind == ReplyKind::kOk) return true;
      const std::string why = reply ? runner::read_text(reply->message) : "it " + how_it_ended(runner_->end());
      record_.grader_failure = "the submission's runner did not start (4 attempts in 4 s): " + why;
    }
    return false;
  }

  // The kept runner ended, and one of the row's own started in its place
  // (into the row's own log); false if it does not start.
  // Nothing is held while it starts, as at the row's beginning: a start
  // waits for the others' timed stretches (a hold on the share would keep
  // them waiting in turn) and for this row's reservation.
  bool fresh_runner() {
    retire_runner();
    reservation_.release();
    loaded_ = false;
    log_ = plan_.log;
    record_.log_file = log_;
    record_.log_offset = 0;
    pending_ = start_submission_runner(factory_, log_, true);
    if (!phase("start", start())) return false;
    be_active();
    reservation_ = factory_.reserve();
    return phase("share", true);
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
  std::optional<Reply> reference_step(const Request& request, std::span<const int> fds = {}, bool redo_setup = true) {
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
    if (!reply || reply->kind != ReplyKind::kOk) return false;
    if (!chained_) return true;
    // Its bursts too, as the row had them.
    Request chain = make_request(Command::kChain);
    chain.links = links_;
    const auto chained = reference.call(chain, after_seconds(kStartupTimeoutS));
    return chained && chained->kind == ReplyKind::kOk;
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
    // Timed: the GPU the grading's alone (then active again, unless the row
    // is alone throughout).
    const bool was_alone = alone_.held();
    be_alone();
    Request time = make_request(Command::kCusparse);
    time.seed = random_();
    time.cusparse_runs = plan_.timing.min_runs;
    time.cusparse_min_ms = plan_.timing.min_time_ms / 2;
    // Context only: cuSPARSE refusing a matrix costs the row nothing.
    const auto reply = factory_.reference().call(time, after_seconds(std::max(plan_.timeout_s, kStartupTimeoutS)));
    if (reply && reply->kind == ReplyKind::kOk && reply->ms > 0) record_.cusparse_ms = reply->ms;
    if (!was_alone) be_active();
    return true;
  }

  // The reference's matrix set up, the previous row's runner gone, and the
  // reference timed: before this row's submission runner loads its plugin,
  // so nothing of any submission is alive while it runs.
  bool reference_setup() {
    record_.stage = Stage::kStarting;
    const auto fds = setup_fds(reference_results_);
    if (!reference_step(setup_request(), fds, false)) return false;
    reference_set_up_ = true;
    phase("reference_setup", true);
    if (!phase("choose_links", choose_links())) return false;
    // A link of the pilot holds the reference's launch and the runner's own
    // kernels, and a share of the burst's fixed cost: more than the launch.
    // Under the policy's threshold even so, the row is short whatever its
    // bursts say: its speed scores nothing, so its reference is timed
    // without waiting for the GPU to be quiet, and the reservation ends
    // now, letting the next rows' runners start beside it.
    if (short_by_pilot_) {
      reservation_.release();
      return reference_warmup() && time_reference(reference_before_, nullptr) && phase("reference_bursts", true);
    }
    // A runner kept from the case's row before has run this student's code:
    // a row scored by speed needs one that has not (its calibration before
    // the plugin's load, and the reference timed with nothing of the
    // submission alive).
    if (loaded_ && !fresh_runner()) return false;
    // The previous row's runner gone before anything is timed (its end
    // overlaps the pilot, which sets the links only).
    factory_.settle();
    phase("settle", true);
    const QuietGpu::Hold quiet = factory_.quiet();
    phase("quiet", true);
    be_alone();
    phase("share", true);
    const bool timed = reference_warmup() && (!factory_.shared() || plan_.alone || links_again_alone()) &&
                       time_reference(reference_before_, nullptr) && phase("reference_bursts", true) &&
                       (short_row() || calibrate_submission_runner());
    reservation_.release();
    // Short by its bursts: nothing more of the row is timed.
    if (timed && short_row() && !plan_.alone) be_active();
    return timed;
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
  bool calibrate_submission_runner() {
    Request setup = make_request(Command::kSetup);
    setup.format = SPMV_FORMAT_CSR;
    const std::array<int, 2> fds{shape_image(prepared_), results_->fd()};
    Request chain = make_request(Command::kChain);
    chain.links = links_;
    Request burst = make_request(Command::kBurst);
    burst.empty = 1;
    if (!calibration_step(setup, fds) || !calibration_step(chain)) return false;
    for (int k = 0; k < 1 + kCalibrationBursts; ++k) {  // the first uploads the graph
      burst.seed = random_();
      const auto reply = calibration_step(burst);
      if (!reply) return false;
      if (k == 0) continue;
      submission_.empty_ms.push_back(runner_->last_round_trip_ms());
      submission_.empty_event_ms.push_back(reply->ms);
    }
    return phase("submission_calibration", true);
  }

  // A step of the submission's runner before its plugin is loaded: one
  // that fails is the grader's failure (no submission code has run).
  std::optional<Reply> calibration_step(const Request& request, std::span<const int> fds = {}) {
    auto reply = runner_->call(request, deadline_, fds);
    if (reply && reply->kind == ReplyKind::kOk) return reply;
    const std::string why = reply ? runner::read_text(reply->message) : "it " + how_it_ended(runner_->end());
    record_.grader_failure = "the submission's runner failed its calibration, before loading the plugin: " + why;
    return std::nullopt;
  }

  // Links per burst, from pilot bursts of the reference (trusted code: its
  // own events say how long a link takes). A pilot's four links carry all
  // of a burst's own cost (the graph's start, the copies of the seed and
  // the digests), so a link looks longer than it is: a burst of the links
  // chosen says again, and the links are chosen anew if that asks for a
  // quarter more. (With one pilot burst alone, on the H100, a 7 µs launch
  // got 9 links a burst and a 0.2 ms burst.) A link under the policy's
  // min_reference_us makes the row short (reference_setup): its bursts
  // last kShortBurstMs, and the links need no second look.
  bool choose_links() {
    if (!phase("pilot_chain", reference_chain(kPilotLinks))) return false;
    auto link_ms = reference_link_ms(kPilotLinks);
    phase("pilot_bursts", true);
    if (!link_ms) return false;
    const auto under_threshold = [&](double ms) { return ms * 1000 < plan_.min_reference_us; };
    pilot_link_ms_ = *link_ms;
    short_by_pilot_ = under_threshold(*link_ms);
    links_ = links_for(*link_ms);
    if (!reference_chain(links_)) return false;
    if (links_to_check()) {
      if (!(link_ms = reference_link_ms(links_))) return false;
      pilot_link_ms_ = *link_ms;
      short_by_pilot_ = under_threshold(*link_ms);
      if (const auto again = more_links(*link_ms)) {
        links_ = *again;
        if (!reference_chain(links_)) return false;
      }
    }
    return phase("reference_chain", true);
  }

  // Whether the links chosen are worth a second look: not short, and not at
  // the most already (kMaxLinks, or the history's limit).
  [[nodiscard]] bool links_to_check() const { return !short_by_pilot_ && links_ < links_for(0); }

  // The links for a link of `link_ms`, if that asks for a quarter more than
  // the links chosen.
  [[nodiscard]] std::optional<int> more_links(double link_ms) const {
    const int again = links_for(link_ms);
    return again > links_ + links_ / 4 ? std::optional<int>(again) : std::nullopt;
  }

  // Links a burst for a link of `link_ms` (the burst's length the policy's,
  // or kShortBurstMs for a row short by its pilot).
  [[nodiscard]] int links_for(double link_ms) const {
    const double burst_ms =
        short_by_pilot_ ? std::min(kShortBurstMs, plan_.timing.min_time_ms) : plan_.timing.min_time_ms;
    return grade::choose_links(link_ms, prepared_.csr.rows, burst_ms);
  }

  // The pilot ran beside the other gradings' work, which can make a link
  // look longer and the bursts too short (on the H100, 0.4 ms bursts beside
  // a busy neighbour where 3 ms was asked). With the GPU to itself, after
  // the warm-up, one burst of the links chosen says again, as the pilot's
  // own second look does: links chosen anew if it asks for a quarter more,
  // then chained and warmed up. (Choosing them all over again alone, pilot
  // and all, held every scored row's stretch some 20 ms longer.)
  bool links_again_alone() {
    if (!links_to_check()) return true;
    const auto burst = reference_burst(false);
    if (!burst) return false;
    const auto again = more_links((burst->event_ms > 0 ? burst->event_ms : burst->ms) / links_);
    if (!again) return true;
    links_ = *again;
    return reference_chain(links_) && reference_warmup() && phase("reference_chain", true);
  }

  // A link's time in the reference runner's chain of `links`: the faster of
  // two bursts after one that uploads the graph, by the runner's events
  // where there are some (the device), else by the round trip, which
  // overstates a link by the round trip's share.
  std::optional<double> reference_link_ms(int links) {
    double fastest = 0;
    for (int k = 0; k < 3; ++k) {
      const auto burst = reference_burst(false);
      if (!burst) return std::nullopt;
      const double ms = burst->event_ms > 0 ? burst->event_ms : burst->ms;
      if (k > 0 && (k == 1 || ms < fastest)) fastest = ms;
    }
    return fastest / links;
  }

  // Untimed bursts first, with and without the launch: a graph's first
  // launch uploads it, and the GPU is as busy as in the bursts that follow.
  bool reference_warmup() {
    for (int k = 0; k < std::max(plan_.timing.warmup_runs, 1); ++k) {
      if (!reference_burst(false) || !reference_burst(true)) return false;
    }
    return true;
  }

  bool reference_chain(int links) {
    Request chain = make_request(Command::kChain);
    chain.links = links;
    chained_ = reference_step(chain).has_value();
    return chained_;
  }

  struct Burst {
    double ms = 0;        // the grader's clock around the round trip
    double event_ms = 0;  // the runner's own events around the graph (its word)
  };
  std::optional<Burst> reference_burst(bool empty) {
    Request request = make_request(Command::kBurst);
    request.seed = random_();
    request.empty = empty ? 1 : 0;
    const auto reply = reference_step(request);
    if (!reply) return std::nullopt;
    return Burst{factory_.reference().last_round_trip_ms(), reply->ms};
  }

  // The reference's bursts, each beside a calibration burst, into `side`:
  // half of the options' bursts (before and after together make the
  // reference's), more while the two fastest of them disagree, or while
  // this window and `earlier` (the bursts before, when these are the
  // bursts after) disagree by more than kWindowsAgree.
  bool time_reference(Side& side, const Side* earlier) {
    runner::TimingOptions half = plan_.timing;
    half.min_runs = std::max(2, (plan_.timing.min_runs + 1) / 2);
    half.max_runs = short_by_pilot_ ? half.min_runs : std::max(half.min_runs, plan_.timing.max_runs / 2);
    const auto noise = [&] {
      Side all = earlier != nullptr ? *earlier : Side{};
      all.append(side);
      // The window's own two fastest: its time is theirs (the bursts pooled
      // with the window before let a window after stop on one fast burst,
      // 8% from its next: on the H100 the reference's clock then strayed 4%
      // from its events on a suite case).
      const double own = burst_noise(side.bursts_ms, all.empty_ms);
      if (earlier == nullptr || side.bursts_ms.empty()) return own;
      const double apart = windows_disagreement({earlier->bursts_ms, side.bursts_ms}, all.empty_ms, links_);
      return apart > kWindowsAgree ? std::max(own, apart) : own;
    };
    while (needs_more_bursts(static_cast<int>(side.bursts_ms.size()), noise(), half)) {
      const auto empty = reference_burst(true);
      const auto full = empty ? reference_burst(false) : std::nullopt;
      if (!full) return false;
      side.add(*full, *empty);
    }
    return true;
  }

  // Every calibration burst so far, of both runners (a short row has the
  // reference runner's only), by the grader's clock (`field`: empty_ms) or
  // the runners' events (empty_event_ms): fastest_two of them is the
  // runners' own cost that both sides subtract (calibrate_submission_runner).
  [[nodiscard]] std::vector<double> calibration(std::vector<double> Side::*field = &Side::empty_ms) const {
    std::vector<double> all;
    for (const Side* side : {&reference_before_, &reference_after_, &submission_}) {
      all.insert(all.end(), (side->*field).begin(), (side->*field).end());
    }
    return all;
  }

  // A row too short to score by speed (the policy's min_reference_us), by
  // its pilot or else by the reference's bursts before: its times are
  // reported, not refined.
  [[nodiscard]] bool short_row() const {
    return short_by_pilot_ || per_launch_ms(reference_before_.bursts_ms, reference_before_.empty_ms, links_) * 1000 <
                                  plan_.min_reference_us;
  }

  // Once the submission's runner has ended (its CUDA context gone): the
  // reference again, so that a drift of the machine's speed during the row
  // is shared by both sides. A short row's speed is not scored: its
  // reference time is that of the bursts before, and its runner ends in the
  // background.
  bool time_reference_after() {
    if (short_row()) {
      quiet_.release();
      if (!plan_.may_keep_runner) retire_runner();  // else finish() keeps or retires it
      finish_timing();
      return true;
    }
    retire_runner();
    factory_.settle();
    phase("settle_after", true);
    if (!quiet_.held()) quiet_ = factory_.quiet();
    phase("quiet", true);
    if (!reference_warmup() || !time_reference(reference_after_, &reference_before_)) return false;
    quiet_.release();
    finish_timing();
    return true;
  }

  // What the launch recorder saw: the first foreign kernel, or why it
  // recorded nothing.
  void note_recording(const Reply& reply) {
    const std::string foreign = runner::read_text(reply.foreign_kernel);
    if (!foreign.empty() && record_.foreign_kernel.empty()) record_.foreign_kernel = foreign;
    const std::string note = runner::read_text(reply.recorder_note);
    if (!note.empty() && record_.recorder_note.empty()) record_.recorder_note = note;
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
      record_.modified_inputs +=
          (record_.modified_inputs.empty() ? "" : ", ") + modified + " (run " + std::to_string(run + 1) + ")";
    }
    return true;
  }

  // The submission's bursts: captured once (its host code runs here and
  // never again in a burst), then timed by the grader's clock, each
  // followed by full checks of links chosen at random after its reply.
  bool time_submission() {
    record_.stage = Stage::kCapturing;
    Request chain = make_request(Command::kChain);
    chain.links = links_;
    if (!phase("capture", step(Stage::kCapturing, chain))) return false;
    // A short row's bursts check its launches and report a time, which
    // scores nothing: a runner may start beside them.
    if (!short_row()) quiet_ = factory_.quiet();
    phase("quiet", true);
    for (int k = 0; k < std::max(plan_.timing.warmup_runs, 1); ++k) {
      if (!submission_burst(false)) return false;  // the graph's first launch uploads it
    }
    phase("warmup", true);
    record_.stage = Stage::kTiming;
    runner::TimingOptions options = plan_.timing;
    // A row too short to score by speed: its time is reported, not refined.
    if (short_row()) options.max_runs = options.min_runs;
    while (needs_more_bursts(submission_.bursts_ms, calibration(), options)) {
      if (!submission_burst(true)) return false;
    }
    // The runner is needed no more: it ends (its CUDA context torn down);
    // the checks of the links it copied out come after the reference's
    // bursts (run_checks). On the device the GPU stays quiet until the
    // reference's bursts after are done: a start let in while this runner
    // ends would outlast that (a context takes longer to make than to end)
    // and hold those bursts up; it waits for the row's next stretch without
    // timing instead.
    if (!on_device()) quiet_.release();
    // A short row's runner may go on to the next keepable row (finish()).
    if (!(plan_.may_keep_runner && short_row())) retire_runner();
    return true;
  }

  // The checks of the links copied out (their golden products),
  // kMaxPendingChecks at a time; false if a launch was wrong.
  bool run_checks() {
    std::vector<std::function<std::string()>> checks = std::move(deferred_checks_);
    deferred_checks_.clear();
    for (auto& check : checks) {
      if (pending_checks_.size() >= kMaxPendingChecks && !collect_one_check()) return false;
      pending_checks_.push_back(std::async(std::launch::async, [check = std::move(check)] {
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);  // this thread only
        return check();
      }));
    }
    return collect_checks();
  }

  // Whether the bursts ran on a GPU (a device runner times them by its
  // events too; the host path's are 0).
  [[nodiscard]] bool on_device() const {
    return std::any_of(submission_.event_ms.begin(), submission_.event_ms.end(), [](double ms) { return ms > 0; });
  }

  bool submission_burst(bool keep) {
    Request request = make_request(Command::kBurst);
    request.seed = random_();
    Reply reply;
    if (!step(record_.stage, request, {}, &reply)) return false;
    const double ms = runner_->last_round_trip_ms();
    if (reply.links != links_) {
      record_.refused = ReplyKind::kFailed;
      record_.message = "the burst's reply carries " + std::to_string(reply.links) + " digests for " +
                        std::to_string(links_) + " launches";
      return false;
    }
    int checks = kChecksPerBurst;
    if (keep) {
      submission_.bursts_ms.push_back(ms);
      submission_.event_ms.push_back(reply.ms);
      // A burst that may decide the time is checked more (a short row's
      // time decides nothing).
      if (!short_row() && among_fastest_two(ms, submission_.bursts_ms)) checks = kChecksFastBurst;
    }
    const auto digests = std::make_shared<std::vector<std::uint64_t>>(reply.digests, reply.digests + links_);
    return check_links(request.seed, digests, checks);
  }

  // `checks` links of the last burst (distinct, at random), copied out and
  // checked once the bursts are done.
  bool check_links(std::uint64_t seed, const std::shared_ptr<std::vector<std::uint64_t>>& digests, int checks) {
    const Stage stage = record_.stage;
    std::vector<int> chosen;
    while (static_cast<int>(chosen.size()) < std::min(checks, links_)) {
      const int link = std::uniform_int_distribution<int>(1, links_)(random_);
      if (std::find(chosen.begin(), chosen.end(), link) == chosen.end()) chosen.push_back(link);
    }
    const std::size_t words = runner::slot_words(prepared_.csr.rows);
    for (const int link : chosen) {
      Request copy = make_request(Command::kCopyLink);
      copy.link = link;
      if (!step(Stage::kCheckingTimed, copy)) return false;
      ++record_.timing.checked_launches;
      // The check (x derived, the golden result, the comparison) costs the
      // grader milliseconds on a large case: it runs later, on a copy of
      // the two slots taken now (into an area of the result's layout whose
      // other slots are left unwritten and unread).
      static_assert(runner::kLinkSlot == runner::kPreviousLinkSlot + 1 && runner::kLinkSlot == runner::kSlots - 1);
      const std::size_t first = static_cast<std::size_t>(runner::kPreviousLinkSlot) * words;
      const std::size_t count = static_cast<std::size_t>(runner::kSlots) * words;
      const std::shared_ptr<std::uint32_t[]> copies = CopyBuffers::instance().take(count);
      std::copy(results_->words() + first, results_->words() + count, copies.get() + first);
      deferred_checks_.push_back([&prepared = prepared_, seed, link, digests, copies] {
        return check_link(prepared, seed, link, *digests, ResultView(copies.get(), prepared.csr.rows));
      });
    }
    record_.stage = stage;
    return true;
  }

  // The row needs its runner no more, and its end says nothing about the
  // row: the runner is ended in the background (RunnerFactory::retire).
  void retire_runner() {
    // The runner is work on the GPU until it is gone: an active row's hold
    // goes with it; a row alone takes one for it (granted at once), which
    // outlasts the row's stretch if the runner does.
    if (runner_) factory_.retire(std::move(runner_), alone_.held() ? factory_.active() : std::move(active_));
  }

  // The row's hold on the GPU's share: active (waits while another grading
  // times), or alone (the activity let go first: a member waiting to be
  // alone while active would hold up the others waiting for the same).
  void be_active() {
    alone_.release();
    if (!active_.held()) active_ = factory_.active();
  }
  void be_alone() {
    active_.release();
    if (!alone_.held()) alone_ = factory_.alone();
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

  // The row's times, from the three sets of bursts.
  void finish_timing() {
    TimingRecord& timing = record_.timing;
    Side reference = reference_before_;
    reference.append(reference_after_);
    timing.timed = true;
    // Both sides less the same calibration: the runners' own kernels and
    // round trip, timed while no submission code was in either runner.
    const std::vector<double> empty = calibration();
    const std::vector<double> empty_events = calibration(&Side::empty_event_ms);
    timing.submission_ms = per_launch_ms(submission_.bursts_ms, empty, links_);
    timing.reference_ms =
        windows_per_launch_ms({reference_before_.bursts_ms, reference_after_.bursts_ms}, empty, links_);
    timing.submission_samples = static_cast<int>(submission_.bursts_ms.size());
    timing.reference_samples = static_cast<int>(reference.bursts_ms.size());
    // The events check's pair (a start or an ending runner beside a short
    // row's bursts, which do not hold the GPU quiet, lengthened two of four
    // by the clock alone: the medians were 3.0 ms against 5.0 ms, and an
    // honest kernel was flagged).
    std::tie(timing.submission_burst_ms, timing.submission_event_burst_ms) =
        closest_events(submission_.bursts_ms, submission_.event_ms);
    timing.parts_ms["submission_burst"] = median_of(submission_.bursts_ms);
    timing.parts_ms["submission_event_burst"] = median_of(submission_.event_ms);
    timing.parts_ms["reference_burst"] = median_of(reference.bursts_ms);
    timing.parts_ms["reference_empty_burst"] = median_of(reference.empty_ms);
    timing.parts_ms["submission_event"] = per_launch_ms(submission_.event_ms, empty_events, links_);
    // The reference's events by the same estimate as its time (the mean of
    // its windows): the fastest two pooled would set the faster window's
    // events beside both windows' clock (on the largest cases the bursts
    // after ran up to 7% slower than those before, on the H100).
    timing.parts_ms["reference_event"] =
        windows_per_launch_ms({reference_before_.event_ms, reference_after_.event_ms}, empty_events, links_);
    timing.parts_ms["reference_before"] = per_launch_ms(reference_before_.bursts_ms, empty, links_);
    if (!reference_after_.bursts_ms.empty()) {
      timing.parts_ms["reference_after"] = per_launch_ms(reference_after_.bursts_ms, empty, links_);
    }
    timing.parts_ms["submission_noise"] = burst_noise(submission_.bursts_ms, empty);
    timing.parts_ms["reference_noise"] = burst_noise(reference.bursts_ms, reference.empty_ms);
    timing.bursts_ms["submission"] = submission_.bursts_ms;
    timing.bursts_ms["reference_before"] = reference_before_.bursts_ms;
    timing.bursts_ms["reference_after"] = reference_after_.bursts_ms;
    timing.bursts_ms["calibration"] = reference.empty_ms;
    if (!submission_.empty_ms.empty()) timing.bursts_ms["submission_calibration"] = submission_.empty_ms;
    timing.links = links_;
    timing.short_row = short_row();
    if (short_by_pilot_) timing.parts_ms["reference_pilot_link"] = pilot_link_ms_;
  }

  const RowPlan& plan_;
  PreparedCase& prepared_;
  RunnerFactory& factory_;
  PendingRunner pending_;
  std::unique_ptr<Runner> runner_;
  std::filesystem::path log_;
  std::shared_ptr<ResultMemory> results_;
  ResultMemory reference_results_;
  Unpredictable random_;
  Clock::time_point deadline_ = Clock::now();
  Clock::time_point phase_start_ = Clock::now();
  RowRecord record_;
  bool reference_set_up_ = false;
  std::deque<std::future<std::string>> pending_checks_;
  std::vector<std::function<std::string()>> deferred_checks_;  // copies taken, golden products to come
  int links_ = kPilotLinks;
  double pilot_link_ms_ = 0;     // a link of the reference's pilot bursts (choose_links)
  bool short_by_pilot_ = false;  // under min_reference_us by the pilot already
  bool chained_ = false;         // the reference runner holds the row's bursts (kChain of links_)
  bool loaded_ = false;          // the runner came with the plugin loaded (PendingRunner::loaded)
  bool passed_ = false;          // the three checked runs were correct
  Side reference_before_, reference_after_, submission_;
  QuietGpu::Hold quiet_;        // from the submission's bursts to the reference's after them
  QuietGpu::Hold reservation_;  // from the row's beginning to the reference's bursts before
  GpuShare::Hold active_;       // the row's work on the GPU, untimed (gpu_share.hpp)
  GpuShare::Hold alone_;        // its timed stretch: no other grading's work on the GPU
};

}  // namespace

PendingRunner start_submission_runner(RunnerFactory& factory, const std::filesystem::path& log, bool append_log) {
  PendingRunner pending;
  pending.log = log;
  // Making a sandbox (namespaces, a uid, a copy of the plugin) takes the
  // grader tens of milliseconds: not on the path of the row being graded.
  pending.starting = factory.start_submission(log, append_log);
  return pending;
}

RowRecord grade_row(const RowPlan& plan, PendingRunner pending, RunnerFactory& factory) {
  return RowGrader(plan, std::move(pending), factory).grade();
}

}  // namespace spmv::grade
