// The harness of the GPU kernel tests (kernel_check.hpp), shown to work on a
// machine without a GPU: run over host memory on the host-path plugins
// (grader/hostpath: every kernel on the CPU), it must accept the correct
// plugin and, in every kernel, catch each fault of the fake submissions that
// can be caught inside the test process (crashes and hangs are the grader's
// isolation's business).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "format_suite.hpp"
#include "kernel_check.hpp"
#include "matrix_cases.hpp"
#include "sparse_test_support.hpp"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/plugin/plugin.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {
namespace {

Plugin load_host_plugin(const std::string& file) {
  return Plugin::load(std::filesystem::path(SPMV_BINARY_DIR) / "plugins" / file);
}

// The messages of every failure the harness reports for `kernel` on each
// of `matrices`, caught instead of failing this test.
std::vector<std::string> harness_failures(const spmv_kernel_entry& kernel, const std::vector<CsrMatrix>& matrices,
                                          std::uint64_t seed) {
  testing::TestPartResultArray results;
  const std::unique_ptr<runner::Executor> host = runner::make_host_executor();
  {
    const testing::ScopedFakeTestPartResultReporter intercept(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    for (const CsrMatrix& a : matrices) {
      const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), seed);
      expect_matches_golden(kernel, uploaded_layouts(kernel.format, a, MemorySpace::kHost), a, x, *host);
    }
  }
  std::vector<std::string> failures;
  for (int i = 0; i < results.size(); ++i) {
    if (results.GetTestPartResult(i).failed()) failures.emplace_back(results.GetTestPartResult(i).message());
  }
  return failures;
}

// The teaching-kit matrix and a random one: enough for every fault to show.
std::vector<std::string> harness_failures(const spmv_kernel_entry& kernel, std::uint64_t seed) {
  return harness_failures(kernel, {TeachingKit::csr(), gen::uniform_random(300, 200, 5, seed)}, seed);
}

std::string joined(const std::vector<std::string>& messages) {
  std::string text;
  for (const std::string& message : messages) text += "\n---\n" + message;
  return text.empty() ? "(no failure)" : text;
}

// Every case of the GPU tests, so that the cases themselves (generator
// arguments, conversions that must not refuse, sizes) are checked on any
// machine, and the correct kernels they expect pass.
TEST(KernelHarness, AcceptsTheHostReferenceOnEveryGpuTestCase) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const Plugin plugin = load_host_plugin("libspmv_host_reference.so");
  for (const MatrixCase& matrix_case : matrix_cases()) {
    SCOPED_TRACE(matrix_case.name);
    const std::vector<CsrMatrix> matrix{matrix_case.make(seed)};
    for (const spmv_kernel_entry* kernel : plugin.kernels()) {
      SCOPED_TRACE(kernel->name);
      const std::vector<std::string> failures = harness_failures(*kernel, matrix, seed);
      EXPECT_TRUE(failures.empty()) << joined(failures);
    }
  }
}

// Expects the harness to fail every kernel of fake `fault` with a message
// containing `reported_as`.
void expect_fault_caught(const std::string& fault, const std::string& reported_as) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const Plugin plugin = load_host_plugin("fakes/libspmv_fake_" + fault + ".so");
  for (const spmv_kernel_entry* kernel : plugin.kernels()) {
    SCOPED_TRACE(kernel->name);
    const std::vector<std::string> failures = harness_failures(*kernel, seed);
    const bool caught = std::any_of(failures.begin(), failures.end(), [&](const std::string& message) {
      return message.find(reported_as) != std::string::npos;
    });
    EXPECT_TRUE(caught) << "expected a failure mentioning \"" << reported_as << "\", got:" << joined(failures);
  }
}

// Host CSR kernels with faults the fakes do not have, for the checks that
// only the harness makes.
void csr_multiply(const spmv_csr_view& a, const float* x, float* y) {
  for (std::int32_t row = 0; row < a.rows; ++row) {
    float sum = 0.0F;
    for (std::int32_t j = a.row_ptr[row]; j < a.row_ptr[row + 1]; ++j) sum += a.values[j] * x[a.col_idx[j]];
    y[row] = sum;
  }
}

spmv_status writes_to_values(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  csr_multiply(*a, x, y);
  if (a->nnz > 0) const_cast<float*>(a->values)[0] *= 2.0F;
  return SPMV_SUCCESS;
}

