#include "matrix_cases.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "spmv/core/generators.hpp"
#include "spmv/core/golden.hpp"

namespace spmv::test {
namespace {

CsrMatrix no_entries(index_t rows, index_t cols) {
  CsrMatrix a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  return a;
}

// `a` with the rows for which `drop(row)` holds emptied.
CsrMatrix with_rows_emptied(const CsrMatrix& a, const std::function<bool(index_t)>& drop) {
  CsrMatrix out = no_entries(a.rows, a.cols);
  for (index_t row = 0; row < a.rows; ++row) {
    if (!drop(row)) {
      for (index_t j = a.row_ptr[row]; j < a.row_ptr[row + 1]; ++j) {
        out.col_idx.push_back(a.col_idx[j]);
        out.values.push_back(a.values[j]);
      }
    }
    out.row_ptr[row + 1] = out.nnz();
  }
  return out;
}

// `a` with row `long_row` replaced by `length` distinct random columns.
CsrMatrix with_long_row(const CsrMatrix& a, index_t long_row, index_t length, std::uint64_t seed) {
  std::vector<index_t> columns(static_cast<std::size_t>(a.cols));
  std::iota(columns.begin(), columns.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(columns.begin(), columns.end(), rng);
  columns.resize(static_cast<std::size_t>(length));
  std::sort(columns.begin(), columns.end());
  const std::vector<float> values = random_vector(columns.size(), seed + 1);

  CsrMatrix out = no_entries(a.rows, a.cols);
  for (index_t row = 0; row < a.rows; ++row) {
    if (row == long_row) {
      out.col_idx.insert(out.col_idx.end(), columns.begin(), columns.end());
      out.values.insert(out.values.end(), values.begin(), values.end());
    } else {
      out.col_idx.insert(out.col_idx.end(), a.col_idx.begin() + a.row_ptr[row], a.col_idx.begin() + a.row_ptr[row + 1]);
      out.values.insert(out.values.end(), a.values.begin() + a.row_ptr[row], a.values.begin() + a.row_ptr[row + 1]);
    }
    out.row_ptr[row + 1] = out.nnz();
  }
  return out;
}

}  // namespace

CsrMatrix rows_of_lengths(index_t rows, index_t cols, const std::vector<index_t>& lengths, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<index_t> column(0, cols - 1);
  CsrMatrix out = no_entries(rows, cols);
  std::vector<char> taken(static_cast<std::size_t>(cols), 0);
  for (index_t row = 0; row < rows; ++row) {
    const index_t length = lengths[static_cast<std::size_t>(row) % lengths.size()];
    const auto first = out.col_idx.size();
    while (static_cast<index_t>(out.col_idx.size() - first) < length) {
      const index_t c = column(rng);
      if (taken[static_cast<std::size_t>(c)] == 0) {
        taken[static_cast<std::size_t>(c)] = 1;
        out.col_idx.push_back(c);
      }
    }
    std::sort(out.col_idx.begin() + static_cast<std::ptrdiff_t>(first), out.col_idx.end());
    for (auto j = first; j < out.col_idx.size(); ++j) taken[static_cast<std::size_t>(out.col_idx[j])] = 0;
    out.row_ptr[row + 1] = out.nnz();
  }
  out.values = random_vector(out.col_idx.size(), seed + 1);
  return out;
}

// Sizes keep every case to about a second on the GPU machine while going
// past a warp (32), a block (256) and, in the last two, one full grid of
// the reference kernels (reference/tuning.hpp: 4096 blocks x 256 threads),
// so the grid-stride loops run more than once. Padded formats stay small:
// the largest ELL form (power_law) is 16M slots.
const std::vector<MatrixCase>& matrix_cases() {
  static const std::vector<MatrixCase> cases{
      {"no_entries", [](std::uint64_t) { return no_entries(70, 50); }},
      {"no_rows", [](std::uint64_t) { return no_entries(0, 8); }},
      {"no_columns", [](std::uint64_t) { return no_entries(40, 0); }},
      {"one_by_one", [](std::uint64_t seed) { return gen::diagonal(1, seed); }},
      {"empty_rows_at_both_ends",
       [](std::uint64_t seed) {
         const CsrMatrix a = gen::uniform_random(600, 500, 9, seed);
         return with_rows_emptied(a, [](index_t row) { return row < 3 || row >= 600 - 40; });
       }},
      {"random_empty_rows",
       [](std::uint64_t seed) { return gen::with_empty_rows(gen::uniform_random(5000, 5000, 7, seed), 0.3, seed); }},
      {"row_of_120k_entries",
       [](std::uint64_t seed) { return with_long_row(gen::uniform_random(48, 150'000, 6, seed), 17, 120'000, seed); }},
      {"tall", [](std::uint64_t seed) { return gen::uniform_random(20'000, 300, 5, seed); }},
      {"wide", [](std::uint64_t seed) { return gen::uniform_random(300, 20'000, 60, seed); }},
      {"arrow", [](std::uint64_t seed) { return gen::arrow(3000, seed); }},
      {"stencil_2d_5pt", [](std::uint64_t seed) { return gen::stencil_2d_5pt(64, 48, seed); }},
      {"stencil_3d_27pt", [](std::uint64_t seed) { return gen::stencil_3d_27pt(14, 13, 12, seed); }},
      {"random", [](std::uint64_t seed) { return gen::uniform_random(10'000, 10'000, 12, seed); }},
      {"power_law", [](std::uint64_t seed) { return gen::power_law(8000, 8000, 1.8, 2000, seed); }},
      {"banded", [](std::uint64_t seed) { return gen::banded(4000, 9, seed); }},
      // Rows of 121 within a band: groups of lanes take several steps a row.
      {"wide_band", [](std::uint64_t seed) { return gen::banded(3000, 60, seed); }},
      {"block_diagonal", [](std::uint64_t seed) { return gen::block_diagonal(50, 40, seed); }},
      // The load-balanced kernels cut work into tiles of 2048 items
      // (coo_segmented) and 2528 (csr_merge, 32 fewer than its 2560 slots):
      // one row spanning some 1500 tiles;
      // whole tiles of empty rows; rows that end exactly at, just before
      // and just after tile boundaries (a row of n entries is n + 1 merge
      // path items).
      {"single_row_of_3m_entries", [](std::uint64_t seed) { return rows_of_lengths(1, 3'000'000, {3'000'000}, seed); }},
      {"mostly_empty_rows",
       [](std::uint64_t seed) {
         const CsrMatrix a = gen::uniform_random(300'000, 1000, 3, seed);
         return with_rows_emptied(a, [](index_t row) { return row % 5000 != 17; });
       }},
      {"rows_at_tile_edges",
       [](std::uint64_t seed) {
         return rows_of_lengths(
             60, 9000, {2047, 2047, 2048, 0, 2049, 1, 4095, 4096, 2046, 0, 0, 2527, 2526, 2528, 5055, 2016}, seed);
       }},
      // Rows of csr_rows's loads in flight (8 and 16) and one either side,
      // with empty rows between: one round of loads, or one more; 3000 rows
      // end partway through a block.
      {"rows_at_load_edges",
       [](std::uint64_t seed) {
         return rows_of_lengths(3000, 2000, {0, 8, 9, 1, 16, 17, 0, 0, 7, 15, 12, 24, 31, 33}, seed);
       }},
      // More rows than one grid has threads: one thread per row loops.
      {"rows_beyond_one_grid", [](std::uint64_t seed) { return gen::diagonal((1 << 20) + 4099, seed); }},
      // 24 entries a row give csr_vector 32 threads a row: 1.28M threads.
      {"row_groups_beyond_one_grid", [](std::uint64_t seed) { return gen::uniform_random(40'000, 40'000, 24, seed); }},
  };
  return cases;
}

}  // namespace spmv::test
