#include <cstddef>
#include <span>
#include <vector>

#include "cpu_spmv/product.hpp"
#include "spmv/core/formats/ell.hpp"

namespace spmv {

using namespace detail;  // the shared steps of product.hpp

// Every slot is visited, as a kernel that ignores row_length would; padding
// is recognised by its column alone.
void detail::add_ell(const EllMatrix& a, std::span<const float> x, std::vector<double>& sums) {
  for (index_t k = 0; k < a.width; ++k) {
    for (index_t r = 0; r < a.rows; ++r) {
      const std::size_t s = a.slot(r, k);
      if (a.col_idx[s] == EllMatrix::kPaddingColumn) continue;
      sums[r] += term(a.values[s], x[a.col_idx[s]]);
    }
  }
}

std::vector<float> cpu_spmv(const EllMatrix& a, std::span<const float> x) {
  return summed_rows(a, a.rows, a.cols, x, [&](std::vector<double>& sums) { add_ell(a, x, sums); });
}

}  // namespace spmv
