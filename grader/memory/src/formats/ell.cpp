#include "spmv/memory/formats/ell.hpp"

namespace spmv {

EllBuffers upload(MemorySpace space, const EllMatrix& a, std::size_t guard_words) {
  EllBuffers b{upload_array(space, a.row_length, guard_words),
               upload_array(space, a.col_idx, guard_words),
               upload_array(space, a.values, guard_words),
               {}};
  b.view = {a.rows, a.cols, a.width, b.row_length.data(), b.col_idx.data(), b.values.data()};
  return b;
}

}  // namespace spmv
