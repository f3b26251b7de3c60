// What every format's CPU product shares: exact products, fp64 sums rounded
// once, the check of the inputs, and the walks of ELL and COO that HYB's
// parts reuse. Not in the student kit, like the rest of this folder.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "message.hpp"
#include "spmv/core/formats.hpp"

namespace spmv::detail {

// Each product of two floats is exact in fp64; only the sums round.
inline double term(value_t value, float x) { return static_cast<double>(value) * static_cast<double>(x); }

// The container is validated first: its indices then stay inside x and y.
template <typename Matrix>
void check_inputs(std::string_view format, const Matrix& a, index_t cols, std::span<const float> x) {
  a.validate();
  if (x.size() != static_cast<std::size_t>(cols)) {
    throw std::invalid_argument(
        detail::message("cpu_spmv(", format, "): x has ", x.size(), " entries, expected cols = ", cols));
  }
}

inline std::vector<float> round_rows(const std::vector<double>& sums) {
  std::vector<float> y(sums.size());
  for (std::size_t r = 0; r < sums.size(); ++r) y[r] = static_cast<float>(sums[r]);
  return y;
}

// y of the rows of `a`: validates `a` and x, lets add(sums) add every
// stored entry's exact product to its row's fp64 sum, and rounds each sum
// once.
template <typename Matrix, typename Add>
std::vector<float> summed_rows(const Matrix& a, index_t rows, index_t cols, std::span<const float> x, Add&& add) {
  check_inputs(FormatTraits<Matrix>::label, a, cols, x);
  std::vector<double> sums(static_cast<std::size_t>(rows), 0.0);
  add(sums);
  return round_rows(sums);
}

// Adds every entry's product to the sums of its row (coo.cpp, ell.cpp).
void add_coo(const CooMatrix& a, std::span<const float> x, std::vector<double>& sums);
void add_ell(const EllMatrix& a, std::span<const float> x, std::vector<double>& sums);

}  // namespace spmv::detail
