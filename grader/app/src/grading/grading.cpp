#include "grading/grading.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "cases/case_data.hpp"
#include "grading/kept_runners.hpp"
#include "judging/verdict.hpp"
#include "model/exit_codes.hpp"
#include "rows/row_grading.hpp"
#include "spmv/core/atomic_file.hpp"

namespace spmv::grade {
namespace {

// A case's data for its rows: read and converted once, or why it could not be.
struct CaseState {
  std::optional<PreparedCase> prepared;
  std::string error;  // the PrepareError's message
};

// A row's runner, started ahead of the row's turn (--prestart) or at it.
struct StartedRow {
  std::size_t index = 0;  // into the rows
  PendingRunner runner;
};

// Cases prepared by other threads while one is graded (GPU gradings only).
constexpr std::size_t kCasesPreparedAhead = 2;

// Grades the rows in order, one submission runner at a time. With
// --prestart N, the runners of up to N following rows are started while a
// row runs: each creates its CUDA context and waits; none loads the
// submission's plugin before its turn, so no submission code runs ahead.
// Runners never used (the grader stopped early) are killed when the
// Grading goes.
class Grading {
 public:
  Grading(const RowLoopSettings& settings, Setup& setup, Reporter& reporter, GpuInfo gpu, bool needs_gpu,
          GradingRunners& runners)
      : settings_(settings),
        setup_(setup),
        reporter_(reporter),
        gpu_(std::move(gpu)),
        needs_gpu_(needs_gpu),
        runners_(runners) {}

