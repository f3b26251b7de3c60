// The stored entries of a ELL view, walked on the CPU in the order
// the view stores them (host_terms.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/contract/ell.h"

namespace spmv::hostpath {

inline std::int32_t rows_of(const spmv_ell_view& a) { return a.rows; }
inline std::int32_t cols_of(const spmv_ell_view& a) { return a.cols; }

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

}  // namespace spmv::hostpath
