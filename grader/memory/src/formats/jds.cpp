#include "spmv/memory/formats/jds.hpp"

namespace spmv {

JdsBuffers upload(MemorySpace space, const JdsMatrix& a, std::size_t guard_words) {
  JdsBuffers b{upload_array(space, a.row_perm, guard_words),
               upload_array(space, a.jd_ptr, guard_words),
               upload_array(space, a.col_idx, guard_words),
               upload_array(space, a.values, guard_words),
               {}};
  b.view = {a.rows,          a.cols,           a.nnz(),        a.num_diagonals(), b.row_perm.data(),
            b.jd_ptr.data(), b.col_idx.data(), b.values.data()};
  return b;
}

}  // namespace spmv
