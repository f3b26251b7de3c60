// Matrices for the tests of auto's plan (reference/include/spmv/reference/
// plan_layout.hpp, csr_auto_plan.hpp), shared by the host tests of its
// layouts and the GPU tests of its kernels: shapes that give each kind of
// plan and each encoding of packed slices.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "spmv/core/formats.hpp"
#include "spmv/core/golden.hpp"

namespace spmv::test {

// Rows in regions of 96 (three slices of 32), cycling through four kinds:
//  0. a band of 5 around the diagonal (diagonal slices), with an empty row
//     now and then;
//  1. 4 random columns within a window of 30,000 that moves with the row
//     (16-bit slices: many diagonals, a span under 65,536);
//  2. 3 random columns anywhere in `cols` (32-bit slices once cols exceeds
//     65,536);
//  3. empty rows, but for one row of one entry.
// Rows of a region have the same length, so a sliced ELL of them pads
// little (an empty row, the lone entry's slice). `rows` need not be a
// multiple of 32: the last slice is then partial. cols >= 30,000.
inline CsrMatrix mixed_slices(index_t rows, index_t cols, std::uint64_t seed) {
  constexpr index_t kRegion = 96;
  constexpr index_t kWindow = 30'000;
  std::mt19937_64 rng(seed);
  CsrMatrix a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<index_t> columns;
  const auto draw = [&](index_t count, index_t low, index_t high) {  // distinct, in [low, high)
    std::uniform_int_distribution<index_t> column(low, high - 1);
    while (static_cast<index_t>(columns.size()) < count) {
      const index_t c = column(rng);
      if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
    }
  };
  for (index_t row = 0; row < rows; ++row) {
    columns.clear();
    switch (row / kRegion % 4) {
      case 0:
        if (row % 97 != 5) {
          for (index_t c = std::max(0, row - 2); c <= std::min(cols - 1, row + 2); ++c) columns.push_back(c);
        }
        break;
      case 1: {
        const index_t low = std::min(row, cols - kWindow);
        draw(4, low, low + kWindow);
        break;
      }
      case 2: draw(3, 0, cols); break;
      default:
        if (row % kRegion == 0) draw(1, 0, cols);
        break;
    }
    std::sort(columns.begin(), columns.end());
    a.col_idx.insert(a.col_idx.end(), columns.begin(), columns.end());
    a.row_ptr[static_cast<std::size_t>(row) + 1] = a.nnz();
  }
  a.values = random_vector(a.col_idx.size(), seed + 1);
  return a;
}

}  // namespace spmv::test
