#include "spmv/memory/formats/sell.hpp"

namespace spmv {

SellBuffers upload(MemorySpace space, const SellMatrix& a, std::size_t guard_words) {
  SellBuffers b{upload_array(space, a.slice_ptr, guard_words),
                upload_array(space, a.row_perm, guard_words),
                upload_array(space, a.col_idx, guard_words),
                upload_array(space, a.values, guard_words),
                {}};
  // The contract's NULL stands for the identity order.
  const index_t* row_perm = a.row_perm.empty() ? nullptr : b.row_perm.data();
  b.view = {a.rows,   a.cols,           a.nnz,          a.slice_height, a.sort_window, a.slices(), b.slice_ptr.data(),
            row_perm, b.col_idx.data(), b.values.data()};
  return b;
}

}  // namespace spmv
