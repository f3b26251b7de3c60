#include "rows/kernel_grading.hpp"

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "judging/correctness.hpp"
#include "rows/link_checks.hpp"
#include "rows/reference_windows.hpp"
#include "rows/row_timing.hpp"
#include "rows/submission_bursts.hpp"
#include "rows/submission_session.hpp"

namespace spmv::grade {
namespace {

using runner::ReplyKind;

// Checked runs in the timing runner before its capture: step 1 checked
// all three in a runner of their own; this one checks the timing runner's
// first call of the kernel (its y, its inputs left as they were, no
// vendor library's kernel) on the first x.
constexpr int kTimingRunnerRuns = 1;

std::filesystem::path timing_log(const std::filesystem::path& log) {
  std::filesystem::path path = log;
  return path.replace_extension(".timing.log");
}

std::uintmax_t size_of(const std::filesystem::path& file) {
  std::error_code error;
  const auto size = std::filesystem::file_size(file, error);
  return error ? 0 : size;
}

// One row of the kernel: what its phases share (row_plan.hpp), the
// reference's side of it and the checks of its timed launches.
struct Row {
  explicit Row(const RowPlan& plan, RunnerFactory& factory) : state(plan, factory), reference(state), checks(state) {}
  RowState state;
  ReferenceWindows reference;
  LinkChecks checks;
  std::shared_ptr<ResultMemory> results;  // the timing runner's result area
  std::shared_ptr<ResultMemory> checked;  // step 1's, its runs' y (a row that passed it)
  double checked_max_ratio = 0;           // their largest error over the allowed
  bool passed_first = false;              // step 1's runs were correct
  bool checks_right = true;               // every copied link was right (step 5)
  bool again_alone = false;
  bool done = false;  // its record is final (failed, or graded through step 5)
};

// The runner the kernel's rows are handed along (or one being started,
// its "CUDA ready" still to be received by the row that takes it), with
// the log it writes into and whether its plugin is loaded.
struct KernelRunner {
  std::unique_ptr<Runner> runner;
  PendingRunner starting;
  std::filesystem::path log;
  bool loaded = false;
  int served = 0;  // rows it has served since its load

  [[nodiscard]] bool none() const { return !runner && !starting.starting.valid(); }
  // A fresh runner, writing into `into`.
  void start(RunnerFactory& factory, const std::filesystem::path& into) {
    *this = KernelRunner{};
    log = into;
    starting = start_submission_runner(factory, into);
  }
};

}  // namespace

class KernelGrader {
 public:
  KernelGrader(const std::vector<RowPlan>& plans, RunnerFactory& factory, bool timing_ahead)
      : factory_(factory), timing_ahead_(timing_ahead) {
    rows_.reserve(plans.size());
    for (const RowPlan& plan : plans) rows_.push_back(std::make_unique<Row>(plan, factory));
  }

  // Step 1 (the timing runner started ahead once a row has passed, making
  // its CUDA context meanwhile: a kernel none of whose rows pass, a stub's,
  // costs no timing runner).
  void check() {
    if (rows_.empty()) return;
    correctness_first();
    timing_started_ = !timing_.none();
  }

  // Steps 2 to 5, and every row's record.
  std::vector<KernelRow> time() {
    if (any_passed()) {
      time_rows(timing_);
    } else {
      retire(timing_);
    }
    std::vector<KernelRow> out;
    out.reserve(rows_.size());
    for (auto& row : rows_) out.push_back({std::move(row->state.record), row->again_alone});
    return out;
  }

  [[nodiscard]] KernelSteps steps() const { return steps_; }

  // Waits for the runners retired to be gone (their CUDA contexts torn
  // down), the wait counted.
  void settle() {
    const auto from = Clock::now();
    factory_.settle();
    steps_.settle_s += std::chrono::duration<double>(Clock::now() - from).count();
  }

  ~KernelGrader() {
    stretch_.release();
    quiet_.release();
  }
  KernelGrader(const KernelGrader&) = delete;
  KernelGrader& operator=(const KernelGrader&) = delete;

 private:
  [[nodiscard]] bool any_passed() const {
    for (const auto& row : rows_) {
      if (row->passed_first) return true;
    }
    return false;
  }

  // The next row's runner: the one handed along (loaded or not), or the
  // one being started, whose "CUDA ready" the row receives.
  static PendingRunner hand_on(KernelRunner& current) {
    if (!current.runner) return std::move(current.starting);
    PendingRunner pending;
    pending.log = current.log;
    pending.log_offset = size_of(current.log);
    (current.loaded ? pending.loaded : pending.started) = std::move(current.runner);
    return pending;
  }

