// Checks of a plugin's kernel table that need no GPU: the table's shape
// (plugin.h) and the six kernels a submission provides.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "spmv/contract/plugin.h"

namespace spmv::test {

struct ExpectedKernel {
  std::string_view name;
  spmv_format format;
};

// Every submission's table, and a baseline of the same name and format in
// the reference table.
inline constexpr std::array<ExpectedKernel, 6> kSubmissionKernels{{
    {"coo", SPMV_FORMAT_COO},
    {"csr_scalar", SPMV_FORMAT_CSR},
    {"csr_vector", SPMV_FORMAT_CSR},
    {"ell", SPMV_FORMAT_ELL},
    {"hyb", SPMV_FORMAT_HYB},
    {"jds", SPMV_FORMAT_JDS},
}};

inline const spmv_kernel_entry* find_kernel(const spmv_plugin& plugin, std::string_view name) {
  for (std::uint32_t i = 0; i < plugin.kernel_count; ++i) {
    if (plugin.kernels[i].name != nullptr && plugin.kernels[i].name == name) return &plugin.kernels[i];
  }
  return nullptr;
}

// The table as the grader's loader needs it: this build's ABI version,
// device memory, and kernels with unique non-empty names and descriptions,
// a known format and a launch function.
inline void expect_well_formed(const spmv_plugin& plugin, std::string_view expected_name) {
  EXPECT_EQ(plugin.abi_version, SPMV_PLUGIN_ABI_VERSION);
  ASSERT_NE(plugin.name, nullptr);
  EXPECT_EQ(std::string_view(plugin.name), expected_name);
  EXPECT_EQ(plugin.memory, SPMV_MEMORY_DEVICE);
  ASSERT_GT(plugin.kernel_count, 0U);
  ASSERT_NE(plugin.kernels, nullptr);
  std::set<std::string> names;
  for (std::uint32_t i = 0; i < plugin.kernel_count; ++i) {
    const spmv_kernel_entry& kernel = plugin.kernels[i];
    SCOPED_TRACE("kernel entry " + std::to_string(i));
    ASSERT_NE(kernel.name, nullptr);
    EXPECT_NE(std::string_view(kernel.name), "");
    EXPECT_TRUE(names.insert(kernel.name).second) << "kernel name \"" << kernel.name << "\" listed twice";
    ASSERT_NE(kernel.description, nullptr);
    EXPECT_NE(std::string_view(kernel.description), "") << kernel.name;
    EXPECT_GE(kernel.format, SPMV_FORMAT_COO) << kernel.name;
    EXPECT_LE(kernel.format, SPMV_FORMAT_SELL) << kernel.name;
    EXPECT_NE(kernel.launch, nullptr) << kernel.name;
  }
}

}  // namespace spmv::test
