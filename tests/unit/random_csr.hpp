// Test support: random CSR matrices built without the
// library's generators, so golden and tolerance tests stand on their own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "fresh_seed.hpp"
#include "spmv/core/formats.hpp"

namespace spmv::test {

struct RandomCsrShape {
  index_t rows = 2000;
  index_t cols = 3000;
  double empty_fraction = 0.1;
  // Adds one row of at least this many entries (0: none); cols grows to fit.
  index_t long_row = 0;
};

// `count` distinct columns of [0, cols), sorted (Floyd's sampling).
inline std::vector<index_t> distinct_columns(std::mt19937_64& rng, index_t count, index_t cols) {
  std::unordered_set<index_t> chosen;
  chosen.reserve(static_cast<std::size_t>(count) * 2);
  for (index_t j = cols - count; j < cols; ++j) {
    const index_t pick = std::uniform_int_distribution<index_t>(0, j)(rng);
    chosen.insert(chosen.contains(pick) ? j : pick);
  }
  std::vector<index_t> columns(chosen.begin(), chosen.end());
  std::sort(columns.begin(), columns.end());
  return columns;
}

// Mostly short rows, some longer than a warp, a few longer than a block,
// some empty; never a zero value. Each row has its own power-of-two scale
// between 2^-20 and 2^20, so a check that depends on the data's magnitude
// shows up.
inline index_t random_row_length(std::mt19937_64& rng, const RandomCsrShape& shape) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double kind = unit(rng);
  auto between = [&rng](index_t low, index_t high) { return std::uniform_int_distribution<index_t>(low, high)(rng); };
  if (kind < shape.empty_fraction) {
    return 0;
  }
  if (kind < 0.75) {
    return between(1, 8);
  }
  if (kind < 0.97) {
    return between(9, 64);
  }
  return between(65, 600);
}

inline CsrMatrix random_csr(std::mt19937_64& rng, RandomCsrShape shape) {
  shape.cols = std::max(shape.cols, shape.long_row + shape.long_row / 4);
  const index_t long_row_index =
      shape.long_row > 0 ? std::uniform_int_distribution<index_t>(0, shape.rows - 1)(rng) : -1;
  std::uniform_real_distribution<float> magnitude(0.25F, 1.0F);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::bernoulli_distribution negative(0.5);
  CsrMatrix a;
  a.rows = shape.rows;
  a.cols = shape.cols;
  for (index_t row = 0; row < shape.rows; ++row) {
    const index_t length = row == long_row_index ? shape.long_row : std::min(random_row_length(rng, shape), shape.cols);
    const float scale = std::ldexp(1.0F, exponent(rng));
    for (const index_t column : distinct_columns(rng, length, shape.cols)) {
      a.col_idx.push_back(column);
      a.values.push_back((negative(rng) ? -scale : scale) * magnitude(rng));
    }
    a.row_ptr.push_back(a.nnz());
  }
  return a;
}

// Uniform in [-1, -0.25] U [0.25, 1], independent of the library's
// random_vector.
inline std::vector<float> random_x(std::mt19937_64& rng, index_t size) {
  std::uniform_real_distribution<float> magnitude(0.25F, 1.0F);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> x(static_cast<std::size_t>(size));
  for (float& value : x) {
    value = negative(rng) ? -magnitude(rng) : magnitude(rng);
  }
  return x;
}

// Indices of rows whose length lies in [min_length, max_length].
inline std::vector<index_t> rows_with_length(const CsrMatrix& a, index_t min_length, index_t max_length) {
  std::vector<index_t> rows;
  for (index_t row = 0; row < a.rows; ++row) {
    if (a.row_length(row) >= min_length && a.row_length(row) <= max_length) {
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace spmv::test
