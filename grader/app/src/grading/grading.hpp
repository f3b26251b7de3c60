// The row loop of a grading: each case prepared once (ahead, on other
// cores, on the GPU), its rows graded in order, each through a submission
// runner started ahead of its turn (--prestart), the reports kept current
// after every row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "cli/options.hpp"
#include "grading/grading_runners.hpp"
#include "grading/setup.hpp"
#include "reports/reporter.hpp"
#include "rows/row.hpp"
#include "runners/probe.hpp"

namespace spmv::grade {

struct RowsGraded {
  int cases_checked_on_host = 0;  // without a GPU: cases read, converted and checked
  double case_wait_s = 0;         // seconds the grading waited for cases to be prepared
  bool gpu_missing = false;       // a device grading found no GPU: its rows are skipped
};

// Grades the planned `rows` but those `done` already, under `setup` and the
// options' measuring and prestart settings; `run_seed` seeds the cases' x.
RowsGraded grade_rows(const Options& options, Setup& setup, Reporter& reporter, const GpuInfo& gpu, bool needs_gpu,
                      GradingRunners& runners, std::vector<RowResult>& rows, std::uint64_t run_seed,
                      const std::set<std::size_t>& done);

}  // namespace spmv::grade