// Within tolerance, but every other call one row is one unit in the last
// place off: what a race between summation orders looks like.
spmv_status wobbles_by_one_ulp(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  static int calls = 0;
  csr_multiply(*a, x, y);
  if (++calls % 2 == 0 && a->rows > 0) y[0] = std::nextafter(y[0], INFINITY);
  return SPMV_SUCCESS;
}

TEST(KernelHarness, CatchesAWriteToA) {
  constexpr spmv_kernel_entry kernel = contract::kernel_entry<&writes_to_values>("csr_scalar", "writes A");
  const std::vector<std::string> failures = harness_failures(kernel, fresh_seed());
  EXPECT_TRUE(std::any_of(failures.begin(), failures.end(), [](const std::string& message) {
    return message.find("inputs: values") != std::string::npos;
  })) << joined(failures);
}

TEST(KernelHarness, CatchesRunsThatDifferBitForBit) {
  constexpr spmv_kernel_entry kernel = contract::kernel_entry<&wobbles_by_one_ulp>("csr_vector", "wobbles");
  const std::vector<std::string> failures = harness_failures(kernel, fresh_seed());
  EXPECT_TRUE(std::any_of(failures.begin(), failures.end(), [](const std::string& message) {
    return message.find("differ bit for bit") != std::string::npos;
  })) << joined(failures);
}

TEST(KernelHarness, CatchesAMissingTerm) { expect_fault_caught("wrong_element", "rows wrong"); }
TEST(KernelHarness, CatchesAnUnwrittenRow) { expect_fault_caught("unwritten_row", "never written"); }
TEST(KernelHarness, CatchesDoubledRows) { expect_fault_caught("doubled", "rows wrong"); }
TEST(KernelHarness, CatchesWritesOutsideY) { expect_fault_caught("oob_write", "written before y[0]"); }
TEST(KernelHarness, CatchesAWriteToX) { expect_fault_caught("modifies_input", "inputs: x"); }
TEST(KernelHarness, CatchesAResultThatMovesBetweenRuns) { expect_fault_caught("nondeterministic", "second run"); }
TEST(KernelHarness, CatchesNotImplemented) { expect_fault_caught("not_implemented", "SPMV_NOT_IMPLEMENTED"); }
TEST(KernelHarness, CatchesALaunchError) { expect_fault_caught("launch_error", "cudaErrorLaunchFailure"); }

// The typed suite over the format table (format_suite.hpp), on the host
// reference plugin: the kernels of every format pass it, and a fake whose
// kernels drop a term of each row fails it in every format.
template <typename Matrix>
class HostFormatSuite : public ::testing::Test {
 protected:
  // The failures the suite reports for `plugin`'s kernels of this format.
  static std::vector<std::string> suite_failures(const Plugin& plugin) {
    const std::vector<const spmv_kernel_entry*> of_format = kernels_of_format<Matrix>(plugin.kernels());
    EXPECT_FALSE(of_format.empty()) << "the plugin has no kernel of format " << FormatTraits<Matrix>::name;
    testing::TestPartResultArray results;
    const std::unique_ptr<runner::Executor> host = runner::make_host_executor();
    {
      const testing::ScopedFakeTestPartResultReporter intercept(
          testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
      expect_kernels_match_cpu_product<Matrix>(of_format, *host, MemorySpace::kHost, 3);
    }
    std::vector<std::string> failures;
    for (int i = 0; i < results.size(); ++i) {
      if (results.GetTestPartResult(i).failed()) failures.emplace_back(results.GetTestPartResult(i).message());
    }
    return failures;
  }
};
TYPED_TEST_SUITE(HostFormatSuite, TableFormats, FormatName);

TYPED_TEST(HostFormatSuite, AcceptsTheHostReference) {
  const std::vector<std::string> failures = this->suite_failures(load_host_plugin("libspmv_host_reference.so"));
  EXPECT_TRUE(failures.empty()) << joined(failures);
}

TYPED_TEST(HostFormatSuite, CatchesAMissingTerm) {
  const std::vector<std::string> failures =
      this->suite_failures(load_host_plugin("fakes/libspmv_fake_wrong_element.so"));
  EXPECT_TRUE(std::any_of(failures.begin(), failures.end(), [](const std::string& message) {
    return message.find("rows wrong") != std::string::npos;
  })) << joined(failures);
}

}  // namespace
}  // namespace spmv::test
