#include "kernel_check.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <span>
#include <sstream>
#include <string_view>

#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/runner/launch.hpp"
#include "spmv/runner/y_guards.hpp"

namespace spmv::test {
namespace {

struct LaunchOutcome {
  std::vector<float> y;
  std::string problems;  // empty when the run is acceptable
};

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// One run as the grader's runner makes it, and what is wrong with it.
// Inputs are checked after each run: a kernel that flips x back and forth
// leaves it intact after an even number of runs.
LaunchOutcome run_once(const spmv_kernel_entry& kernel, const UploadedMatrix& layout, runner::Executor& executor,
                       const CsrMatrix& a, const std::vector<float>& x, const GoldenResult& golden) {
  runner::LaunchArea area(executor, layout.uploaded(), &kernel, a.rows, a.cols);
  area.prepare(std::span<const float>(x));
  const runner::LaunchStatus status = area.launch();
  LaunchOutcome outcome;
  if (!status.ok()) {
    outcome.problems = "the launch " + runner::describe_launch(status);
    return outcome;
  }
  const std::vector<std::uint32_t> slot = area.slot();
  outcome.y = runner::y_of_slot(slot, a.rows);
  outcome.problems = runner::describe_y_guards(
      runner::inspect_y_guards(runner::guard_before(slot), runner::guard_after(slot, a.rows)), a.rows);
  const ToleranceVerdict verdict = check_result(a, x, golden, outcome.y);
  if (!verdict.passed) outcome.problems += verdict.describe();
  const std::vector<std::string> modified = area.modified_inputs();
  if (!modified.empty()) outcome.problems += " The kernel wrote to its inputs: " + joined(modified) + ".";
  return outcome;
}

std::string first_difference(const std::vector<float>& first, const std::vector<float>& second) {
  for (std::size_t row = 0; row < first.size(); ++row) {
    if (std::bit_cast<std::uint32_t>(first[row]) != std::bit_cast<std::uint32_t>(second[row])) {
      std::ostringstream text;
      text.precision(9);
      text << "row " << row << ": first run " << first[row] << ", second run " << second[row];
      return text.str();
    }
  }
  return "";
}

}  // namespace

// A switch, so that a new format needs a decision here (-Wswitch).
bool may_vary_between_runs(const spmv_kernel_entry& kernel) {
  // The merge path adds a row cut by tile boundaries atomically: a row
  // spanning three or more tiles sums in arrival order (auto may pick it).
  const std::string_view name = kernel.name;
  if (name == "csr_merge" || name == "auto") return true;
  switch (kernel.format) {
    case SPMV_FORMAT_COO:
    case SPMV_FORMAT_HYB: return true;  // atomics add in whatever order threads arrive
    case SPMV_FORMAT_CSR:
    case SPMV_FORMAT_ELL:
    case SPMV_FORMAT_JDS:
    case SPMV_FORMAT_SELL: return false;  // each row's sum has one owner and one order
  }
  return false;  // an unknown format: the strict check
}

std::vector<std::vector<float>> expect_matches_golden(const spmv_kernel_entry& kernel,
                                                      const std::vector<UploadedMatrix>& layouts, const CsrMatrix& a,
                                                      const std::vector<float>& x, runner::Executor& executor) {
  const GoldenResult golden = golden_spmv(a, x);
  std::vector<std::vector<float>> first_runs;
  for (const UploadedMatrix& layout : layouts) {
    SCOPED_TRACE("kernel \"" + std::string(kernel.name) + "\" on " + layout.label() + ", " + std::to_string(a.rows) +
                 " x " + std::to_string(a.cols) + ", " + std::to_string(a.nnz()) + " entries");
    EXPECT_EQ(layout.format(), kernel.format) << "the test built a layout of another format than the kernel's";
    const LaunchOutcome first = run_once(kernel, layout, executor, a, x, golden);
    EXPECT_EQ(first.problems, "") << "first run";
    const LaunchOutcome second = run_once(kernel, layout, executor, a, x, golden);
    EXPECT_EQ(second.problems, "") << "second run, same input";
    if (first.problems.empty() && second.problems.empty() && !may_vary_between_runs(kernel)) {
      EXPECT_EQ(first_difference(first.y, second.y), "")
          << "two runs on the same input differ bit for bit (a race, or reading y before writing it)";
    }
    first_runs.push_back(first.y);
  }
  return first_runs;
}

void expect_matches_product(const spmv_kernel_entry& kernel, const UploadedMatrix& layout, const CsrMatrix& a,
                            const std::vector<float>& x, const std::vector<float>& product,
                            runner::Executor& executor) {
  GoldenResult rounded = golden_spmv(a, x);
  rounded.y.assign(product.begin(), product.end());
  EXPECT_EQ(run_once(kernel, layout, executor, a, x, rounded).problems, "");
}

}  // namespace spmv::test
