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
  check_inputs("COO", a, a.cols, x);
  std::vector<double> sums(static_cast<std::size_t>(a.rows), 0.0);
  add_coo(a, x, sums);
  return round_rows(sums);
}

}  // namespace spmv
