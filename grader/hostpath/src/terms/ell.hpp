// The stored entries of an ELL view, walked on the CPU in the order
// the view stores them (host_terms.hpp).
#pragma once

#include <cstdint>

#include "slots.hpp"
#include "spmv/contract/ell.h"

namespace spmv::hostpath {

// Slot by slot, as the column-major layout lies in memory: one block of
// `rows` positions; a row's length tells where its padding starts.
template <typename Visit>
void for_each_entry(const spmv_ell_view& a, Visit&& visit) {
  for_each_slot(0, a.rows, a.width, [&](std::int64_t row, std::int64_t k, std::int64_t slot) {
    if (k < a.row_length[row]) visit(static_cast<std::int32_t>(row), a.col_idx[slot], a.values[slot]);
  });
}

}  // namespace spmv::hostpath
