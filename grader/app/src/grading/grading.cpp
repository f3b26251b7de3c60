#include "grading/grading.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <thread>

#include "cases/case_data.hpp"
#include "grading/case_preparation.hpp"
#include "grading/cusparse_cache.hpp"
#include "judging/verdict.hpp"
#include "model/exit_codes.hpp"
#include "rows/kernel_grading.hpp"
#include "rows/row_grading.hpp"
#include "spmv/core/atomic_file.hpp"

namespace spmv::grade {
namespace {

double seconds_since(Clock::time_point from) { return std::chrono::duration<double>(Clock::now() - from).count(); }

// Grades the rows a group of cases at a time, and in a group kernel by
// kernel (rows/kernel_grading.hpp): a kernel's rows of the group share its
// runners, and the reference brackets the kernel's timing runner, not each
// row. Rows decided without a runner (not applicable, no GPU, a case that
// cannot be read) are decided as their case is prepared.
class Grading {
 public:
  Grading(const RowLoopSettings& settings, Setup& setup, CasePreparation& cases, Reporter& reporter, GpuInfo gpu,
          bool needs_gpu, GradingRunners& runners)
      : settings_(settings),
        setup_(setup),
        cases_(cases),
        reporter_(reporter),
        gpu_(std::move(gpu)),
        needs_gpu_(needs_gpu),
        runners_(runners),
        group_entries_(group_entries(machine_memory())) {}

  void run(std::vector<RowResult>& rows) {
    // The reference runner makes its CUDA context while the first cases
    // are prepared.
    if (cases_.any() && !gpu_missing()) runners_.start_reference();
    std::size_t c = 0;
    while (c < setup_.cases.size()) {
      std::vector<std::size_t> group;
      std::int64_t entries = 0;
      for (; c < setup_.cases.size(); ++c) {
        if (cases_.rows_of(c).empty()) continue;
        if (!group.empty() && entries >= group_entries_) break;
        cases_.ahead(c);
        const CaseState& state = cases_.state(c);
        if (state.prepared) entries += state.prepared->csr.nnz();
        group.push_back(c);
      }
      grade_group(rows, group);
    }
    steps_.case_wait_s = cases_.waited_s();
  }

  ~Grading() = default;
  Grading(const Grading&) = delete;
  Grading& operator=(const Grading&) = delete;

  [[nodiscard]] RowsGraded steps() const { return steps_; }
  [[nodiscard]] bool gpu_missing() const { return needs_gpu_ && gpu_.count == 0; }

 private:
  void finish_all(std::vector<RowResult>& rows, const std::vector<std::size_t>& indices, Verdict verdict,
                  const std::string& cause, const std::string& why) {
    for (const auto i : indices) {
      reporter_.row_started(rows, i);
      set_verdict(rows[i], verdict, cause, why);
      reporter_.row_finished(rows, i);
    }
  }

  // The case's rows that need no runner decided (and reported); returns
  // those that need one.
  std::vector<std::size_t> decide_case(std::vector<RowResult>& rows, std::size_t c) {
    const CaseEntry& entry = setup_.cases[c];
    const std::vector<std::size_t>& indices = cases_.rows_of(c);
    CaseState& state = cases_.state(c);
    if (!state.prepared) {
      finish_all(rows, indices, Verdict::kCaseError, "case_error", "case " + entry.test_case.name + ": " + state.error);
      return {};
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
      ++steps_.cases_checked_on_host;
      if (!problem.empty()) {
        finish_all(rows, indices, Verdict::kGraderError, "host_check", "host-side check failed: " + problem);
        return {};
      }
    }
    std::vector<std::size_t> graded;
    for (const auto i : indices) {
      if (const auto decision = decide_without_runner(setup_, rows[i], prepared, gpu_missing())) {
        reporter_.row_started(rows, i);
        set_verdict(rows[i], decision->verdict, decision->cause, decision->why);
        reporter_.row_finished(rows, i);
      } else {
        graded.push_back(i);
      }
    }
    return graded;
  }

