#include "spmv/core/formats/coo.hpp"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "formats/checks.hpp"
#include "formats/conversion.hpp"

namespace spmv {

using namespace detail;  // the shared checks and conversion steps

void detail::validate_coo(const CooMatrix& a, std::string_view format) {
  check_shape(format, a.rows, a.cols);
  check_size(format, "col_idx", a.col_idx.size(), a.row_idx.size(), "the size of row_idx");
  check_size(format, "values", a.values.size(), a.row_idx.size(), "the size of row_idx");
  check_entry_count(format, a.row_idx.size());
  for (index_t e = 0; e < a.nnz(); ++e) {
    const index_t row = a.row_idx[e];
    const index_t column = a.col_idx[e];
    if (row < 0 || row >= a.rows) {
      fail(format, "entry ", e, " has row ", row, ", outside [0, ", a.rows, ")");
    }
    if (!column_in_range(column, a.cols)) {
      column_range_error(format, row, column, a.cols, message("entry ", e));
    }
    if (e == 0) continue;
    const index_t previous_row = a.row_idx[e - 1];
    if (row < previous_row) {
      fail(format, "entries not sorted by row at entry ", e, ": row ", row, " follows row ", previous_row);
    }
    if (row == previous_row && column <= a.col_idx[e - 1]) {
      column_order_error(format, row, a.col_idx[e - 1], column, message("entry ", e - 1), message("entry ", e));
    }
  }
}

void CooMatrix::validate() const { validate_coo(*this, "COO"); }

CooMatrix to_coo(const CsrMatrix& csr) {
  csr.validate();
  CooMatrix coo;
  coo.rows = csr.rows;
  coo.cols = csr.cols;
  coo.row_idx.resize(csr.col_idx.size());
  for (index_t r = 0; r < csr.rows; ++r) {
    std::fill(coo.row_idx.begin() + csr.row_ptr[r], coo.row_idx.begin() + csr.row_ptr[r + 1], r);
  }
  coo.col_idx = csr.col_idx;
  coo.values = csr.values;
  return coo;
}

CsrMatrix to_csr(const CooMatrix& coo) {
  coo.validate();
  std::vector<index_t> lengths(static_cast<std::size_t>(coo.rows), 0);
  for (const index_t row : coo.row_idx) ++lengths[row];
  CsrMatrix csr = csr_with_lengths(coo.rows, coo.cols, lengths);
  // Sorted by row, then column: already CSR's entry order.
  csr.col_idx = coo.col_idx;
  csr.values = coo.values;
  return csr;
}

}  // namespace spmv
