#include "spmv/core/cpu_spmv.hpp"

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "message.hpp"

namespace spmv {
namespace {

// Each product of two floats is exact in fp64; only the sums round.
double term(value_t value, float x) { return static_cast<double>(value) * static_cast<double>(x); }

// The container is validated first: its indices then stay inside x and y.
template <typename Matrix>
void check_inputs(std::string_view format, const Matrix& a, index_t cols,
                  std::span<const float> x) {
  a.validate();
  if (x.size() != static_cast<std::size_t>(cols)) {
    throw std::invalid_argument(detail::message("cpu_spmv(", format, "): x has ", x.size(),
                                                " entries, expected cols = ", cols));
  }
}

std::vector<float> round_rows(const std::vector<double>& sums) {
  std::vector<float> y(sums.size());
  for (std::size_t r = 0; r < sums.size(); ++r) y[r] = static_cast<float>(sums[r]);
  return y;
}

void add_coo(const CooMatrix& a, std::span<const float> x, std::vector<double>& sums) {
  for (index_t e = 0; e < a.nnz(); ++e) sums[a.row_idx[e]] += term(a.values[e], x[a.col_idx[e]]);
}

// Every slot is visited, as a kernel that ignores row_length would; padding
// is recognised by its column alone.
void add_ell(const EllMatrix& a, std::span<const float> x, std::vector<double>& sums) {
  for (index_t k = 0; k < a.width; ++k) {
    for (index_t r = 0; r < a.rows; ++r) {
      const std::size_t s = a.slot(r, k);
      if (a.col_idx[s] == EllMatrix::kPaddingColumn) continue;
      sums[r] += term(a.values[s], x[a.col_idx[s]]);
    }
  }
}

}  // namespace

std::vector<float> cpu_spmv(const CsrMatrix& a, std::span<const float> x) {
  check_inputs("CSR", a, a.cols, x);
  std::vector<double> sums(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) {
      sums[r] += term(a.values[e], x[a.col_idx[e]]);
    }
  }
  return round_rows(sums);
}

std::vector<float> cpu_spmv(const CooMatrix& a, std::span<const float> x) {
  check_inputs("COO", a, a.cols, x);
  std::vector<double> sums(static_cast<std::size_t>(a.rows), 0.0);
  add_coo(a, x, sums);
  return round_rows(sums);
}

std::vector<float> cpu_spmv(const EllMatrix& a, std::span<const float> x) {
  check_inputs("ELL", a, a.cols, x);
  std::vector<double> sums(static_cast<std::size_t>(a.rows), 0.0);
  add_ell(a, x, sums);
  return round_rows(sums);
}

std::vector<float> cpu_spmv(const HybMatrix& a, std::span<const float> x) {
  check_inputs("HYB", a, a.cols(), x);
  std::vector<double> sums(static_cast<std::size_t>(a.rows()), 0.0);
  add_ell(a.ell, x, sums);
  add_coo(a.coo, x, sums);
  return round_rows(sums);
}

// Sorted row k accumulates diagonal by diagonal and lands in y[row_perm[k]].
std::vector<float> cpu_spmv(const JdsMatrix& a, std::span<const float> x) {
  check_inputs("JDS", a, a.cols, x);
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

// Every slot of every slice, as a kernel without row lengths must visit
// them; padding is recognised by its column, and position p's sum lands in
// y[row_at(p)].
std::vector<float> cpu_spmv(const SellMatrix& a, std::span<const float> x) {
  check_inputs("SELL", a, a.cols, x);
  std::vector<double> sums(static_cast<std::size_t>(a.rows), 0.0);
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
  return round_rows(sums);
}

}  // namespace spmv
