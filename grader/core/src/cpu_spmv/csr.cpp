#include <cstddef>
#include <span>
#include <vector>

#include "cpu_spmv/product.hpp"
#include "spmv/core/formats/csr.hpp"

namespace spmv {

using namespace detail;  // the shared steps of product.hpp

std::vector<float> cpu_spmv(const CsrMatrix& a, std::span<const float> x) {
  return summed_rows(a, a.rows, a.cols, x, [&](std::vector<double>& sums) {
    for (index_t r = 0; r < a.rows; ++r) {
      for (index_t e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) sums[r] += term(a.values[e], x[a.col_idx[e]]);
    }
  });
}

}  // namespace spmv
