#include <cstddef>
#include <span>
#include <vector>

#include "cpu_spmv/product.hpp"
#include "spmv/core/formats/coo.hpp"

namespace spmv {

using namespace detail;  // the shared steps of product.hpp

void detail::add_coo(const CooMatrix& a, std::span<const float> x, std::vector<double>& sums) {
  for (index_t e = 0; e < a.nnz(); ++e) sums[a.row_idx[e]] += term(a.values[e], x[a.col_idx[e]]);
}

std::vector<float> cpu_spmv(const CooMatrix& a, std::span<const float> x) {
  return summed_rows(a, a.rows, a.cols, x, [&](std::vector<double>& sums) { add_coo(a, x, sums); });
}

}  // namespace spmv
