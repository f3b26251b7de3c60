#include "spmv/memory/formats/coo.hpp"

namespace spmv {

CooBuffers upload(MemorySpace space, const CooMatrix& a, std::size_t guard_words) {
  CooBuffers b{upload_array(space, a.row_idx, guard_words),
               upload_array(space, a.col_idx, guard_words),
               upload_array(space, a.values, guard_words),
               {}};
  b.view = {a.rows, a.cols, a.nnz(), b.row_idx.data(), b.col_idx.data(), b.values.data()};
  return b;
}

}  // namespace spmv
