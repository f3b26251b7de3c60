// The stored entries of a JDS view, walked on the CPU in the order
// the view stores them (host_terms.hpp).
#pragma once

#include <cstdint>

#include "spmv/contract/jds.h"

namespace spmv::hostpath {

// Diagonal d holds the d-th entry of sorted rows 0 .. length(d)-1.
template <typename Visit>
void for_each_entry(const spmv_jds_view& a, Visit&& visit) {
  for (std::int32_t d = 0; d < a.num_diagonals; ++d) {
    for (std::int32_t e = a.jd_ptr[d]; e < a.jd_ptr[d + 1]; ++e) {
      visit(a.row_perm[e - a.jd_ptr[d]], a.col_idx[e], a.values[e]);
    }
  }
}

}  // namespace spmv::hostpath
