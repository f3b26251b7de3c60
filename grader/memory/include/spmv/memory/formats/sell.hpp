// SellMatrix uploaded: its arrays in buffers and the contract view of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/contract/sell.h"
#include "spmv/core/formats/sell.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv {

// The view's pointers stay valid as long as this object lives (it is
// move-only; moving keeps the allocations).
struct SellBuffers {
  Buffer<std::int64_t> slice_ptr;
  Buffer<index_t> row_perm, col_idx;  // row_perm empty (view NULL) for the identity
  Buffer<value_t> values;
  spmv_sell_view view{};

  // visit(name, buffer, host array) for every array uploaded from `a`.
  template <typename Visit>
  void for_each_array(const SellMatrix& a, Visit&& visit) const {
    visit("slice_ptr", slice_ptr, a.slice_ptr);
    visit("row_perm", row_perm, a.row_perm);
    visit("col_idx", col_idx, a.col_idx);
    visit("values", values, a.values);
  }
};

// With `guard_words` > 0, every nonempty array lies between guard zones
// (spmv/memory/buffer.hpp: upload_array).
SellBuffers upload(MemorySpace space, const SellMatrix& a, std::size_t guard_words = 0);

}  // namespace spmv
