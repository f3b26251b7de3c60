// GPU conformance of every kernel in the reference plugin's table: each one
// runs on the course's worked examples (expected y written out), on edge
// cases and on generated matrices larger than a warp and a block, against
// the golden result. The table is iterated, so a kernel added to
// reference/reference_table.cpp is tested here without touching this file.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernel_check.hpp"
#include "matrix_cases.hpp"
#include "sparse_test_support.hpp"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/golden.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {
namespace {

// ---------------------------------------------------------------------------
// The worked 4x4 examples, with x = (1, 2, 3, 4): small integers, so every
// summation order gives exactly the y written out below.

const std::vector<float> kOneToFour{1, 2, 3, 4};

// The example's arrays as written in the course material, plus the layouts
// the host conversions build from its CSR form.
template <typename Example>
std::vector<UploadedMatrix> example_layouts(spmv_format format) {
  std::vector<UploadedMatrix> layouts = uploaded_layouts(format, Example::csr());
  switch (format) {
    case SPMV_FORMAT_COO: layouts.emplace_back("coo as drawn", Example::coo()); break;
    case SPMV_FORMAT_CSR: break;  // CSR is the example's own form
    case SPMV_FORMAT_ELL: layouts.emplace_back("ell as drawn", Example::ell()); break;
    case SPMV_FORMAT_HYB: layouts.emplace_back("hyb of ELL width 2 as drawn", Example::hyb_width_2()); break;
    case SPMV_FORMAT_JDS: layouts.emplace_back("jds as drawn", Example::jds()); break;
    case SPMV_FORMAT_SELL: layouts.emplace_back("sell of C 2, sigma 4 as drawn", Example::sell_c2_sigma4()); break;
    default: break;  // uploaded_layouts has already refused the format
  }
  return layouts;
}

template <typename Example>
void expect_example_result(const spmv_kernel_entry& kernel, const std::vector<float>& expected,
                           runner::Executor& executor) {
  const auto results =
      expect_matches_golden(kernel, example_layouts<Example>(kernel.format), Example::csr(), kOneToFour, executor);
  for (const std::vector<float>& y : results) EXPECT_EQ(y, expected);
}

void teaching_kit_matrix(const spmv_kernel_entry& kernel, runner::Executor& executor) {
  // rows (3 0 1 0), (0 0 0 0), (0 2 4 1), (1 0 0 1)
  expect_example_result<TeachingKit>(kernel, {3 + 3, 0, 4 + 12 + 4, 1 + 4}, executor);
}

void textbook_figure_14_1_matrix(const spmv_kernel_entry& kernel, runner::Executor& executor) {
  // rows (1 7 . .), (5 . 3 9), (. 2 8 .), (. . . 6)
  expect_example_result<TextbookFigure14_1>(kernel, {1 + 14, 5 + 9 + 36, 4 + 24, 24}, executor);
}

// ---------------------------------------------------------------------------
// Edge cases and generated matrices (matrix_cases.cpp), each drawn from a
// fresh seed, with a fresh x.

void expect_case_matches_golden(const spmv_kernel_entry& kernel, const MatrixCase& matrix_case,
                                runner::Executor& executor) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = matrix_case.make(seed);
  const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), seed ^ 0x9e3779b97f4a7c15ULL);
  expect_matches_golden(kernel, uploaded_layouts(kernel.format, a), a, x, executor);
}

// ---------------------------------------------------------------------------
// One test per kernel and example or case, named
// ReferenceKernel_<kernel>.<example or case>. Registered from the table at
// start-up (rather than as value-parameterized tests) so the names are
// exactly these, whatever CTest's test discovery makes of parameters.

class ReferenceKernelTest : public testing::Test {
 public:
  using Body = std::function<void(const spmv_kernel_entry&, runner::Executor&)>;
  ReferenceKernelTest(const spmv_kernel_entry& kernel, Body body) : kernel_(kernel), body_(std::move(body)) {}

 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the kernels are tested on a GPU only";
    executor_ = runner::make_device_executor(0);
  }
  void TestBody() override { body_(kernel_, *executor_); }

 private:
  const spmv_kernel_entry& kernel_;
  Body body_;
  std::unique_ptr<runner::Executor> executor_;
};

void register_test(const spmv_kernel_entry& kernel, const std::string& name, ReferenceKernelTest::Body body) {
  const std::string suite = std::string("ReferenceKernel_") + kernel.name;
  testing::RegisterTest(
      suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
      [&kernel, body = std::move(body)]() -> testing::Test* { return new ReferenceKernelTest(kernel, body); });
}

const bool kTestsRegistered = [] {
  const spmv_plugin* plugin = spmv_plugin_entry();
  for (std::uint32_t i = 0; i < plugin->kernel_count; ++i) {
    const spmv_kernel_entry& kernel = plugin->kernels[i];
    register_test(kernel, "TeachingKitMatrix", teaching_kit_matrix);
    register_test(kernel, "TextbookFigure14_1Matrix", textbook_figure_14_1_matrix);
    for (const MatrixCase& matrix_case : matrix_cases()) {
      register_test(kernel, matrix_case.name, [&matrix_case](const spmv_kernel_entry& k, runner::Executor& e) {
        expect_case_matches_golden(k, matrix_case, e);
      });
    }
  }
  return true;
}();

}  // namespace
}  // namespace spmv::test