  // The group's rows decided case by case, then those that need a runner
  // graded kernel by kernel (in the order the kernels come).
  void grade_group(std::vector<RowResult>& rows, const std::vector<std::size_t>& group) {
    std::vector<std::string> kernels;
    std::map<std::string, std::vector<std::size_t>> by_kernel;
    for (const auto c : group) {
      for (const auto i : decide_case(rows, c)) {
        if (by_kernel.count(rows[i].kernel) == 0) kernels.push_back(rows[i].kernel);
        by_kernel[rows[i].kernel].push_back(i);
      }
    }
    // Each kernel's rows checked (step 1 of kernel_grading.hpp), all
    // kernels at once on threads of their own; then each kernel timed in
    // turn, its rows judged and reported.
    std::vector<std::vector<RowPlan>> plans;
    std::vector<KernelGrading> kernels_graded;
    for (const std::string& kernel : kernels) {
      plans.push_back(plans_of(rows, by_kernel[kernel]));
      kernels_graded.emplace_back(plans.back(), runners_, settings_.prestart > 0);
    }
    {
      const auto from = Clock::now();
      std::vector<std::future<void>> checking;
      for (auto& graded : kernels_graded) {
        checking.push_back(std::async(std::launch::async, [&graded] { graded.check(); }));
      }
      for (auto& check : checking) check.get();
      steps_.checking_s += seconds_since(from);
    }
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      judge_kernel_rows(rows, by_kernel[kernels[k]], plans[k], kernels_graded[k].time());
      steps_.reference_s += kernels_graded[k].steps().reference_s;
      steps_.timing_s += kernels_graded[k].steps().timing_s;
      steps_.settle_s += kernels_graded[k].steps().settle_s;
    }
    for (const auto c : group) cases_.forget(c);
  }

  std::filesystem::path log_of(const RowResult& row) const {
    return logs_dir(settings_.output_dir) /
           (file_name_part(row.kernel) + "__" + file_name_part(row.case_name) + ".log");
  }

  RowPlan plan_of(const RowResult& row, PreparedCase& prepared) const {
    RowPlan plan;
    plan.prepared = &prepared;
    plan.kernel = row.kernel;
    plan.format = setup_.reference.find(row.kernel)->format;
    plan.timeout_s = settings_.timeout_s;
    plan.timing = settings_.timing;
    plan.measure_cusparse =
        settings_.cusparse && !prepared.cusparse_ms && setup_.reference.memory == SPMV_MEMORY_DEVICE;
    plan.min_reference_us = setup_.policy.min_reference_us;
    plan.log = log_of(row);
    plan.memo = settings_.memo;
    return plan;
  }

  RowContext context_of(const RowPlan& plan) const {
    return {*plan.prepared,
            plan.format,
            settings_.timeout_s,
            gpu_.copy_gbps,
            setup_.policy.speedup_review,
            setup_.policy.min_reference_us};
  }

  // One kernel's rows' plans, in order (a case measured by cuSPARSE once,
  // by the first kernel that scores it: kernel_grading.cpp).
  std::vector<RowPlan> plans_of(const std::vector<RowResult>& rows, const std::vector<std::size_t>& indices) {
    std::vector<RowPlan> plans;
    for (const auto i : indices) plans.push_back(plan_of(rows[i], cases_.prepared(rows[i].case_name)));
    return plans;
  }

  // One kernel's rows as its runners graded them (kernel_grading.hpp), each
  // judged and, where its first grading cannot stand alone, graded again in
  // a runner of its own; reported together (the reports written once for
  // them), and before anything that takes time: a row graded again
  // (judge_kernel_row), the GPU's health checked.
  void judge_kernel_rows(std::vector<RowResult>& rows, const std::vector<std::size_t>& indices,
                         const std::vector<RowPlan>& plans, std::vector<KernelRow> graded) {
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const std::size_t i = indices[k];
      reporter_.row_started(rows, i);
      judge_kernel_row(rows, i, plans[k], graded[k]);
      reporter_.row_finished(rows, i, true);
      if (needs_gpu_ && (rows[i].verdict == Verdict::kCrash || rows[i].verdict == Verdict::kTimeout)) {
        reporter_.flush(rows);
        runners_.check_gpu_health(rows[i], settings_.device, settings_.output_dir);
      }
    }
    reporter_.flush(rows);
  }

  // A row graded by `plan` in a runner of its own (row_grading.hpp) and
  // judged into `row` (as `unjudged` was before any grading).
  void grade_alone(RowResult& row, const RowResult& unjudged, const RowPlan& plan, const std::string& why) {
    const std::string first = row.summary;
    const double first_ms = total_ms(row.phase_ms);
    const auto from = Clock::now();
    RowRecord record = grade_row(plan, start_submission_runner(runners_, log_of(row), true), runners_);
    row = unjudged;
    judge(row, record, plan);
    row.phase_ms["first_attempt"] += first_ms;
    steps_.alone_s += seconds_since(from);
    row.detail = why + first + (row.detail.empty() ? "" : "\n" + row.detail);
  }

