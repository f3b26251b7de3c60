// The stored entries of a HYB view, its ELL part then its COO part, walked
// on the CPU in the order the view stores them (host_terms.hpp).
#pragma once

#include <cstdint>

#include "coo.hpp"
#include "ell.hpp"
#include "spmv/contract/hyb.h"

namespace spmv::hostpath {

inline std::int32_t rows_of(const spmv_hyb_view& a) { return a.ell.rows; }
inline std::int32_t cols_of(const spmv_hyb_view& a) { return a.ell.cols; }

template <typename Visit>
void for_each_entry(const spmv_hyb_view& a, Visit&& visit) {
  for_each_entry(a.ell, visit);
  for_each_entry(a.coo, visit);
}

}  // namespace spmv::hostpath
