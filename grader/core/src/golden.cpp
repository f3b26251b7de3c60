#include "spmv/core/golden.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

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
  void add(double term) {
    const double total = sum_ + term;
    if (std::fabs(sum_) >= std::fabs(term)) {
      lost_ += (sum_ - total) + term;
    } else {
      lost_ += (term - total) + sum_;
    }
    sum_ = total;
  }
  [[nodiscard]] double value() const { return sum_ + lost_; }

 private:
  double sum_ = 0;
  double lost_ = 0;
};

// SplitMix64's output function: a bijection of 64-bit integers whose output
// bits each depend on every input bit, so consecutive counters give
// independent-looking values.
std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

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

// Value i depends only on (seed, i): z = splitmix64_mix(seed + (i + 1) * phi)
// with phi = 0x9e3779b97f4a7c15 (SplitMix64's increment). The top 24 bits of
// z give u in [0, 1) and the lowest bit the sign:
//   x_i = (bit 0 ? -1 : +1) * (0.25 + 0.75 * u)   rounded to float,
// so |x_i| lies in [0.25, 1]. Any index can be computed on its own, e.g. by
// a device kernel reproducing the same vector.
std::vector<float> random_vector(std::size_t size, std::uint64_t seed) {
  constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;
  constexpr double kTwoToMinus24 = 1.0 / 16777216.0;
  std::vector<float> x(size);
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint64_t z = splitmix64_mix(seed + (static_cast<std::uint64_t>(i) + 1) * kGoldenGamma);
    const double u = static_cast<double>(z >> 40) * kTwoToMinus24;
    const double magnitude = 0.25 + 0.75 * u;
    x[i] = static_cast<float>((z & 1U) != 0 ? -magnitude : magnitude);
  }
  return x;
}

}  // namespace spmv
