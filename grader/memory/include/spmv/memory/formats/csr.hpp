// CsrMatrix uploaded: its arrays in buffers and the contract view of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/contract/csr.h"
#include "spmv/core/formats/csr.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv {

// The view's pointers stay valid as long as this object lives (it is
// move-only; moving keeps the allocations).
struct CsrBuffers {
  Buffer<index_t> row_ptr, col_idx;
  Buffer<value_t> values;
  spmv_csr_view view{};

  // visit(name, buffer, host array) for every array uploaded from `a`.
  template <typename Visit>
  void for_each_array(const CsrMatrix& a, Visit&& visit) const {
    visit("row_ptr", row_ptr, a.row_ptr);
    visit("col_idx", col_idx, a.col_idx);
    visit("values", values, a.values);
  }
};

// With `guard_words` > 0, every nonempty array lies between guard zones
// (spmv/memory/buffer.hpp: upload_array).
CsrBuffers upload(MemorySpace space, const CsrMatrix& a, std::size_t guard_words = 0);

}  // namespace spmv