  void run(std::vector<RowResult>& rows, std::uint64_t run_seed, const std::set<std::size_t>& done) {
    prepare_ = {settings_.cache_dir, settings_.format_limit_bytes, run_seed};
    for (std::size_t c = 0; c < setup_.cases.size(); ++c) {
      std::vector<std::size_t> indices;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].case_name == setup_.cases[c].test_case.name && done.count(i) == 0) indices.push_back(i);
      }
      order_case(rows, indices, c);
      for (const auto i : indices) order_.push_back({i, c});
      case_rows_.push_back(std::move(indices));
    }
    start_first_runners(rows);
    for (std::size_t c = 0; c < setup_.cases.size(); ++c) {
      if (!case_rows_[c].empty()) grade_case(rows, c);
    }
  }

  // Runners started ahead and never used end as work on the GPU.
  ~Grading() {
    kept_.end_kept();
    try {
      const GpuShare::Hold ending = runners_.active();
      started_.clear();
    } catch (const std::exception&) {
      started_.clear();
    }
  }
  Grading(const Grading&) = delete;
  Grading& operator=(const Grading&) = delete;

  [[nodiscard]] int cases_checked_on_host() const { return cases_checked_on_host_; }
  // Seconds the grading waited for cases to be prepared.
  [[nodiscard]] double case_wait_s() const { return case_wait_s_; }
  [[nodiscard]] bool gpu_missing() const { return needs_gpu_ && gpu_.count == 0; }

 private:
  struct Turn {
    std::size_t row;
    std::size_t case_index;
  };

  // A case's rows in grading order: those known short (an earlier grading
  // of the class timed them so) together, at the case's end, or at its
  // start in every other case, so that they share one kept runner with the
  // next case's (a runner is kept across cases). Each row scored by speed
  // needs a runner of its own; rows between them would each start another.
  // A stub's rows are not known ahead: they are kept wherever they come.
  void order_case(const std::vector<RowResult>& rows, std::vector<std::size_t>& indices, std::size_t c) {
    const bool known_short_first = c % 2 == 1;
    std::stable_partition(indices.begin(), indices.end(), [&](std::size_t i) {
      const auto known = kept_.known_short(rows[i].case_name, rows[i].kernel);
      return (known && *known) == known_short_first;
    });
  }

  std::set<spmv_format> formats_of(const std::vector<RowResult>& rows, const std::vector<std::size_t>& indices) const {
    std::set<spmv_format> formats;
    for (const auto i : indices) formats.insert(setup_.reference.find(rows[i].kernel)->format);
    return formats;
  }

  CaseState prepare_state(std::size_t c, const std::set<spmv_format>& formats) const {
    CaseState state;
    try {
      state.prepared = prepare_case(setup_.cases[c].test_case, formats, prepare_);
      // The runners' matrix images too, here rather than at the case's
      // first row of each format: a large case's take the grader hundreds
      // of milliseconds (on the H100, the reference's set-up of power_law's
      // first row took 312 ms, of a row whose format's image was made 110 ms).
      // One that cannot be made is tried again at its row, which says why.
      try {
        for (const spmv_format format : formats) {
          if (state.prepared->refused.count(format) == 0) matrix_image(*state.prepared, format);
        }
        matrix_image(*state.prepared, SPMV_FORMAT_CSR);
        shape_image(*state.prepared);
      } catch (const std::exception&) {
      }
    } catch (const PrepareError& e) {
      state.error = e.what();
    }
    return state;
  }

  // The case prepared on first use, at its turn or earlier to start the
  // runner of one of its rows ahead; or by a thread of its own, started when
  // the case two before it began (prepare_ahead).
  CaseState& case_state(const std::vector<RowResult>& rows, std::size_t c) {
    if (const auto it = cases_.find(c); it != cases_.end()) return it->second;
    const auto waited_from = Clock::now();
    struct Waited {
      double& total;
      Clock::time_point from;
      ~Waited() { total += std::chrono::duration<double>(Clock::now() - from).count(); }
    } waited{case_wait_s_, waited_from};
    if (const auto it = preparing_.find(c); it != preparing_.end()) {
      std::future<CaseState> ready = std::move(it->second);
      preparing_.erase(it);
      return cases_.emplace(c, ready.get()).first->second;
    }
    return cases_.emplace(c, prepare_state(c, formats_of(rows, case_rows_[c]))).first->second;
  }

  // Whether case `c` is prepared: case_state(c) returns without waiting.
  bool case_prepared(std::size_t c) const {
    if (cases_.count(c) != 0) return true;
    const auto it = preparing_.find(c);
    return it != preparing_.end() && it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  // On the GPU, the next two cases are read, converted and their golden
  // results computed on other cores while case `c` is graded, off the
  // grading's critical path. Host-memory plugins run on the CPU, and their
  // timings would share it: there, each case is prepared at its turn.
  void prepare_ahead(const std::vector<RowResult>& rows, std::size_t c) {
    if (!needs_gpu_ || gpu_missing()) return;
    for (std::size_t next = c + 1; next < setup_.cases.size() && next <= c + kCasesPreparedAhead; ++next) {
      if (case_rows_[next].empty() || cases_.count(next) != 0 || preparing_.count(next) != 0) continue;
      preparing_.emplace(next,
                         std::async(std::launch::async, [this, next, formats = formats_of(rows, case_rows_[next])] {
                           return prepare_state(next, formats);
                         }));
    }
  }

  void finish_all(std::vector<RowResult>& rows, const std::vector<std::size_t>& indices, Verdict verdict,
                  const std::string& cause, const std::string& why) {
    for (const auto i : indices) {
      drop_started(i);
      reporter_.row_started(rows, i);
      set_verdict(rows[i], verdict, cause, why);
      reporter_.row_finished(rows, i);
    }
  }

  void grade_case(std::vector<RowResult>& rows, std::size_t c) {
    const CaseEntry& entry = setup_.cases[c];
    const std::vector<std::size_t>& indices = case_rows_[c];
    // A kept runner is work on the GPU: with the GPU shared, not held while
    // the case is read.
    if (runners_.shared() && !case_prepared(c)) kept_.end_kept();
    CaseState& state = case_state(rows, c);
    prepare_ahead(rows, c);
    if (!state.prepared) {
      finish_all(rows, indices, Verdict::kCaseError, "case_error", "case " + entry.test_case.name + ": " + state.error);
      cases_.erase(c);
      return;
    }
    PreparedCase& prepared = *state.prepared;
    read_cusparse_cache(settings_, prepared);
    for (const auto i : indices) {
      rows[i].rows = prepared.csr.rows;
      rows[i].cols = prepared.csr.cols;
      rows[i].nnz = prepared.csr.nnz();
    }
    if (gpu_missing()) {
      // What can be done without a GPU is still done, so a broken case or
      // conversion shows up even here.
      const std::string problem = host_side_check(prepared);
      ++cases_checked_on_host_;
      if (!problem.empty()) {
        finish_all(rows, indices, Verdict::kGraderError, "host_check", "host-side check failed: " + problem);
        cases_.erase(c);
        return;
      }
    }
    for (const auto i : indices) {
      reporter_.row_started(rows, i);
      if (const auto decision = decide_without_runner(setup_, rows[i], prepared, gpu_missing())) {
        drop_started(i);
        set_verdict(rows[i], decision->verdict, decision->cause, decision->why);
      } else {
        run_row(rows, i, prepared);
      }
      reporter_.row_finished(rows, i);
      if (needs_gpu_ && (rows[i].verdict == Verdict::kCrash || rows[i].verdict == Verdict::kTimeout)) {
        runners_.check_gpu_health(rows[i], settings_.device, settings_.output_dir);
      }
    }
    cases_.erase(c);
  }

  std::filesystem::path log_of(const RowResult& row) const {
    return logs_dir(settings_.output_dir) /
           (file_name_part(row.kernel) + "__" + file_name_part(row.case_name) + ".log");
  }

  // Starts the runners of the rows after `position` (in grading order)
  // until --prestart of them wait, looking no further than the cases
  // prepare_ahead prepares. A row whose case is prepared gets a runner only
  // if it needs one; a row whose case is still being prepared gets one all
  // the same, ended unused if the row needs none (drop_started): in a run of
  // one kernel every row is another case, and its short rows waited up to
  // 200 ms on the H100 for a runner started at their turn. Nothing here
  // waits for a case: the grader must be quick while a row runs.
  void look_ahead(const std::vector<RowResult>& rows, std::size_t position) {
    if (settings_.prestart == 0 || !setup_.submission.loaded) return;
    const std::size_t current_case = order_[position].case_index;
    std::size_t waiting = started_.size();
    std::size_t next = std::max(next_to_start_, position + 1);
    for (; waiting < static_cast<std::size_t>(settings_.prestart) && next < order_.size(); ++next) {
      const Turn turn = order_[next];
      if (turn.case_index > current_case + kCasesPreparedAhead) break;
      if (case_prepared(turn.case_index)) {
        const CaseState& state = case_state(rows, turn.case_index);
        if (!state.prepared || decide_without_runner(setup_, rows[turn.row], *state.prepared, gpu_missing())) continue;
      }
      if (likely_kept_runner(rows, next)) continue;
      started_.push_back({turn.row, start_submission_runner(runners_, log_of(rows[turn.row]))});
      ++waiting;
    }
    next_to_start_ = next;
  }

  // A row that needs no runner after all: the one started for it ends
  // unused. Its start may still be waiting for its turn on the GPU while
  // this grading holds a kept runner: the share grants a start beside the
  // member's own work (gpu_share.hpp), so this wait cannot hold up the
  // other gradings' stretches, nor they it.
  void drop_started(std::size_t index) {
    const auto it =
        std::find_if(started_.begin(), started_.end(), [&](const StartedRow& s) { return s.index == index; });
    if (it == started_.end()) return;
    runners_.retire(it->runner.take(), {});
    started_.erase(it);
  }

  // Before the first row: the reference runner and the first rows' runners
  // start together, each creating its CUDA context while the first case is
  // prepared (without them, the first row would wait for each in turn).
  void start_first_runners(const std::vector<RowResult>& rows) {
    if (order_.empty() || gpu_missing()) return;
    runners_.start_reference();
    if (settings_.prestart == 0 || !setup_.submission.loaded) return;
    const Turn first = order_.front();
    started_.push_back({first.row, start_submission_runner(runners_, log_of(rows[first.row]))});
    next_to_start_ = 1;
    look_ahead(rows, 0);
  }

  // A row graded by `plan` and judged into `row` (as `unjudged` was before
  // any grading): a row tried first whose runs were correct is graded
  // again in full, the try a phase of its time. Returns whether the row was
  // short, if it was timed.
  std::optional<bool> grade_and_judge(RowResult& row, const RowResult& unjudged, RowPlan plan, PendingRunner pending,
                                      const RowContext& context) {
    RowRecord record = grade_row(plan, std::move(pending), runners_);
    if (record.kept) {
      kept_.keep(std::move(record.kept), std::move(record.kept_activity), record.log_file);
    }
    if (record.passed_when_tried) {
      const double tried_ms = total_ms(record.phase_ms);
      plan.tried_first = false;
      record = grade_row(plan, start_submission_runner(runners_, log_of(row), true), runners_);
      record.phase_ms["tried_first"] += tried_ms;
    }
    row = unjudged;
    const auto judging = Clock::now();
    judge_row(row, record, context);
    row.phase_ms["judge"] = std::chrono::duration<double, std::milli>(Clock::now() - judging).count();
    return record.timing.timed ? std::optional<bool>(record.timing.short_row) : std::nullopt;
  }

  // Whether a row's verdict or flags might come from another grading's
  // work on the GPU: not a clean pass, and not the submission's own word
  // (a kernel not implemented, a plugin that does not load, a vendor
  // library's kernel seen in its own process).
  static bool needs_second_look(const RowResult& row) {
    switch (row.verdict) {
      case Verdict::kPass: return !row.flags.empty();
      case Verdict::kWrong:
      case Verdict::kCrash:
      case Verdict::kTimeout:
      case Verdict::kGraderError: return true;
      default: return false;
    }
  }

  static double total_ms(const std::map<std::string, double>& phases) {
    double total = 0;
    for (const auto& [name, ms] : phases) total += ms;
    return total;
  }

  // Whether the row at `position` will likely take a kept runner (no
  // runner started ahead for it): it is keepable, and so is the row before
  // it that needs a runner, in its case or the one before (with the GPU
  // shared, a case not yet read ends the kept runner). If not, its runner
  // starts at its turn.
  bool likely_kept_runner(const std::vector<RowResult>& rows, std::size_t position) {
    if (!kept_.keepable(rows[order_[position].row])) return false;
    const std::size_t c = order_[position].case_index;
    for (std::size_t at = position; at-- > 0;) {
      const std::size_t before_case = order_[at].case_index;
      if (before_case != c && (before_case + 1 != c || (runners_.shared() && !case_prepared(c)))) return false;
      const RowResult& before = rows[order_[at].row];
      if (case_prepared(before_case)) {
        const CaseState& state = case_state(rows, before_case);
        if (state.prepared && decide_without_runner(setup_, before, *state.prepared, gpu_missing())) continue;
      }
      return kept_.keepable(before);
    }
    return false;
  }

  std::size_t position_of(std::size_t row) const {
    const auto it = std::find_if(order_.begin(), order_.end(), [&](const Turn& turn) { return turn.row == row; });
    return static_cast<std::size_t>(it - order_.begin());
  }

  void run_row(std::vector<RowResult>& rows, std::size_t index, PreparedCase& prepared) {
    RowResult& row = rows[index];
    PendingRunner pending;
    const bool tried_first = kept_.failing(row.kernel);
    const bool in_kept = kept_.keepable(row) && kept_.takes_kept_runner();
    if (in_kept) {
      drop_started(index);
      pending = kept_.take();
    } else if (kept_.end_kept(); !started_.empty() && started_.front().index == index) {
      pending = std::move(started_.front().runner);
      started_.pop_front();
    } else {
      pending = start_submission_runner(runners_, log_of(row));
    }
    look_ahead(rows, position_of(index));
    RowPlan plan;
    plan.prepared = &prepared;
    plan.kernel = row.kernel;
    plan.format = setup_.reference.find(row.kernel)->format;
    plan.timeout_s = settings_.timeout_s;
    plan.timing = settings_.timing;
    plan.measure_cusparse =
        settings_.cusparse && !prepared.cusparse_ms && setup_.reference.memory == SPMV_MEMORY_DEVICE;
    plan.min_reference_us = setup_.policy.min_reference_us;
    plan.tried_first = tried_first;
    plan.may_keep_runner = true;
    plan.log = log_of(row);
    const RowContext context{prepared,
                             plan.format,
                             settings_.timeout_s,
                             gpu_.copy_gbps,
                             setup_.policy.speedup_review,
                             setup_.policy.min_reference_us};
    const RowResult unjudged = row;
    std::optional<bool> graded_short = grade_and_judge(row, unjudged, plan, std::move(pending), context);
    // A row that failed or was flagged in the runner the row before left
    // loaded is graded again in a runner of its own: that kernel may have
    // corrupted the runner's memory or context, or left work running in it.
    // A clean pass there is this kernel's own: what the other left behind
    // cannot make a result right for an x it has not seen (and a row tried
    // first that passes is graded again in full).
    // A kernel that timed out in a runner of its own has its later timeouts
    // stand: each costs the whole limit, twice.
    const auto hangs = [&] { return row.verdict == Verdict::kTimeout && hanging_kernels_.count(row.kernel) != 0; };
    bool own_runner = !in_kept;
    // With the GPU shared, the second look below is in a runner of its own.
    if (in_kept && !runners_.shared() && row.verdict != Verdict::kNotImplemented &&
        (row.verdict != Verdict::kPass || !row.flags.empty()) && !hangs()) {
      own_runner = true;
      const std::string first = row.summary;
      const double first_ms = total_ms(row.phase_ms);
      kept_.end_kept();
      plan.may_keep_runner = false;
      graded_short =
          grade_and_judge(row, unjudged, plan, start_submission_runner(runners_, log_of(row), true), context);
      row.phase_ms["first_attempt"] += first_ms;
      row.detail =
          "Graded again in a runner of its own, after a first grading in a runner another kernel's row "
          "had used gave: " +
          first + (row.detail.empty() ? "" : "\n" + row.detail);
    }
    // A row that did not pass cleanly while other gradings shared the GPU
    // (gpu_share.hpp: its untimed work beside theirs) is graded again with
    // the GPU to itself, and that grading stands: another student's
    // submission, filling the GPU's memory or keeping it busy, cannot fail
    // or flag this one's row.
    bool alone = !runners_.shared();
    if (runners_.shared() && needs_second_look(row) && !hangs()) {
      alone = own_runner = true;
      const std::string first = row.summary;
      const double first_ms = total_ms(row.phase_ms);
      plan.alone = true;
      plan.may_keep_runner = false;
      kept_.end_kept();
      graded_short =
          grade_and_judge(row, unjudged, plan, start_submission_runner(runners_, log_of(row), true), context);
      row.phase_ms["first_attempt"] = first_ms;
      row.detail =
          "Graded again with the GPU to itself, in a runner of its own, after a first grading beside another "
          "grading on the same GPU gave: " +
          first + (row.detail.empty() ? "" : "\n" + row.detail);
    }
    if (row.verdict == Verdict::kTimeout && own_runner && alone) hanging_kernels_.insert(row.kernel);
    // Short or not, for the rows of the same case and kernel to come (in
    // other gradings of the class): known from a row that was timed.
    if (row.verdict == Verdict::kPass && graded_short) kept_.note_short(row.case_name, row.kernel, *graded_short);
    kept_.note_passed(row.kernel, row.verdict == Verdict::kPass);
    for (const std::string& flag : row.flags) {
      const auto& accepted = setup_.policy.accepted_flags;
      if (std::find(accepted.begin(), accepted.end(), flag) != accepted.end()) row.accepted_flags.push_back(flag);
    }
    if (row.cusparse_ms && !prepared.cusparse_ms) {
      prepared.cusparse_ms = row.cusparse_ms;
      write_cusparse_cache(settings_, prepared);
    }
  }

  const RowLoopSettings& settings_;
  Setup& setup_;
  Reporter& reporter_;
  GpuInfo gpu_;
  bool needs_gpu_;
  GradingRunners& runners_;
  int cases_checked_on_host_ = 0;
  double case_wait_s_ = 0;
  PrepareOptions prepare_;
  std::vector<std::vector<std::size_t>> case_rows_;          // each case's rows still to grade, in order
  std::vector<Turn> order_;                                  // those rows, in grading order
  std::map<std::size_t, CaseState> cases_;                   // prepared cases still needed
  std::map<std::size_t, std::future<CaseState>> preparing_;  // cases being prepared by threads of their own
  std::deque<StartedRow> started_;                           // runners started ahead, waiting for their turn, in order
  std::size_t next_to_start_ = 0;                            // position in order_ not yet looked at
  // The runner kept for the next keepable row, the kernels failing and
  // the rows known short (kept_runners.hpp).
  KeptRunners kept_{settings_, runners_};
  // Kernels that timed out in a runner of their own with the GPU to
  // themselves (graded again alone, or not sharing the GPU).
  std::set<std::string> hanging_kernels_;
};

}  // namespace

RowsGraded grade_rows(const RowLoopSettings& settings, Setup& setup, Reporter& reporter, const GpuInfo& gpu,
                      bool needs_gpu, GradingRunners& runners, std::vector<RowResult>& rows, std::uint64_t run_seed,
                      const std::set<std::size_t>& done) {
  Grading grading(settings, setup, reporter, gpu, needs_gpu, runners);
  grading.run(rows, run_seed, done);
  return {grading.cases_checked_on_host(), grading.case_wait_s(), grading.gpu_missing()};
}

}  // namespace spmv::grade
