// The stored entries of a CSR view, walked on the CPU in the order
// the view stores them (host_terms.hpp).
#pragma once

#include <cstdint>

#include "spmv/contract/csr.h"

namespace spmv::hostpath {

template <typename Visit>
void for_each_entry(const spmv_csr_view& a, Visit&& visit) {
  for (std::int32_t row = 0; row < a.rows; ++row) {
    for (std::int32_t e = a.row_ptr[row]; e < a.row_ptr[row + 1]; ++e) visit(row, a.col_idx[e], a.values[e]);
  }
}

}  // namespace spmv::hostpath
