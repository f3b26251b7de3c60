// The reference plugin's table, read from the reference kernels library
// (no GPU needed: nothing is launched).
#include <gtest/gtest.h>

#include "plugin_table_checks.hpp"
#include "spmv/contract/plugin_table.hpp"

namespace spmv::test {
namespace {

TEST(ReferenceTable, IsWellFormed) { expect_well_formed(*spmv_plugin_entry(), "reference"); }

TEST(ReferenceTable, HasABaselineForEverySubmissionKernel) {
  for (const ExpectedKernel& expected : kSubmissionKernels) {
    const spmv_kernel_entry* kernel = find_kernel(*spmv_plugin_entry(), expected.name);
    ASSERT_NE(kernel, nullptr) << "the reference table has no kernel \"" << expected.name << "\"";
    EXPECT_EQ(kernel->format, expected.format) << expected.name;
  }
}

}  // namespace
}  // namespace spmv::test
