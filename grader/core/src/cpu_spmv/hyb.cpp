#include <cstddef>
#include <span>
#include <vector>

#include "cpu_spmv/product.hpp"
#include "spmv/core/formats/hyb.hpp"

namespace spmv {

using namespace detail;  // the shared steps of product.hpp

std::vector<float> cpu_spmv(const HybMatrix& a, std::span<const float> x) {
  check_inputs("HYB", a, a.cols(), x);
  std::vector<double> sums(static_cast<std::size_t>(a.rows()), 0.0);
  add_ell(a.ell, x, sums);
  add_coo(a.coo, x, sums);
  return round_rows(sums);
}

}  // namespace spmv
