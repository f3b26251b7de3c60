// The stored entries of a COO view, walked on the CPU in the order
// the view stores them (host_terms.hpp).
#pragma once

#include <cstdint>

#include "spmv/contract/coo.h"

namespace spmv::hostpath {

// visit(row, column, value) for every stored entry.
template <typename Visit>
void for_each_entry(const spmv_coo_view& a, Visit&& visit) {
  for (std::int32_t e = 0; e < a.nnz; ++e) visit(a.row_idx[e], a.col_idx[e], a.values[e]);
}

}  // namespace spmv::hostpath
