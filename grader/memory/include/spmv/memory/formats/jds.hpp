// JdsMatrix uploaded: its arrays in buffers and the contract view of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/contract/jds.h"
#include "spmv/core/formats/jds.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv {

// The view's pointers stay valid as long as this object lives (it is
// move-only; moving keeps the allocations).
struct JdsBuffers {
  Buffer<index_t> row_perm, jd_ptr, col_idx;
  Buffer<value_t> values;
  spmv_jds_view view{};

  // visit(name, buffer, host array) for every array uploaded from `a`.
  template <typename Visit>
  void for_each_array(const JdsMatrix& a, Visit&& visit) const {
    visit("row_perm", row_perm, a.row_perm);
    visit("jd_ptr", jd_ptr, a.jd_ptr);
    visit("col_idx", col_idx, a.col_idx);
    visit("values", values, a.values);
  }
};

// With `guard_words` > 0, every nonempty array lies between guard zones
// (spmv/memory/buffer.hpp: upload_array).
JdsBuffers upload(MemorySpace space, const JdsMatrix& a, std::size_t guard_words = 0);

}  // namespace spmv
