#include <cstddef>
#include <span>
#include <vector>

#include "cpu_spmv/product.hpp"
#include "spmv/core/formats/hyb.hpp"

namespace spmv {

using namespace detail;  // the shared steps of product.hpp

std::vector<float> cpu_spmv(const HybMatrix& a, std::span<const float> x) {
  return summed_rows(a, a.rows(), a.cols(), x, [&](std::vector<double>& sums) {
    add_ell(a.ell, x, sums);
    add_coo(a.coo, x, sums);
  });
}

}  // namespace spmv
