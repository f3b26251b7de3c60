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
#include "spmv/core/generators.hpp"
#include "spmv/core/golden.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {

template <typename List>
struct AsGtestTypes;
template <typename... Matrices>
struct AsGtestTypes<FormatList<Matrices...>> {
  using type = ::testing::Types<Matrices...>;
};
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

// A fresh random matrix: rows of power-law lengths (some longer than a
// block) or a band, some rows emptied; mostly larger than a warp and a block.
inline CsrMatrix fresh_table_matrix(std::mt19937_64& rng) {
  const auto between = [&rng](index_t low, index_t high) {
    return std::uniform_int_distribution<index_t>(low, high)(rng);
  };
  const index_t rows = between(1, 3000);
  const CsrMatrix full = std::bernoulli_distribution(0.5)(rng)
                             ? gen::power_law(rows, between(1, 3000), 1.5, between(1, 2000), rng())
                             : gen::banded(rows, between(0, 40), rng());
  return gen::with_empty_rows(full, std::uniform_real_distribution<double>(0.0, 0.4)(rng), rng());
}

// Each of `kernels` (all of format Matrix) against the CPU product on
// `rounds` fresh matrices, uploaded to `space` (the executor's).
template <typename Matrix>
void expect_kernels_match_cpu_product(const std::vector<const spmv_kernel_entry*>& kernels, runner::Executor& executor,
                                      MemorySpace space, int rounds) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < rounds; ++round) {
    const CsrMatrix csr = fresh_table_matrix(rng);
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
