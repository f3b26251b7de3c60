#include "spmv/core/golden.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "random_stream.hpp"

namespace spmv {
namespace {

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

}  // namespace

GoldenResult golden_spmv(const CsrMatrix& a, std::span<const float> x) {
  if (x.size() != static_cast<std::size_t>(a.cols)) {
    throw std::invalid_argument("golden_spmv: x has " + std::to_string(x.size()) +
                                " values, expected one per column (" + std::to_string(a.cols) + ")");
  }
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1) {
    throw std::invalid_argument("golden_spmv: row_ptr has " + std::to_string(a.row_ptr.size()) +
                                " entries, expected rows + 1 = " + std::to_string(a.rows + 1));
  }
  const auto rows = static_cast<std::size_t>(a.rows);
  GoldenResult result;
  result.y.resize(rows);
  result.abs_sum.resize(rows);
  result.row_nnz.resize(rows);
  for (std::size_t row = 0; row < rows; ++row) {
    const index_t begin = a.row_ptr[row];
    const index_t end = a.row_ptr[row + 1];
    CompensatedSum sum;
    // All terms of abs_sum are non-negative, so plain summation is accurate
    // to n * 2^-53 relative: ample for a bound that is itself an estimate.
    double abs_sum = 0;
    for (index_t k = begin; k < end; ++k) {
      const double term = static_cast<double>(a.values[k]) * static_cast<double>(x[a.col_idx[k]]);
      sum.add(term);
      abs_sum += std::fabs(term);
    }
    result.y[row] = sum.value();
    result.abs_sum[row] = abs_sum;
    result.row_nnz[row] = end - begin;
  }
  return result;
}

// The library's splitmix64 stream: value i is RandomStream::nonzero_value()
// of bits = mix(seed + (i + 1) * 0x9e3779b97f4a7c15), i.e.
//   x_i = (bit 0 of bits ? -1 : +1) * (0.25 + 0.75 * (bits >> 11) * 2^-53)
// rounded to float, so |x_i| lies in [0.25, 1]. Each value depends on
// (seed, i) only: a device kernel can reproduce any index on its own.
std::vector<float> random_vector(std::size_t size, std::uint64_t seed) {
  detail::RandomStream stream(seed);
  std::vector<float> x(size);
  for (float& value : x) {
    value = stream.nonzero_value();
  }
  return x;
}

}  // namespace spmv
