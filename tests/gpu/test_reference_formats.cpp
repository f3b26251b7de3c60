// The reference kernels of every format of the format table
// (spmv/core/format_table.hpp), by type: each kernel of the reference
// plugin's table that takes the format runs, as the grader's runner runs it,
// on the format's own conversion of fresh random matrices, against the CPU
// product of the same container (format_suite.hpp). A format added to the
// table is tested here with no change to this file, and a format with no
// reference kernel fails.
#include <gtest/gtest.h>

#include <memory>

#include "format_suite.hpp"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/runner/executor.hpp"

namespace spmv::test {
namespace {

// Needs no GPU: the table's format has a kernel to test.
template <typename Matrix>
class ReferenceFormatTable : public ::testing::Test {};
TYPED_TEST_SUITE(ReferenceFormatTable, TableFormats, FormatName);

TYPED_TEST(ReferenceFormatTable, HasAReferenceKernel) {
  EXPECT_FALSE(kernels_of_format<TypeParam>(kernels_of(*spmv_plugin_entry())).empty())
      << "the reference plugin has no kernel of format " << FormatTraits<TypeParam>::name;
}

template <typename Matrix>
class ReferenceFormatKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the kernels are tested on a GPU only";
    executor_ = runner::make_device_executor(0);
  }
  std::unique_ptr<runner::Executor> executor_;
};
TYPED_TEST_SUITE(ReferenceFormatKernels, TableFormats, FormatName);

TYPED_TEST(ReferenceFormatKernels, MatchTheCpuProductOnRandomMatrices) {
  const auto kernels = kernels_of_format<TypeParam>(kernels_of(*spmv_plugin_entry()));
  ASSERT_FALSE(kernels.empty());
  expect_kernels_match_cpu_product<TypeParam>(kernels, *this->executor_, MemorySpace::kDevice, 4);
}

}  // namespace
}  // namespace spmv::test
