// The stored entries of each contract view, walked on the CPU in the order
// the view stores them (padding skipped, JDS and SELL rows mapped back
// through row_perm). One walker per format serves every host-path plugin: the
// reference accumulates each entry, the faulty fakes alter the walk.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/contract/coo.h"
#include "spmv/contract/csr.h"
#include "spmv/contract/ell.h"
#include "spmv/contract/hyb.h"
#include "spmv/contract/jds.h"
#include "spmv/contract/sell.h"

namespace spmv::hostpath {

inline std::int32_t rows_of(const spmv_coo_view& a) { return a.rows; }
inline std::int32_t rows_of(const spmv_csr_view& a) { return a.rows; }
inline std::int32_t rows_of(const spmv_ell_view& a) { return a.rows; }
inline std::int32_t rows_of(const spmv_hyb_view& a) { return a.ell.rows; }
inline std::int32_t rows_of(const spmv_jds_view& a) { return a.rows; }
inline std::int32_t rows_of(const spmv_sell_view& a) { return a.rows; }

inline std::int32_t cols_of(const spmv_coo_view& a) { return a.cols; }
inline std::int32_t cols_of(const spmv_csr_view& a) { return a.cols; }
inline std::int32_t cols_of(const spmv_ell_view& a) { return a.cols; }
inline std::int32_t cols_of(const spmv_hyb_view& a) { return a.ell.cols; }
inline std::int32_t cols_of(const spmv_jds_view& a) { return a.cols; }
inline std::int32_t cols_of(const spmv_sell_view& a) { return a.cols; }

// visit(row, column, value) for every stored entry.
template <typename Visit>
void for_each_entry(const spmv_coo_view& a, Visit&& visit) {
  for (std::int32_t e = 0; e < a.nnz; ++e) visit(a.row_idx[e], a.col_idx[e], a.values[e]);
}

template <typename Visit>
void for_each_entry(const spmv_csr_view& a, Visit&& visit) {
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (std::int32_t e = a.row_ptr[row]; e < a.row_ptr[row + 1]; ++e) visit(row, a.col_idx[e], a.values[e]);
  }
}

// Slot by slot, as the column-major layout lies in memory.
template <typename Visit>
void for_each_entry(const spmv_ell_view& a, Visit&& visit) {
  const auto rows = static_cast<std::size_t>(a.rows);
  for (std::int32_t k = 0; k < a.width; ++k) {
    for (std::int32_t row = 0; row < a.rows; ++row) {
      if (k >= a.row_length[row]) continue;
      const std::size_t slot = static_cast<std::size_t>(k) * rows + static_cast<std::size_t>(row);
      visit(row, a.col_idx[slot], a.values[slot]);
    }
  }
}

template <typename Visit>
void for_each_entry(const spmv_hyb_view& a, Visit&& visit) {
  for_each_entry(a.ell, visit);
  for_each_entry(a.coo, visit);
}

// Diagonal d holds the d-th entry of sorted rows 0 .. length(d)-1.
template <typename Visit>
void for_each_entry(const spmv_jds_view& a, Visit&& visit) {
  for (std::int32_t d = 0; d < a.num_diagonals; ++d) {
    for (std::int32_t e = a.jd_ptr[d]; e < a.jd_ptr[d + 1]; ++e) {
      visit(a.row_perm[e - a.jd_ptr[d]], a.col_idx[e], a.values[e]);
    }
  }
}

// Slice by slice, slot by slot within a slice as it lies in memory. Slot k
// of local position i is at slice_ptr[s] + k * C + i; a NULL row_perm is
// the identity. Padding (column -1) is all that marks a row's end.
template <typename Visit>
void for_each_entry(const spmv_sell_view& a, Visit&& visit) {
  const auto height = static_cast<std::int64_t>(a.slice_height);
  for (std::int32_t s = 0; s < a.slices; ++s) {
    const std::int64_t width = (a.slice_ptr[s + 1] - a.slice_ptr[s]) / height;
    for (std::int64_t k = 0; k < width; ++k) {
      for (std::int64_t i = 0; i < height; ++i) {
        const std::int64_t slot = a.slice_ptr[s] + k * height + i;
        if (a.col_idx[slot] == -1) continue;
        const auto position = static_cast<std::int32_t>(s * height + i);
        visit(a.row_perm != nullptr ? a.row_perm[position] : position, a.col_idx[slot], a.values[slot]);
      }
    }
  }
}

}  // namespace spmv::hostpath
