// The typed suite of kernels over the format table (spmv/core/
// format_table.hpp): for a format, every kernel of a plugin table that takes
// it runs on the format's own conversion (FormatTraits::from_csr, the
// grader's parameters) of fresh random matrices and is checked against the
// CPU product of the same container (cpu_spmv). The GPU tests run it on the
// reference kernels (test_reference_formats.cpp), the harness test on the
// host reference plugin, without a GPU (test_kernel_harness.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernel_check.hpp"
#include "sparse_test_support.hpp"
#include "spmv/contract/plugin.h"
#include "spmv/core/cpu_spmv.hpp"
#include "spmv/core/format_table.hpp"
#include "spmv/core/golden.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {

// Every format of the table, as the types of a typed suite.
using TableFormats = AsGtestTypes<FormatTable>::type;

// Names the suite's instances after the formats ("Suite/jds").
struct FormatName {
  template <typename Matrix>
  static std::string GetName(int /*index*/) {
    return FormatTraits<Matrix>::name;
  }
};

// The kernels of a plugin's table.
inline std::vector<const spmv_kernel_entry*> kernels_of(const spmv_plugin& plugin) {
  std::vector<const spmv_kernel_entry*> kernels;
  for (std::uint32_t i = 0; i < plugin.kernel_count; ++i) kernels.push_back(&plugin.kernels[i]);
  return kernels;
}

// Those of `kernels` that take format `Matrix`.
template <typename Matrix>
std::vector<const spmv_kernel_entry*> kernels_of_format(const std::vector<const spmv_kernel_entry*>& kernels) {
  std::vector<const spmv_kernel_entry*> of_format;
  for (const spmv_kernel_entry* kernel : kernels) {
    if (static_cast<int>(kernel->format) == FormatTraits<Matrix>::id) of_format.push_back(kernel);
  }
  return of_format;
}

// The kernels' matrices: some rows longer than a block, mostly larger than
// a warp and a block.
inline constexpr TableMatrixLimits kKernelMatrices{.rows = 3000, .cols = 3000, .longest = 2000, .half_band = 40};

// Each of `kernels` (all of format Matrix) against the CPU product on
// `rounds` fresh matrices, uploaded to `space` (the executor's).
template <typename Matrix>
void expect_kernels_match_cpu_product(const std::vector<const spmv_kernel_entry*>& kernels, runner::Executor& executor,
                                      MemorySpace space, int rounds) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < rounds; ++round) {
    const CsrMatrix csr = fresh_table_matrix(rng, kKernelMatrices);
    const std::vector<float> x = random_vector(static_cast<std::size_t>(csr.cols), rng());
    const Matrix form = FormatTraits<Matrix>::from_csr(csr, ConversionLimits{});
    const std::vector<float> product = cpu_spmv(form, x);
    const UploadedMatrix layout(FormatTraits<Matrix>::name, runner::AnyMatrix(form), space);
    for (const spmv_kernel_entry* kernel : kernels) {
      SCOPED_TRACE(std::string("kernel \"") + kernel->name + "\" on " + std::to_string(csr.rows) + " x " +
                   std::to_string(csr.cols) + ", " + std::to_string(csr.nnz()) + " entries");
      expect_matches_product(*kernel, layout, csr, x, product, executor);
    }
  }
}

}  // namespace spmv::test