  // Step 1: each row's runs, in one runner while they pass. A row's record
  // is final here if it fails (or is not implemented); a row that passes is
  // graded in full in steps 2 to 5.
  void correctness_first() {
    GpuShare::Hold active = factory_.active();
    KernelRunner current;
    for (auto& row : rows_) {
      // The step's own state: a row that passes starts over in step 3.
      RowState trial(row->state.plan, factory_);
      trial.deadline = after_seconds(trial.plan.timeout_s);
      if (current.none()) current.start(factory_, trial.plan.log);
      SubmissionSession session(trial, hand_on(current));
      const int served_before = current.served;
      const bool ran = trial.phase("start", session.start()) && session.correctness_runs();
      const std::optional<Correctness> correctness =
          ran ? std::optional(evaluate_correctness(trial.prepared, *trial.record.results, trial.record.modified_inputs))
              : std::nullopt;
      const bool passed = correctness && correctness->passed;
      trial.phase("check", true);
      const bool not_implemented = trial.record.refused == ReplyKind::kNotImplemented;
      const bool running = session.has_runner() && trial.record.end.kind == RunnerEnd::Kind::kRunning;
      if (passed || (not_implemented && running)) {
        // A stub's kernel answers "not implemented": its runner goes on.
        current.runner = session.release_runner();
        current.loaded = true;
        ++current.served;
      } else {
        if (session.has_runner()) {
          const RunnerEnd end = session.runner().end();
          if (trial.record.end.kind == RunnerEnd::Kind::kRunning && !ran) trial.record.end = end;
        }
        current = KernelRunner{};
      }
      row->passed_first = passed;
      if (passed && timing_ahead_ && timing_.none()) timing_.start(factory_, timing_log(rows_.front()->state.plan.log));
      if (passed) {
        row->checked = session.results();
        row->checked_max_ratio = correctness->max_ratio;
        // What the launch recorder saw in step 1 stays the row's: a vendor
        // library's kernel there is judged as one in step 3.
        row->state.record.foreign_kernel = trial.record.foreign_kernel;
        row->state.record.recorder_note = trial.record.recorder_note;
        row->state.record.phase_ms["correctness_first"] = total_ms(trial.record.phase_ms);
        continue;
      }
      if (ran) {
        trial.record.completed = true;
        trial.record.stage = Stage::kDone;
      }
      if (!trial.record.results) trial.record.results.emplace(session.results()->words(), trial.prepared.csr.rows);
      trial.record.result_memory = session.results();
      row->again_alone = served_before > 0 && !not_implemented;
      row->state.record = std::move(trial.record);
      row->done = true;
    }
    retire(current);
  }

  // The kernel's runner, if any, ended in the background.
  void retire(KernelRunner& current) {
    if (current.runner) {
      factory_.retire(std::move(current.runner), {});
    } else if (current.starting.starting.valid()) {
      factory_.retire(current.starting.take(), {});
    }
    current = KernelRunner{};
  }

  // Steps 2 to 5 for the rows that passed step 1.
  void time_rows(KernelRunner& current) {
    auto from = Clock::now();
    const auto lap = [&from](double& into) {
      const auto now = Clock::now();
      into += std::chrono::duration<double>(now - from).count();
      from = now;
    };
    settle();  // step 1's runner gone
    quiet_ = factory_.quiet();
    stretch_ = factory_.alone();
    for (auto& row : rows_) {
      if (!row->done) reference_before(*row);
    }
    // A short row's window is its reference time: kept for the gradings
    // after as it is.
    for (auto& row : rows_) {
      if (!row->done && row->reference.short_row() && !row->reference.uses_kept()) keep_window(*row);
    }
    lap(steps_.reference_s);
    std::size_t next = 0;
    while ((next = next_to_time(next)) < rows_.size()) next = run_timing_runner(current, next);
    collect_checks();
    retire(current);
    lap(steps_.timing_s);
    settle();
    for (auto& row : rows_) {
      if (!row->done) reference_after(*row);
    }
    stretch_.release();
    quiet_.release();
    lap(steps_.reference_s);
    for (auto& row : rows_) {
      if (row->done) continue;
      finish_row(*row);
    }
  }

