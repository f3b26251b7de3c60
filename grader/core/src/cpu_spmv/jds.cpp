#include <cstddef>
#include <span>
#include <vector>

#include "cpu_spmv/product.hpp"
#include "spmv/core/formats/jds.hpp"

namespace spmv {

using namespace detail;  // the shared steps of product.hpp

// Sorted row k accumulates diagonal by diagonal and lands in y[row_perm[k]].
std::vector<float> cpu_spmv(const JdsMatrix& a, std::span<const float> x) {
  check_inputs(FormatTraits<JdsMatrix>::label, a, a.cols, x);
  std::vector<double> sorted_sums(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t d = 0; d < a.num_diagonals(); ++d) {
    const index_t begin = a.jd_ptr[d];
    for (index_t k = 0; k < a.jd_ptr[d + 1] - begin; ++k) {
      sorted_sums[k] += term(a.values[begin + k], x[a.col_idx[begin + k]]);
    }
  }
  std::vector<float> y(static_cast<std::size_t>(a.rows));
  for (index_t k = 0; k < a.rows; ++k) y[a.row_perm[k]] = static_cast<float>(sorted_sums[k]);
  return y;
}

}  // namespace spmv
