#include "spmv/core/formats/csr.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

#include "formats/checks.hpp"
#include "formats/conversion.hpp"

namespace spmv {

using namespace detail;  // the shared checks and conversion steps

namespace {

void validate_csr(const CsrMatrix& a) {
  constexpr std::string_view kFormat = "CSR";
  check_shape(kFormat, a.rows, a.cols);
  check_size(kFormat, "row_ptr", a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1, "rows + 1");
  check_size(kFormat, "values", a.values.size(), a.col_idx.size(), "the size of col_idx");
  check_entry_count(kFormat, a.col_idx.size());
  if (a.row_ptr[0] != 0) fail(kFormat, "row_ptr[0] = ", a.row_ptr[0], ", expected 0");
  for (index_t r = 0; r < a.rows; ++r) {
    if (a.row_ptr[r] > a.row_ptr[r + 1]) {
      fail(kFormat, "row_ptr[", r, "] = ", a.row_ptr[r], " > row_ptr[", r + 1, "] = ", a.row_ptr[r + 1]);
    }
  }
  if (a.row_ptr[a.rows] != a.nnz()) {
    fail(kFormat, "row_ptr[", a.rows, "] = ", a.row_ptr[a.rows], ", expected nnz = ", a.nnz(),
         " (the size of col_idx)");
  }
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) {
      const index_t column = a.col_idx[e];
      if (!column_in_range(column, a.cols)) {
        column_range_error(kFormat, r, column, a.cols, message("entry ", e));
      }
      if (e > a.row_ptr[r] && column <= a.col_idx[e - 1]) {
        column_order_error(kFormat, r, a.col_idx[e - 1], column, message("entry ", e - 1), message("entry ", e));
      }
    }
  }
}

}  // namespace

void CsrMatrix::validate() const { validate_csr(*this); }

std::vector<index_t> detail::row_lengths(const CsrMatrix& csr) {
  std::vector<index_t> lengths(static_cast<std::size_t>(csr.rows));
  for (index_t r = 0; r < csr.rows; ++r) lengths[r] = csr.row_length(r);
  return lengths;
}

}  // namespace spmv
