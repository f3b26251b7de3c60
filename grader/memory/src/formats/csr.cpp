#include "spmv/memory/formats/csr.hpp"

namespace spmv {

CsrBuffers upload(MemorySpace space, const CsrMatrix& a, std::size_t guard_words) {
  CsrBuffers b{upload_array(space, a.row_ptr, guard_words),
               upload_array(space, a.col_idx, guard_words),
               upload_array(space, a.values, guard_words),
               {}};
  b.view = {a.rows, a.cols, a.nnz(), b.row_ptr.data(), b.col_idx.data(), b.values.data()};
  return b;
}

}  // namespace spmv
