// The student plugin's table and stubs, linked from the student objects
// (no GPU needed: an unfinished stub launches nothing).
//
// StudentStubs.EveryKernelReportsNotImplemented describes the shipped
// student/ folder: once a kernel there is implemented, the test is skipped
// and names it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "plugin_table_checks.hpp"
#include "spmv/contract/plugin_table.hpp"

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

// A view of each format describing a 0 x 0 matrix (null arrays): a stub
// returns at once, and an implemented kernel has nothing to read or write,
// so even a finished student/ folder never faults here.
const void* null_view(spmv_format format) {
  static const spmv_coo_view coo{};
  static const spmv_csr_view csr{};
  static const spmv_ell_view ell{};
  static const spmv_hyb_view hyb{};
  static const spmv_jds_view jds{};
  switch (format) {
    case SPMV_FORMAT_COO: return &coo;
    case SPMV_FORMAT_CSR: return &csr;
    case SPMV_FORMAT_ELL: return &ell;
    case SPMV_FORMAT_HYB: return &hyb;
    case SPMV_FORMAT_JDS: return &jds;
    default: return nullptr;
  }
}

TEST(StudentStubs, EveryKernelReportsNotImplemented) {
  const spmv_plugin& plugin = *spmv_plugin_entry();
  std::string implemented;
  for (std::uint32_t i = 0; i < plugin.kernel_count; ++i) {
    const spmv_kernel_entry& kernel = plugin.kernels[i];
    const void* view = null_view(kernel.format);
    ASSERT_NE(view, nullptr) << kernel.name << ": no view for format " << kernel.format;
    if (kernel.launch(view, nullptr, nullptr, nullptr, nullptr) != SPMV_NOT_IMPLEMENTED) {
      implemented += std::string(implemented.empty() ? "" : ", ") + kernel.name;
    }
  }
  // A student's own clone is not the shipped folder: once they implement a
  // kernel this check no longer applies (the grader judges their kernels).
  if (!implemented.empty()) GTEST_SKIP() << "student kernels implemented: " << implemented;
}

}  // namespace
}  // namespace spmv::test
