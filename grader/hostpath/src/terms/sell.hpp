// The stored entries of a SELL-C-sigma view, walked on the CPU in the order
// the view stores them (host_terms.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/contract/sell.h"

namespace spmv::hostpath {

inline std::int32_t rows_of(const spmv_sell_view& a) { return a.rows; }
inline std::int32_t cols_of(const spmv_sell_view& a) { return a.cols; }

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
