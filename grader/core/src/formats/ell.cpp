#include "spmv/core/formats/ell.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/checks.hpp"
#include "formats/conversion.hpp"

namespace spmv {

using namespace detail;  // the shared checks and conversion steps

namespace {

void check_ell_row_lengths(const EllMatrix& a, std::string_view format) {
  std::int64_t entries = 0;
  for (index_t r = 0; r < a.rows; ++r) {
    const index_t length = a.row_length[r];
    if (length < 0) fail(format, "row_length[", r, "] = ", length, " is negative");
    if (length > a.width) {
      fail(format, "row_length[", r, "] = ", length, " exceeds width ", a.width);
    }
    entries += length;
  }
  check_entry_count(format, static_cast<std::uint64_t>(entries));
}

}  // namespace

void detail::validate_ell(const EllMatrix& a, std::string_view format) {
  check_shape(format, a.rows, a.cols);
  if (a.width < 0) fail(format, "negative width (", a.width, ")");
  check_size(format, "row_length", a.row_length.size(), static_cast<std::size_t>(a.rows), "rows");
  // Both factors are below 2^31, so the product fits in 64 bits.
  const std::size_t slots = static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(a.width);
  const std::string slots_what = message("rows x width = ", a.rows, " x ", a.width);
  check_size(format, "col_idx", a.col_idx.size(), slots, slots_what);
  check_size(format, "values", a.values.size(), slots, slots_what);
  check_ell_row_lengths(a, format);
  // Slot-major, the storage order: a slot's predecessor in its row lies
  // `rows` entries back, so both reads stream through memory.
  const auto row_stride = static_cast<std::size_t>(a.rows);
  for (index_t k = 0; k < a.width; ++k) {
    for (index_t r = 0; r < a.rows; ++r) {
      const std::size_t s = a.slot(r, k);
      const index_t column = a.col_idx[s];
      const index_t length = a.row_length[r];
      if (k < length) {
        if (column == EllMatrix::kPaddingColumn) {
          fail(format, "slot ", k, " of row ", r, " is padding (column -1) but row_length[", r, "] = ", length);
        }
        if (!column_in_range(column, a.cols)) {
          column_range_error(format, r, column, a.cols, message("slot ", k));
        }
        if (k > 0 && column <= a.col_idx[s - row_stride]) {
          column_order_error(format, r, a.col_idx[s - row_stride], column, message("slot ", k - 1),
                             message("slot ", k));
        }
      } else {
        if (column != EllMatrix::kPaddingColumn) {
          fail(format, "slot ", k, " of row ", r, " is padding (row_length[", r, "] = ", length, ") but holds column ",
               column, ", expected -1");
        }
        if (a.values[s] != 0.0F) {
          fail(format, "padding slot ", k, " of row ", r, " holds value ", a.values[s], ", expected 0");
        }
      }
    }
  }
}

void EllMatrix::validate() const { validate_ell(*this, "ELL"); }

std::int64_t EllMatrix::nnz() const { return std::accumulate(row_length.begin(), row_length.end(), std::int64_t{0}); }

std::size_t ell_bytes(index_t rows, index_t width) {
  if (rows < 0 || width < 0) {
    throw std::invalid_argument(message("ell_bytes: rows (", rows, ") and width (", width, ") must not be negative"));
  }
  // rows * width < 2^62 cannot overflow; the bytes of it can.
  const std::uint64_t slots = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(width);
  const std::uint64_t row_length_bytes = static_cast<std::uint64_t>(rows) * sizeof(index_t);
  if (slots > (kMaxBytes - row_length_bytes) / kSlotBytes) {
    return static_cast<std::size_t>(kMaxBytes);
  }
  return static_cast<std::size_t>(slots * kSlotBytes + row_length_bytes);
}

// Each row's first min(length, width) entries.
EllMatrix detail::build_ell(const CsrMatrix& csr, index_t width) {
  EllMatrix ell;
  ell.rows = csr.rows;
  ell.cols = csr.cols;
  ell.width = width;
  ell.row_length.resize(static_cast<std::size_t>(csr.rows));
  for (index_t r = 0; r < csr.rows; ++r) ell.row_length[r] = std::min(csr.row_length(r), width);
  const std::size_t slots = static_cast<std::size_t>(csr.rows) * static_cast<std::size_t>(width);
  ell.col_idx.assign(slots, EllMatrix::kPaddingColumn);
  ell.values.assign(slots, 0.0F);
  visit_blocked(ell.row_length,
                [&](index_t r, index_t k) { copy_entry(csr, csr.row_ptr[r] + k, ell, ell.slot(r, k)); });
  return ell;
}

// Copies the ELL entries into `csr`, row r's slot k to entry row_ptr[r] + k.
void detail::scatter_ell(const EllMatrix& ell, CsrMatrix& csr) {
  visit_blocked(ell.row_length,
                [&](index_t r, index_t k) { copy_entry(ell, ell.slot(r, k), csr, csr.row_ptr[r] + k); });
}

EllMatrix to_ell(const CsrMatrix& csr, const ConversionLimits& limits) {
  csr.validate();
  const index_t width = longest_of(detail::row_lengths(csr));
  const std::size_t bytes = ell_bytes(csr.rows, width);
  if (bytes > limits.max_bytes) {
    throw ConversionRefused(message("ELL of ", csr.rows, " rows x width ", width, " needs ", needed_text(bytes),
                                    " of padded arrays, ", over_limit_text(limits), "; ", row_skew_text(csr, width)));
  }
  return build_ell(csr, width);
}

CsrMatrix to_csr(const EllMatrix& ell) {
  ell.validate();
  CsrMatrix csr = csr_with_lengths(ell.rows, ell.cols, ell.row_length);
  scatter_ell(ell, csr);
  return csr;
}

}  // namespace spmv
