// The stored entries of a SELL-C-sigma view, walked on the CPU in the order
// the view stores them (host_terms.hpp).
#pragma once

#include <cstdint>

#include "slots.hpp"
#include "spmv/contract/sell.h"

namespace spmv::hostpath {

// Slice by slice, each a column-major block of C positions as it lies in
// memory; a NULL row_perm is the identity. Padding (column -1) is all that
// marks a row's end.
template <typename Visit>
void for_each_entry(const spmv_sell_view& a, Visit&& visit) {
  const auto height = static_cast<std::int64_t>(a.slice_height);
  for (std::int32_t s = 0; s < a.slices; ++s) {
    const std::int64_t width = (a.slice_ptr[s + 1] - a.slice_ptr[s]) / height;
    for_each_slot(a.slice_ptr[s], height, width, [&](std::int64_t i, std::int64_t /*k*/, std::int64_t slot) {
      if (a.col_idx[slot] == -1) return;
      const auto position = static_cast<std::int32_t>(s * height + i);
      visit(a.row_perm != nullptr ? a.row_perm[position] : position, a.col_idx[slot], a.values[slot]);
    });
  }
}

}  // namespace spmv::hostpath
