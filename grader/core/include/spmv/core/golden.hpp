// The golden result: y = A * x in fp64 from the CSR form, with the per-row
// data the tolerance check needs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv {

struct GoldenResult {
  std::vector<double> y;         // sum_j a_ij * x_j, in fp64
  std::vector<double> abs_sum;   // sum_j |a_ij * x_j|, the error bound's scale
  std::vector<index_t> row_nnz;  // entries of each row (n_i in gamma(n_i))
};

// Throws std::invalid_argument if x.size() != a.cols.
GoldenResult golden_spmv(const CsrMatrix& a, std::span<const float> x);

// x of `size` values, deterministic for `seed`, uniform in [-1, -0.25] U
// [0.25, 1] (never zero, so a missing term always changes the result).
std::vector<float> random_vector(std::size_t size, std::uint64_t seed);

}  // namespace spmv
