// Shared by the format, conversion, CPU SpMV and generator tests: the
// course's worked 4x4 examples with their arrays written out, exact
// comparison of containers, and per-run random seeds.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "fresh_seed.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/format_table.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/core/generators.hpp"

namespace spmv::test {

// The formats of a FormatList, as the types of a typed suite.
template <typename List>
struct AsGtestTypes;
template <typename... Matrices>
struct AsGtestTypes<FormatList<Matrices...>> {
  using type = ::testing::Types<Matrices...>;
};

// How large fresh_table_matrix draws its matrices.
struct TableMatrixLimits {
  index_t rows;
  index_t cols;       // of the power-law matrices
  index_t longest;    // a power-law row's entries
  index_t half_band;  // of the band matrices
};

// A fresh random matrix of random shape for the format table's typed
// suites: rows of power-law lengths (the padded formats sort or split them)
// or a band (SELL keeps its rows in place), with up to 40% of the rows
// emptied.
inline CsrMatrix fresh_table_matrix(std::mt19937_64& rng, const TableMatrixLimits& limits) {
  const auto between = [&rng](index_t low, index_t high) {
    return std::uniform_int_distribution<index_t>(low, high)(rng);
  };
  const index_t rows = between(1, limits.rows);
  const CsrMatrix full = std::bernoulli_distribution(0.5)(rng)
                             ? gen::power_law(rows, between(1, limits.cols), 1.5, between(1, limits.longest), rng())
                             : gen::banded(rows, between(0, limits.half_band), rng());
  return gen::with_empty_rows(full, std::uniform_real_distribution<double>(0.0, 0.4)(rng), rng());
}

inline HybOptions hyb_width(index_t ell_width, ConversionLimits limits = {}) {
  HybOptions options;
  options.ell_width = ell_width;
  options.limits = limits;
  return options;
}

// Bit patterns, so -0.0 != 0.0 and NaN payloads count: round trips are exact.
inline std::vector<std::uint32_t> bits_of(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits;
  bits.reserve(values.size());
  for (const float v : values) bits.push_back(std::bit_cast<std::uint32_t>(v));
  return bits;
}

inline void expect_same(const CsrMatrix& actual, const CsrMatrix& expected) {
  EXPECT_EQ(actual.rows, expected.rows);
  EXPECT_EQ(actual.cols, expected.cols);
  EXPECT_EQ(actual.row_ptr, expected.row_ptr);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(bits_of(actual.values), bits_of(expected.values));
}

inline void expect_same(const CooMatrix& actual, const CooMatrix& expected) {
  EXPECT_EQ(actual.rows, expected.rows);
  EXPECT_EQ(actual.cols, expected.cols);
  EXPECT_EQ(actual.row_idx, expected.row_idx);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(bits_of(actual.values), bits_of(expected.values));
}

inline void expect_same(const EllMatrix& actual, const EllMatrix& expected) {
  EXPECT_EQ(actual.rows, expected.rows);
  EXPECT_EQ(actual.cols, expected.cols);
  EXPECT_EQ(actual.width, expected.width);
  EXPECT_EQ(actual.row_length, expected.row_length);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(bits_of(actual.values), bits_of(expected.values));
}

inline void expect_same(const HybMatrix& actual, const HybMatrix& expected) {
  expect_same(actual.ell, expected.ell);
  expect_same(actual.coo, expected.coo);
}

inline void expect_same(const SellMatrix& actual, const SellMatrix& expected) {
  EXPECT_EQ(actual.rows, expected.rows);
  EXPECT_EQ(actual.cols, expected.cols);
  EXPECT_EQ(actual.nnz, expected.nnz);
  EXPECT_EQ(actual.slice_height, expected.slice_height);
  EXPECT_EQ(actual.sort_window, expected.sort_window);
  EXPECT_EQ(actual.slice_ptr, expected.slice_ptr);
  EXPECT_EQ(actual.row_perm, expected.row_perm);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(bits_of(actual.values), bits_of(expected.values));
}

inline SellParams sell_params(index_t slice_height, index_t sort_window) {
  SellParams params;
  params.slice_height = slice_height;
  params.sort_window = sort_window;
  return params;
}

inline void expect_same(const JdsMatrix& actual, const JdsMatrix& expected) {
  EXPECT_EQ(actual.rows, expected.rows);
  EXPECT_EQ(actual.cols, expected.cols);
  EXPECT_EQ(actual.row_perm, expected.row_perm);
  EXPECT_EQ(actual.jd_ptr, expected.jd_ptr);
  EXPECT_EQ(actual.col_idx, expected.col_idx);
  EXPECT_EQ(bits_of(actual.values), bits_of(expected.values));
}

// GPU Teaching Kit, module 10 (seed 002), every format's slide:
//   Row 0  3 0 1 0
//   Row 1  0 0 0 0
//   Row 2  0 2 4 1
//   Row 3  1 0 0 1
struct TeachingKit {
  static CsrMatrix csr() { return {4, 4, {0, 2, 2, 5, 7}, {0, 2, 1, 2, 3, 0, 3}, {3, 1, 2, 4, 1, 1, 1}}; }
  static CooMatrix coo() { return {4, 4, {0, 0, 2, 2, 2, 3, 3}, {0, 2, 1, 2, 3, 0, 3}, {3, 1, 2, 4, 1, 1, 1}}; }
  // Slide "data 3 * 2 1 1 * 4 1 * * 1 *", "col_index 0 * 1 0 2 * 2 3 * * 3 *".
  static EllMatrix ell() {
    return {4, 4, 3, {2, 0, 3, 2}, {0, -1, 1, 0, 2, -1, 2, 3, -1, -1, 3, -1}, {3, 0, 2, 1, 1, 0, 4, 1, 0, 0, 1, 0}};
  }
  // ELL width 2: row 2's third entry moves to COO.
  static HybMatrix hyb_width_2() {
    return {{4, 4, 2, {2, 0, 2, 2}, {0, -1, 1, 0, 2, -1, 2, 3}, {3, 0, 2, 1, 1, 0, 4, 1}}, {4, 4, {2}, {3}, {1}}};
  }
  // Rows by decreasing length, ties in original order: 2 (3), 0 (2), 3 (2), 1 (0).
  static JdsMatrix jds() { return {4, 4, {2, 0, 3, 1}, {0, 3, 6, 7}, {1, 0, 0, 2, 2, 3, 3}, {2, 3, 1, 4, 1, 1, 1}}; }
  // SELL-C-sigma, C = 2, sigma = 4: the one window sorts the rows as JDS
  // does (2, 0, 3, 1); slice 0 (rows 2, 0) is 3 slots wide, slice 1
  // (rows 3, 1) 2 slots: 10 slots where ELL has 12.
  static SellMatrix sell_c2_sigma4() {
    return {4, 4, 7, 2, 4, {0, 6, 10}, {2, 0, 3, 1}, {1, 0, 2, 2, 3, -1, 0, -1, 3, -1}, {2, 3, 4, 1, 1, 0, 1, 0, 1, 0}};
  }
  // C = 2, sigma = 1: rows in their own order (row_perm empty); slice 0
  // (rows 0, 1) is 2 slots wide, slice 1 (rows 2, 3) 3 slots.
  static SellMatrix sell_c2_sigma1() {
    return {4, 4, 7, 2, 1, {0, 4, 10}, {}, {0, -1, 2, -1, 1, 0, 2, 3, 3, -1}, {3, 0, 1, 0, 2, 1, 4, 1, 1, 0}};
  }
};

// Textbook chapter 14, figure 14.1 (seed 000):
//   Row 0  1 7 . .
//   Row 1  5 . 3 9
//   Row 2  . 2 8 .
//   Row 3  . . . 6
struct TextbookFigure14_1 {
  static CsrMatrix csr() { return {4, 4, {0, 2, 5, 7, 8}, {0, 1, 0, 2, 3, 1, 2, 3}, {1, 7, 5, 3, 9, 2, 8, 6}}; }
  static CooMatrix coo() {
    return {4, 4, {0, 0, 1, 1, 1, 2, 2, 3}, {0, 1, 0, 2, 3, 1, 2, 3}, {1, 7, 5, 3, 9, 2, 8, 6}};
  }
  static EllMatrix ell() {
    return {4, 4, 3, {2, 3, 2, 1}, {0, 0, 1, 3, 1, 2, 2, -1, -1, 3, -1, -1}, {1, 5, 2, 6, 7, 3, 8, 0, 0, 9, 0, 0}};
  }
  static HybMatrix hyb_width_2() {
    return {{4, 4, 2, {2, 2, 2, 1}, {0, 0, 1, 3, 1, 2, 2, -1}, {1, 5, 2, 6, 7, 3, 8, 0}}, {4, 4, {1}, {3}, {9}}};
  }
  // Rows by decreasing length: 1 (3), 0 (2), 2 (2), 3 (1).
  static JdsMatrix jds() {
    return {4, 4, {1, 0, 2, 3}, {0, 4, 7, 8}, {0, 0, 1, 3, 2, 1, 2, 3}, {5, 1, 2, 6, 3, 7, 8, 9}};
  }
  // C = 2, sigma = 4: rows 1, 0 (slice 0, 3 wide), then 2, 3 (slice 1, 2 wide).
  static SellMatrix sell_c2_sigma4() {
    return {4, 4, 8, 2, 4, {0, 6, 10}, {1, 0, 2, 3}, {0, 0, 2, 1, 3, -1, 1, 3, 2, -1}, {5, 1, 3, 7, 9, 0, 2, 6, 8, 0}};
  }
};

}  // namespace spmv::test
