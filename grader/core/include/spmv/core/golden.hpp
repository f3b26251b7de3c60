// The golden result: y = A * x in fp64 from the CSR form, with the per-row
// data the tolerance check needs.
#pragma once

#include <cmath>
#include <cstddef>
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

namespace detail {

// Neumaier's variant of compensated summation: the running error term keeps
// the bits each addition rounds away, so the row sum is as accurate as if it
// were accumulated in about twice the precision of double. The products
// a_ij * x_j of two floats are exact in double (24 + 24 < 53 bits), so the
// only rounding left is the final one: the golden value is then far more
// accurate than the fp32 tolerance it is compared with, whatever the order
// of the row's entries or how much they cancel.
class CompensatedSum {
 public:
  // Each addition's rounding error, exactly, by Knuth's two-sum: the same
  // error as the ordered form (the larger operand first), without its
  // branch, which the signs and sizes of a row's terms make unpredictable
  // (on a random matrix of a million rows of 5, 2.5-4x the time of the
  // whole product, with the same bits in every row).
  void add(double term) {
    const double total = sum_ + term;
    const double term_part = total - sum_;
    lost_ += (sum_ - (total - term_part)) + (term - term_part);
    sum_ = total;
  }
  // An infinite or NaN term (a matrix read with allow_nonfinite) makes the
  // error term NaN; the plain sum is then the result any order gives.
  [[nodiscard]] double value() const { return std::isfinite(sum_) ? sum_ + lost_ : sum_; }

 private:
  double sum_ = 0;
  double lost_ = 0;
};

}  // namespace detail

// One row of the golden result: what golden_spmv keeps of row `row` (x and
// the row in range are the caller's to ensure).
struct GoldenRow {
  double y = 0;
  double abs_sum = 0;
  index_t nnz = 0;
};
inline GoldenRow golden_row(const CsrMatrix& a, std::span<const float> x, index_t row) {
  const index_t begin = a.row_ptr[static_cast<std::size_t>(row)];
  const index_t end = a.row_ptr[static_cast<std::size_t>(row) + 1];
  detail::CompensatedSum sum;
  // All terms of abs_sum are non-negative, so plain summation is accurate
  // to n * 2^-53 relative: ample for a bound that is itself an estimate.
  double abs_sum = 0;
  for (index_t k = begin; k < end; ++k) {
    const auto entry = static_cast<std::size_t>(k);
    const double term =
        static_cast<double>(a.values[entry]) * static_cast<double>(x[static_cast<std::size_t>(a.col_idx[entry])]);
    sum.add(term);
    abs_sum += std::fabs(term);
  }
  return {sum.value(), abs_sum, end - begin};
}

// x of `size` values, deterministic for `seed`, uniform in [-1, -0.25] U
// [0.25, 1] (never zero, so a missing term always changes the result).
std::vector<float> random_vector(std::size_t size, std::uint64_t seed);

}  // namespace spmv
