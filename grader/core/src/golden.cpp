#include "spmv/core/golden.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "random_stream.hpp"

namespace spmv {

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
    const GoldenRow golden = golden_row(a, x, static_cast<index_t>(row));
    result.y[row] = golden.y;
    result.abs_sum[row] = golden.abs_sum;
    result.row_nnz[row] = golden.nnz;
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
