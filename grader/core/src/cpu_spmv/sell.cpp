#include <cstddef>
#include <span>
#include <vector>

#include "cpu_spmv/product.hpp"
#include "spmv/core/formats/sell.hpp"

namespace spmv {

using namespace detail;  // the shared steps of product.hpp

// Every slot of every slice, as a kernel without row lengths must visit
// them; padding is recognised by its column, and position p's sum lands in
// y[row_at(p)].
std::vector<float> cpu_spmv(const SellMatrix& a, std::span<const float> x) {
  return summed_rows(a, a.rows, a.cols, x, [&](std::vector<double>& sums) {
    for (index_t s = 0; s < a.slices(); ++s) {
      const index_t first = s * a.slice_height;
      for (index_t k = 0; k < a.slice_width(s); ++k) {
        for (index_t i = 0; i < a.slice_height; ++i) {
          const std::size_t slot = a.slot(s, i, k);
          if (a.col_idx[slot] == SellMatrix::kPaddingColumn) continue;
          sums[a.row_at(first + i)] += term(a.values[slot], x[a.col_idx[slot]]);
        }
      }
    }
  });
}

}  // namespace spmv
