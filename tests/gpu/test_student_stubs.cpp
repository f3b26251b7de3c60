// The student plugin's table and kernels, linked from the student objects
// (the plugin's own, not a copy).
//
// StudentTable needs no GPU. StudentKernels.EachIsAStubOrCorrect runs every
// kernel of the table on the GPU (it is skipped without one): a kernel that
// answers SPMV_NOT_IMPLEMENTED is a stub and must have done nothing (y left
// as the grader fills it, A unchanged, no CUDA error behind it), and any
// other kernel must pass the checks the reference kernels pass
// (expect_matches_golden) on the worked example and on generated matrices.
// The shipped stubs pass as stubs; a stub that writes y yet says "not
// implemented", a launch that returns an error, and a finished kernel with a
// wrong result fail.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernel_check.hpp"
#include "plugin_table_checks.hpp"
#include "sparse_test_support.hpp"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/runner/launch.hpp"
#include "spmv/runner/y_guards.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {
namespace {

TEST(StudentTable, ListsTheSixSubmissionKernels) {
  const spmv_plugin& plugin = *spmv_plugin_entry();
  expect_well_formed(plugin, "student");
  EXPECT_EQ(plugin.kernel_count, kSubmissionKernels.size());
  for (const ExpectedKernel& expected : kSubmissionKernels) {
    const spmv_kernel_entry* kernel = find_kernel(plugin, expected.name);
    ASSERT_NE(kernel, nullptr) << "the student table has no kernel \"" << expected.name << "\"";
    EXPECT_EQ(kernel->format, expected.format) << expected.name;
    EXPECT_EQ(kernel->scratch_size, nullptr) << expected.name << " asks for scratch memory";
  }
}

// Launches `kernel` once on `a` through the run protocol (y poisoned
// between guard zones) and returns what it did. When it says
// SPMV_NOT_IMPLEMENTED, expects that the launch did nothing: no CUDA error,
// y all poison and its guards intact, A and x unchanged.
runner::LaunchStatus launch_as_stub(const spmv_kernel_entry& kernel, const CsrMatrix& a, std::uint64_t seed,
                                    runner::Executor& executor) {
  const std::vector<UploadedMatrix> layouts = uploaded_layouts(kernel.format, a);
  runner::LaunchArea area(executor, layouts.front().uploaded(), &kernel, a.rows, a.cols);
  area.prepare(seed);
  const runner::LaunchStatus launched = area.launch();
  if (launched.status != SPMV_NOT_IMPLEMENTED) return launched;

  EXPECT_EQ(launched.error, 0) << "a stub left a CUDA error behind: " << runner::cuda_error_name(launched.error);
  const std::vector<std::uint32_t> slot = area.slot();
  std::size_t rows_written = 0;
  for (const float y : runner::y_of_slot(slot, a.rows))
    rows_written += std::bit_cast<std::uint32_t>(y) == kPoisonBits ? 0 : 1;
  EXPECT_EQ(rows_written, 0U) << "the kernel reports SPMV_NOT_IMPLEMENTED but wrote " << rows_written << " of "
                              << a.rows << " rows of y: once a kernel is written, it must return the launch's "
                              << "status, not SPMV_NOT_IMPLEMENTED";
  EXPECT_FALSE(runner::inspect_y_guards(runner::guard_before(slot), runner::guard_after(slot, a.rows)).any())
      << "a stub wrote outside y";
  const std::vector<std::string> modified = area.modified_inputs();
  EXPECT_TRUE(modified.empty()) << "a stub wrote to its inputs: " << (modified.empty() ? "" : modified.front());
  return launched;
}

TEST(StudentKernels, EachIsAStubOrCorrect) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the student kernels are run on a GPU only";
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const std::unique_ptr<runner::Executor> executor = runner::make_device_executor(0);
  // The worked example, then matrices larger than a warp and a block, with
  // empty rows and rows far longer than the mean.
  const std::vector<CsrMatrix> matrices{
      TeachingKit::csr(),
      gen::with_empty_rows(gen::power_law(3000, 2500, 1.6, 900, seed), 0.1, seed),
      gen::uniform_random(70, 40, 5, seed + 1),
  };
  const spmv_plugin& plugin = *spmv_plugin_entry();
  int stubs = 0;
  for (std::uint32_t i = 0; i < plugin.kernel_count; ++i) {
    const spmv_kernel_entry& kernel = plugin.kernels[i];
    SCOPED_TRACE(std::string("student kernel ") + kernel.name);
    const runner::LaunchStatus launched = launch_as_stub(kernel, matrices.front(), seed, *executor);
    if (launched.status == SPMV_NOT_IMPLEMENTED) {
      ++stubs;
      continue;
    }
    if (!launched.ok()) {
      ADD_FAILURE() << "the launch " << runner::describe_launch(launched)
                    << "; a kernel returns SPMV_SUCCESS, or SPMV_NOT_IMPLEMENTED while it is a stub";
      continue;
    }
    for (std::size_t m = 0; m < matrices.size(); ++m) {
      const CsrMatrix& a = matrices[m];
      const std::uint64_t x_seed = seed ^ (0x9e3779b97f4a7c15ULL * (m + 1));
      const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), x_seed);
      expect_matches_golden(kernel, uploaded_layouts(kernel.format, a), a, x, *executor);
    }
  }
  RecordProperty("stubs", stubs);
}

}  // namespace
}  // namespace spmv::test