  // Step 2 for a row: a window kept by an earlier grading on the GPU, if
  // one serves (reference_memo.hpp), else the reference set up, its links
  // chosen and its bursts before timed.
  void reference_before(Row& row) {
    RowState& state = row.state;
    state.deadline = after_seconds(state.plan.timeout_s);
    state.resume_clock();
    if (const ReferenceMemo* memo = state.plan.memo) {
      if (const auto kept = memo->find(state.plan.kernel, state.prepared.test_case.name)) {
        row.reference.use_kept(*kept);
        state.phase("reference_kept", true);
        return;
      }
    }
    const bool ok = state.phase("reference_setup", row.reference.set_up()) &&
                    state.phase("choose_links", row.reference.choose_links()) && row.reference.warmup() &&
                    state.phase("reference_bursts", row.reference.time_before());
    if (!ok) end_row(row, nullptr);
  }

  [[nodiscard]] std::size_t next_to_time(std::size_t from) const {
    while (from < rows_.size() && rows_[from]->done) ++from;
    return from;
  }

  // Step 3 in one runner, from row `first` on: its calibration for every
  // row left scored by speed, then the rows in turn until one fails.
  // Returns the row to go on from (in a fresh runner).
  std::size_t run_timing_runner(KernelRunner& current, std::size_t first) {
    if (!current.runner) {
      // A runner still to start or to be received (one started in step 1
      // as its last row passed may not be ready yet), its start let in: a
      // start waits while the GPU is kept quiet, and while any grading
      // sharing the GPU times (this one too); the starts queued before it
      // too. The holds are taken again once it is ready (hold_for_timing).
      quiet_.release();
      stretch_.release();
    }
    if (current.none()) {
      // The kernel's first timing runner writes into the log named after
      // its first row, whenever it starts; one after a failure into its
      // first row's.
      const Row& named = timing_started_ ? *rows_[first] : *rows_.front();
      current.start(factory_, timing_log(named.state.plan.log));
    }
    timing_started_ = true;
    for (std::size_t at = first; at < rows_.size(); ++at) {
      Row& row = *rows_[at];
      if (row.done || row.reference.short_row()) continue;
      row.state.bursts.submission = Side{};
      row.state.resume_clock();
      SubmissionSession session(row.state, hand_on(current));
      const bool started = row.state.phase("start", session.start());
      hold_for_timing();
      const bool calibrated = started && session.calibrate();
      if (session.has_runner()) current.runner = session.release_runner();
      if (!calibrated) {
        end_row(row, nullptr);
        retire(current);
        return at + 1;
      }
    }
    for (std::size_t at = first; at < rows_.size(); ++at) {
      Row& row = *rows_[at];
      if (row.done) continue;
      const bool after_another = current.served > 0;
      row.state.deadline = after_seconds(row.state.plan.timeout_s);
      row.state.resume_clock();
      SubmissionSession session(row.state, hand_on(current));
      // A short row may be the first of a fresh runner: its start done, the
      // GPU is held again for the bursts.
      const bool started = session.start();
      hold_for_timing();
      row.results = session.results();
      const bool short_row = row.reference.short_row();
      const bool ok = started && session.correctness_runs(kTimingRunnerRuns) &&
                      evaluate_correctness(row.state.prepared, *row.state.record.results,
                                           row.state.record.modified_inputs, kTimingRunnerRuns)
                          .passed &&
                      row.state.phase("check", true) && keep_checked_runs(row) &&
                      time_submission_bursts(row.state, session, row.checks, short_row, [&] {
                        // A short row's time decides nothing: its bursts need not wait.
                        if (!short_row) collect_checks();
                      });
      if (ok) {
        current.runner = session.release_runner();
        current.loaded = true;
        ++current.served;
        // Its links are checked on other cores (at the lowest priority)
        // while the next rows are set up and run, done before the next
        // scored row's bursts: beside bursts they slowed whole windows of
        // them on the largest cases.
        checking_.emplace_back(&row, std::async(std::launch::async, [&row] { return row.checks.run_checks(); }));
        row.state.phase("checks_started", true);
        continue;
      }
      row.again_alone = after_another;
      end_row(row, &session);
      current = KernelRunner{};
      return at + 1;
    }
    return rows_.size();
  }

  // A row whose run in the timing runner was right keeps step 1's three
  // runs as its results (its largest error, its "correct in all 3 runs").
  static bool keep_checked_runs(Row& row) {
    RowRecord& record = row.state.record;
    record.results.emplace(row.checked->words(), row.state.prepared.csr.rows);
    record.runs = kRunsPerRow;
    record.runs_correct_max_ratio = row.checked_max_ratio;
    row.results = row.checked;
    return true;
  }

