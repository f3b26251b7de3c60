// The row loop of a grading: each case prepared once (ahead, on other
// cores, on the GPU), its rows graded in order, each through a submission
// runner started ahead of its turn (--prestart), the reports kept current
// after every row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <vector>

#include "grading/case_preparation.hpp"
#include "grading/grading_runners.hpp"
#include "grading/setup.hpp"
#include "model/row.hpp"
#include "reports/reporter.hpp"
#include "rows/reference_memo.hpp"
#include "runners/probe.hpp"
#include "spmv/core/memory_fit.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::grade {

struct RowsGraded {
  int cases_checked_on_host = 0;  // without a GPU: cases read, converted and checked
  double case_wait_s = 0;         // seconds the grading waited for cases to be prepared
  // Seconds in each step of the kernels' gradings (kernel_grading.hpp):
  // their checks (all of a group's kernels at once), the reference's
  // windows, the submission's timing runners, and rows graded again alone.
  double checking_s = 0;
  double reference_s = 0;
  double settle_s = 0;  // of reference_s: waiting for the kernels' runners to be gone
  double timing_s = 0;
  double alone_s = 0;
  bool gpu_missing = false;  // a device grading found no GPU: its rows are skipped
};

// What the row loop takes of spmv-grade's options.
struct RowLoopSettings {
  std::optional<std::filesystem::path> journal;  // CTest mode: cuSPARSE's time kept beside the journals
  std::filesystem::path output_dir;              // each row's log in its logs/
  int device = 0;                                // the GPU the health check probes
  int prestart = 0;                              // runners started ahead of their row
  double timeout_s = 60;                         // a row's runner calls
  runner::TimingOptions timing;
  bool cusparse = true;  // cuSPARSE timed once a case, as context
  // cuSPARSE's time on each case kept here, for the other gradings of the
  // same cases on the same GPU (--cusparse-cache); else beside the journals.
  std::optional<std::filesystem::path> cusparse_cache;
  // The reference's windows kept for the gradings on the same GPU (--gpu-cache).
  const ReferenceMemo* memo = nullptr;
};

// The matrix entries one group of cases holds at most (its cases prepared,
// their images and golden results in the grader's memory at once; any
// number of small cases, one large one): 256 bytes an entry (about three
// times what a case of every format takes) within what one case may use
// on this machine, and never fewer than 64 M nor more than 128 M entries.
// A group costs each kernel a runner and the reference its windows: one
// group for a set of large cases where the machine holds them. At most
// twice the 64 M of a small machine, since a grading may share its machine
// with others that each see all of it (grade-class runs several at once).
std::int64_t group_entries(const MemoryBudget& budget);

// Grades the planned `rows` that `cases` has rows of (those not done
// already), under `setup` and `settings`.
RowsGraded grade_rows(const RowLoopSettings& settings, Setup& setup, CasePreparation& cases, Reporter& reporter,
                      const GpuInfo& gpu, bool needs_gpu, GradingRunners& runners, std::vector<RowResult>& rows);

}  // namespace spmv::grade
