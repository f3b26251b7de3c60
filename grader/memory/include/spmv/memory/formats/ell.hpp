// EllMatrix uploaded: its arrays in buffers and the contract view of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/contract/ell.h"
#include "spmv/core/formats/ell.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv {

// The view's pointers stay valid as long as this object lives (it is
// move-only; moving keeps the allocations).
struct EllBuffers {
  Buffer<index_t> row_length, col_idx;
  Buffer<value_t> values;
  spmv_ell_view view{};

  // visit(name, buffer, host array) for every array uploaded from `a`.
  template <typename Visit>
  void for_each_array(const EllMatrix& a, Visit&& visit) const {
    visit("row_length", row_length, a.row_length);
    visit("col_idx", col_idx, a.col_idx);
    visit("values", values, a.values);
  }
};

// With `guard_words` > 0, every nonempty array lies between guard zones
// (spmv/memory/buffer.hpp: upload_array).
EllBuffers upload(MemorySpace space, const EllMatrix& a, std::size_t guard_words = 0);

}  // namespace spmv