  void judge(RowResult& row, RowRecord& record, const RowPlan& plan) {
    const auto judging = Clock::now();
    judge_row(row, record, context_of(plan));
    row.phase_ms["judge"] = std::chrono::duration<double, std::milli>(Clock::now() - judging).count();
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

  // Row `i` of `rows`; the rows judged before it are reported before it is
  // graded again.
  void judge_kernel_row(std::vector<RowResult>& rows, std::size_t i, RowPlan plan, KernelRow& graded) {
    RowResult& row = rows[i];
    const RowResult unjudged = row;
    judge(row, graded.record, plan);
    // A kernel that timed out in a runner of its own has its later timeouts
    // stand: each costs the whole limit, twice.
    const auto hangs = [&] { return row.verdict == Verdict::kTimeout && hanging_kernels_.count(row.kernel) != 0; };
    // A row that failed in a runner that served the kernel's earlier rows
    // is graded again in a runner of its own: what those rows did in that
    // process never decides this one's verdict.
    bool own_runner = !graded.again_alone;
    if (graded.again_alone && !runners_.shared() && !hangs()) {
      own_runner = true;
      reporter_.flush(rows);
      grade_alone(row, unjudged, plan,
                  "Graded again in a runner of its own, after a first grading in the runner of the kernel's earlier "
                  "rows gave: ");
    }
    // A row that did not pass cleanly while other gradings shared the GPU
    // (gpu_share.hpp: its untimed work beside theirs) is graded again with
    // the GPU to itself, and that grading stands: another student's
    // submission, filling the GPU's memory or keeping it busy, cannot fail
    // or flag this one's row.
    bool alone = !runners_.shared();
    if (runners_.shared() && needs_second_look(row) && !hangs()) {
      alone = own_runner = true;
      plan.alone = true;
      reporter_.flush(rows);
      grade_alone(row, unjudged, plan,
                  "Graded again with the GPU to itself, in a runner of its own, after a first grading beside "
                  "another grading on the same GPU gave: ");
    }
    if (row.verdict == Verdict::kTimeout && own_runner && alone) hanging_kernels_.insert(row.kernel);
    for (const std::string& flag : row.flags) {
      const auto& accepted = setup_.policy.accepted_flags;
      if (std::find(accepted.begin(), accepted.end(), flag) != accepted.end()) row.accepted_flags.push_back(flag);
    }
    PreparedCase& prepared = *plan.prepared;
    if (row.cusparse_ms && !prepared.cusparse_ms) {
      prepared.cusparse_ms = row.cusparse_ms;
      write_cusparse_cache(settings_, prepared);
    }
  }

  const RowLoopSettings& settings_;
  Setup& setup_;
  CasePreparation& cases_;
  Reporter& reporter_;
  GpuInfo gpu_;
  bool needs_gpu_;
  GradingRunners& runners_;
  const std::int64_t group_entries_;
  RowsGraded steps_;  // where the time went (its other fields set by grade_rows)
  // Kernels that timed out in a runner of their own with the GPU to
  // themselves (graded again alone, or not sharing the GPU).
  std::set<std::string> hanging_kernels_;
};

}  // namespace

std::int64_t group_entries(const MemoryBudget& budget) {
  constexpr std::int64_t kFewest = std::int64_t{64} << 20;
  constexpr std::int64_t kMost = std::int64_t{128} << 20;
  constexpr std::uint64_t kBytesAnEntry = 256;
  // At most 2^63 / 256 entries: no overflow on the way to the clamp.
  return std::clamp(static_cast<std::int64_t>(budget.case_limit() / kBytesAnEntry), kFewest, kMost);
}

RowsGraded grade_rows(const RowLoopSettings& settings, Setup& setup, CasePreparation& cases, Reporter& reporter,
                      const GpuInfo& gpu, bool needs_gpu, GradingRunners& runners, std::vector<RowResult>& rows) {
  Grading grading(settings, setup, cases, reporter, gpu, needs_gpu, runners);
  grading.run(rows);
  RowsGraded graded = grading.steps();
  graded.gpu_missing = grading.gpu_missing();
  return graded;
}

}  // namespace spmv::grade