  // Steps 2 to 4's holds, taken again after a fresh runner's start.
  void hold_for_timing() {
    if (!quiet_.held()) quiet_ = factory_.quiet();
    if (!stretch_.held()) stretch_ = factory_.alone();
  }

  void collect_checks() {
    for (auto& [row, check] : checking_) row->checks_right = check.get();
    checking_.clear();
  }

  // Step 4 for a row scored by speed (a short row's reference time is that
  // of its bursts before), and cuSPARSE's time.
  void reference_after(Row& row) {
    if (row.reference.short_row()) return;
    RowState& state = row.state;
    state.deadline = after_seconds(state.plan.timeout_s);
    state.resume_clock();
    const bool ok = row.reference.set_up_again() && row.reference.warmup() &&
                    state.phase("reference_after_bursts", row.reference.time_after()) && measure_cusparse(row);
    if (!ok) {
      end_row(row, nullptr);
      return;
    }
    keep_window(row);
  }

  // The row's reference window, kept for the gradings after on the GPU
  // (reference_memo.hpp), if they share a folder for it.
  static void keep_window(const Row& row) {
    const RowState& state = row.state;
    if (state.plan.memo != nullptr) {
      state.plan.memo->keep(state.plan.kernel, state.prepared.test_case.name, row.reference.to_keep());
    }
  }

  // cuSPARSE's time on the row's case, as context, once a case: by the
  // first kernel that scores it by speed (a case whose every row is short
  // has none), with the GPU still the grading's alone.
  static bool measure_cusparse(Row& row) {
    RowState& state = row.state;
    if (!state.plan.measure_cusparse || state.prepared.cusparse_ms) return true;
    return state.phase("cusparse", row.reference.measure_cusparse());
  }

  // Step 5: the row's timing made, its links' checks collected.
  void finish_row(Row& row) {
    collect_checks();
    RowState& state = row.state;
    state.resume_clock();
    grade::finish_timing(state.record.timing, state.bursts, row.reference.short_row(), row.reference.short_by_pilot(),
                         row.reference.pilot_link_ms());
    if (state.phase("checks", row.checks_right && row.checks.collect_checks())) {
      state.record.completed = true;
      state.record.stage = Stage::kDone;
    }
    keep_results(row);
    row.done = true;
  }

  // A row ended where it failed (its record says why); its runner, if
  // `session` has it, ended for how it ended.
  void end_row(Row& row, SubmissionSession* session) {
    collect_checks();
    RowRecord& record = row.state.record;
    if (session != nullptr && session->has_runner()) {
      const RunnerEnd end = session->runner().end();
      if (record.end.kind == RunnerEnd::Kind::kRunning) record.end = end;
      row.results = session->results();
    }
    row.checks.collect_checks();
    keep_results(row);
    row.done = true;
  }

  static void keep_results(Row& row) {
    RowRecord& record = row.state.record;
    if (!row.results)
      row.results = std::make_shared<ResultMemory>(runner::result_area_bytes(row.state.prepared.csr.rows));
    if (!record.results) record.results.emplace(row.results->words(), row.state.prepared.csr.rows);
    record.result_memory = row.results;
  }

  RunnerFactory& factory_;
  bool timing_ahead_;
  bool timing_started_ = false;  // step 3 has had a runner
  KernelRunner timing_;          // step 3's first runner
  KernelSteps steps_;
  std::vector<std::unique_ptr<Row>> rows_;
  std::vector<std::pair<Row*, std::future<bool>>> checking_;
  QuietGpu::Hold quiet_;    // steps 2 to 4: no runner starts while they are timed
  GpuShare::Hold stretch_;  // steps 2 to 4: alone on a GPU shared with other gradings
};

KernelGrading::KernelGrading(const std::vector<RowPlan>& plans, RunnerFactory& factory, bool timing_ahead)
    : grader_(std::make_unique<KernelGrader>(plans, factory, timing_ahead)) {}
KernelGrading::~KernelGrading() = default;
KernelGrading::KernelGrading(KernelGrading&&) noexcept = default;
void KernelGrading::check() { grader_->check(); }
std::vector<KernelRow> KernelGrading::time() { return grader_->time(); }
KernelSteps KernelGrading::steps() const { return grader_->steps(); }

}  // namespace spmv::grade
