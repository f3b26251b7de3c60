#include "spmv/core/formats.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "format_layout.hpp"
#include "message.hpp"

namespace spmv {
namespace {

using detail::message;

// Every format's entries are addressed by int32 indices on the device (CSR
// row_ptr, COO and JDS offsets), so no container may hold more.
constexpr std::int64_t kMaxEntries = std::numeric_limits<index_t>::max();

// `format` names the container in the message: "CSR", "HYB: ELL part", ...
template <typename... Parts>
[[noreturn]] void fail(std::string_view format, const Parts&... parts) {
  throw FormatError(message(format, ": ", parts...));
}

void check_shape(std::string_view format, index_t rows, index_t cols) {
  if (rows < 0) fail(format, "negative rows (", rows, ")");
  if (cols < 0) fail(format, "negative cols (", cols, ")");
}

void check_size(std::string_view format, std::string_view array, std::size_t actual,
                std::size_t expected, std::string_view expected_what) {
  if (actual != expected) {
    fail(format, array, " has ", actual, " entries, expected ", expected_what, " = ", expected);
  }
}

void check_entry_count(std::string_view format, std::uint64_t entries) {
  if (entries > static_cast<std::uint64_t>(kMaxEntries)) {
    fail(format, entries, " entries, more than int32 indices can address (", kMaxEntries, ")");
  }
}

bool column_in_range(index_t column, index_t cols) { return column >= 0 && column < cols; }

// The `at` texts locate an entry in the format's own terms ("entry 17",
// "slot 3", "diagonal 2"); callers build them only on the failure path.
[[noreturn]] void column_range_error(std::string_view format, index_t row, index_t column,
                                     index_t cols, const std::string& at) {
  fail(format, "row ", row, ": column ", column, " at ", at, " is outside [0, ", cols, ")");
}

[[noreturn]] void column_order_error(std::string_view format, index_t row, index_t previous,
                                     index_t column, const std::string& previous_at,
                                     const std::string& at) {
  if (column == previous) {
    fail(format, "row ", row, " holds column ", column, " twice (", previous_at, " and ", at, ")");
  }
  fail(format, "row ", row, " columns not increasing: column ", column, " at ", at,
       " follows column ", previous, " at ", previous_at);
}

void validate_csr(const CsrMatrix& a) {
  constexpr std::string_view kFormat = "CSR";
  check_shape(kFormat, a.rows, a.cols);
  check_size(kFormat, "row_ptr", a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1,
             "rows + 1");
  check_size(kFormat, "values", a.values.size(), a.col_idx.size(), "the size of col_idx");
  check_entry_count(kFormat, a.col_idx.size());
  if (a.row_ptr[0] != 0) fail(kFormat, "row_ptr[0] = ", a.row_ptr[0], ", expected 0");
  for (index_t r = 0; r < a.rows; ++r) {
    if (a.row_ptr[r] > a.row_ptr[r + 1]) {
      fail(kFormat, "row_ptr[", r, "] = ", a.row_ptr[r], " > row_ptr[", r + 1,
           "] = ", a.row_ptr[r + 1]);
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
        column_order_error(kFormat, r, a.col_idx[e - 1], column, message("entry ", e - 1),
                           message("entry ", e));
      }
    }
  }
}

void validate_coo(const CooMatrix& a, std::string_view format) {
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
      fail(format, "entries not sorted by row at entry ", e, ": row ", row, " follows row ",
           previous_row);
    }
    if (row == previous_row && column <= a.col_idx[e - 1]) {
      column_order_error(format, row, a.col_idx[e - 1], column, message("entry ", e - 1),
                         message("entry ", e));
    }
  }
}

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

void validate_ell(const EllMatrix& a, std::string_view format) {
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
          fail(format, "slot ", k, " of row ", r, " is padding (column -1) but row_length[", r,
               "] = ", length);
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
          fail(format, "slot ", k, " of row ", r, " is padding (row_length[", r, "] = ", length,
               ") but holds column ", column, ", expected -1");
        }
        if (a.values[s] != 0.0F) {
          fail(format, "padding slot ", k, " of row ", r, " holds value ", a.values[s],
               ", expected 0");
        }
      }
    }
  }
}

void validate_hyb(const HybMatrix& a) {
  constexpr std::string_view kFormat = "HYB";
  validate_ell(a.ell, "HYB: ELL part");
  validate_coo(a.coo, "HYB: COO part");
  if (a.ell.rows != a.coo.rows || a.ell.cols != a.coo.cols) {
    fail(kFormat, "ELL part is ", a.ell.rows, " x ", a.ell.cols, " but COO part is ", a.coo.rows,
         " x ", a.coo.cols);
  }
  check_entry_count(kFormat, static_cast<std::uint64_t>(a.ell.nnz() + a.coo.nnz()));
  for (index_t e = 0; e < a.coo.nnz(); ++e) {
    const index_t row = a.coo.row_idx[e];
    const index_t length = a.ell.row_length[row];
    if (length < a.ell.width) {
      fail(kFormat, "row ", row, " has entries in the COO part (entry ", e,
           ") but its ELL part is not full: row_length[", row, "] = ", length, " < width ",
           a.ell.width);
    }
    if (a.ell.width == 0) continue;
    const index_t last_ell_column = a.ell.col_idx[a.ell.slot(row, a.ell.width - 1)];
    if (a.coo.col_idx[e] <= last_ell_column) {
      fail(kFormat, "row ", row, ": COO entry ", e, " has column ", a.coo.col_idx[e],
           ", not after the row's last ELL column ", last_ell_column,
           " (a row's first entries are in ELL, the rest in COO)");
    }
  }
}

void check_jds_diagonals(const JdsMatrix& a) {
  constexpr std::string_view kFormat = "JDS";
  if (a.jd_ptr[0] != 0) fail(kFormat, "jd_ptr[0] = ", a.jd_ptr[0], ", expected 0");
  const std::size_t diagonals = a.jd_ptr.size() - 1;
  index_t previous_length = 0;
  for (std::size_t d = 0; d < diagonals; ++d) {
    const index_t begin = a.jd_ptr[d];
    const index_t end = a.jd_ptr[d + 1];
    if (end < begin) {
      fail(kFormat, "jd_ptr[", d, "] = ", begin, " > jd_ptr[", d + 1, "] = ", end);
    }
    if (end == begin) {
      fail(kFormat, "diagonal ", d, " is empty (jd_ptr[", d, "] = jd_ptr[", d + 1, "] = ", begin,
           "): num_diagonals must equal the longest row's length");
    }
    const index_t length = end - begin;
    if (length > a.rows) {
      fail(kFormat, "diagonal ", d, " has ", length, " entries, more than rows = ", a.rows);
    }
    if (d > 0 && length > previous_length) {
      fail(kFormat, "diagonal ", d, " longer than diagonal ", d - 1, " (", length, " > ",
           previous_length, " entries): rows not sorted by decreasing length");
    }
    previous_length = length;
  }
  if (a.jd_ptr.back() != a.nnz()) {
    fail(kFormat, "jd_ptr[", diagonals, "] = ", a.jd_ptr.back(), ", expected nnz = ", a.nnz(),
         " (the size of col_idx)");
  }
}

void check_jds_permutation(const JdsMatrix& a) {
  constexpr std::string_view kFormat = "JDS";
  std::vector<index_t> position(static_cast<std::size_t>(a.rows), -1);
  for (index_t k = 0; k < a.rows; ++k) {
    const index_t row = a.row_perm[k];
    if (row < 0 || row >= a.rows) {
      fail(kFormat, "row_perm[", k, "] = ", row, " is outside [0, ", a.rows, ")");
    }
    if (position[row] >= 0) {
      fail(kFormat, "row_perm is not a permutation: row ", row, " appears at positions ",
           position[row], " and ", k);
    }
    position[row] = k;
  }
  const std::vector<index_t> lengths = detail::jds_sorted_row_lengths(a);
  for (index_t k = 0; k + 1 < a.rows; ++k) {
    if (lengths[k] == lengths[k + 1] && a.row_perm[k] > a.row_perm[k + 1]) {
      fail(kFormat, "sorted rows ", k, " and ", k + 1, " both have ", lengths[k],
           " entries but hold rows ", a.row_perm[k], " and ", a.row_perm[k + 1],
           ": rows of equal length must keep their original order");
    }
  }
}

void check_jds_columns(const JdsMatrix& a) {
  constexpr std::string_view kFormat = "JDS";
  for (index_t d = 0; d < a.num_diagonals(); ++d) {
    const index_t begin = a.jd_ptr[d];
    for (index_t k = 0; k < a.jd_ptr[d + 1] - begin; ++k) {
      const index_t row = a.row_perm[k];
      const index_t column = a.col_idx[begin + k];
      if (!column_in_range(column, a.cols)) {
        column_range_error(kFormat, row, column, a.cols,
                           message("diagonal ", d, " (entry ", begin + k, ")"));
      }
      if (d == 0) continue;
      const index_t previous = a.col_idx[a.jd_ptr[d - 1] + k];
      if (column <= previous) {
        column_order_error(kFormat, row, previous, column, message("diagonal ", d - 1),
                           message("diagonal ", d));
      }
    }
  }
}

void validate_jds(const JdsMatrix& a) {
  constexpr std::string_view kFormat = "JDS";
  check_shape(kFormat, a.rows, a.cols);
  check_size(kFormat, "row_perm", a.row_perm.size(), static_cast<std::size_t>(a.rows), "rows");
  if (a.jd_ptr.empty()) fail(kFormat, "jd_ptr is empty, expected num_diagonals + 1 entries");
  check_size(kFormat, "values", a.values.size(), a.col_idx.size(), "the size of col_idx");
  check_entry_count(kFormat, a.col_idx.size());
  check_jds_diagonals(a);
  check_jds_permutation(a);
  check_jds_columns(a);
}

void check_sell_parameters(const SellMatrix& a) {
  constexpr std::string_view kFormat = "SELL";
  check_shape(kFormat, a.rows, a.cols);
  if (a.slice_height < 1 || a.slice_height > SellMatrix::kMaxSliceHeight) {
    fail(kFormat, "slice_height ", a.slice_height, " is outside [1, ",
         SellMatrix::kMaxSliceHeight, "]");
  }
  if (a.sort_window < 1) fail(kFormat, "sort_window ", a.sort_window, " is below 1");
  if (a.nnz < 0) fail(kFormat, "negative nnz (", a.nnz, ")");
}

void check_sell_slices(const SellMatrix& a) {
  constexpr std::string_view kFormat = "SELL";
  const std::int64_t height = a.slice_height;
  const std::int64_t slices = (a.rows + height - 1) / height;
  check_size(kFormat, "slice_ptr", a.slice_ptr.size(), static_cast<std::size_t>(slices) + 1,
             message("ceil(rows / slice_height) + 1 = ceil(", a.rows, " / ", height, ") + 1"));
  if (a.slice_ptr[0] != 0) fail(kFormat, "slice_ptr[0] = ", a.slice_ptr[0], ", expected 0");
  for (std::int64_t s = 0; s < slices; ++s) {
    const std::int64_t begin = a.slice_ptr[s];
    const std::int64_t end = a.slice_ptr[s + 1];
    if (end < begin) {
      fail(kFormat, "slice_ptr[", s, "] = ", begin, " > slice_ptr[", s + 1, "] = ", end);
    }
    if ((end - begin) % height != 0) {
      fail(kFormat, "slice ", s, " holds ", end - begin, " slots, not a multiple of slice_height ",
           height);
    }
    // A slice is as wide as its longest row, which fits in a row of `cols`;
    // checked before the walk so that widths fit index_t.
    if ((end - begin) / height > a.cols) {
      fail(kFormat, "slice ", s, " is ", (end - begin) / height, " slots wide, more than cols = ",
           a.cols);
    }
  }
  const auto slots = static_cast<std::size_t>(a.slice_ptr.back());
  check_size(kFormat, "col_idx", a.col_idx.size(), slots, "slice_ptr[slices]");
  check_size(kFormat, "values", a.values.size(), slots, "slice_ptr[slices]");
}

void check_sell_permutation(const SellMatrix& a) {
  constexpr std::string_view kFormat = "SELL";
  if (a.row_perm.empty()) return;
  check_size(kFormat, "row_perm", a.row_perm.size(), static_cast<std::size_t>(a.rows),
             "rows (or 0 for the identity)");
  std::vector<index_t> position(static_cast<std::size_t>(a.rows), -1);
  bool identity = true;
  for (index_t p = 0; p < a.rows; ++p) {
    const index_t row = a.row_perm[p];
    if (row < 0 || row >= a.rows) {
      fail(kFormat, "row_perm[", p, "] = ", row, " is outside [0, ", a.rows, ")");
    }
    if (position[row] >= 0) {
      fail(kFormat, "row_perm is not a permutation: row ", row, " appears at positions ",
           position[row], " and ", p);
    }
    if (row / a.sort_window != p / a.sort_window) {
      const std::int64_t first = std::int64_t{p / a.sort_window} * a.sort_window;
      const std::int64_t last = std::min<std::int64_t>(first + a.sort_window, a.rows) - 1;
      fail(kFormat, "row_perm[", p, "] = ", row, " lies outside the sorting window of position ",
           p, " (rows ", first, " .. ", last, "): rows are sorted only within their window");
    }
    position[row] = p;
    identity = identity && row == p;
  }
  if (identity && a.rows > 0) {
    fail(kFormat, "row_perm is the identity: it must then be empty (NULL in the view)");
  }
}

// Walks the slots in storage order, slice by slice, checking padding and
// columns; returns the entries of each position.
std::vector<index_t> check_sell_slots(const SellMatrix& a) {
  constexpr std::string_view kFormat = "SELL";
  const index_t height = a.slice_height;
  const auto slot_stride = static_cast<std::size_t>(height);  // slot k to k + 1
  std::vector<index_t> lengths(static_cast<std::size_t>(a.rows), 0);
  std::vector<index_t> local_length(static_cast<std::size_t>(height));
  std::int64_t entries = 0;
  for (index_t s = 0; s < a.slices(); ++s) {
    const index_t first = s * height;  // < rows, so no overflow
    const index_t occupied = std::min(height, a.rows - first);
    const index_t width = a.slice_width(s);
    std::fill(local_length.begin(), local_length.end(), 0);
    for (index_t k = 0; k < width; ++k) {
      for (index_t i = 0; i < height; ++i) {
        const std::size_t slot = a.slot(s, i, k);
        const index_t column = a.col_idx[slot];
        const std::int64_t p = std::int64_t{first} + i;  // past rows in the last slice
        if (column == SellMatrix::kPaddingColumn) {
          if (a.values[slot] != 0.0F) {
            fail(kFormat, "padding slot ", k, " of position ", p, " (element ", slot,
                 ") holds value ", a.values[slot], ", expected 0");
          }
          continue;
        }
        if (i >= occupied) {
          fail(kFormat, "slot ", k, " of position ", p, " (element ", slot, ") holds column ",
               column, " but the matrix has ", a.rows,
               " rows: positions past the last row are all padding");
        }
        const index_t row = a.row_at(first + i);
        if (local_length[i] < k) {
          fail(kFormat, "row ", row, ": column ", column, " at slot ", k,
               " follows padding at slot ", local_length[i],
               ": a row's entries come before its padding");
        }
        if (!column_in_range(column, a.cols)) {
          column_range_error(kFormat, row, column, a.cols,
                             message("slot ", k, " (element ", slot, ")"));
        }
        if (k > 0 && column <= a.col_idx[slot - slot_stride]) {
          column_order_error(kFormat, row, a.col_idx[slot - slot_stride], column,
                             message("slot ", k - 1), message("slot ", k));
        }
        local_length[i] = k + 1;
      }
    }
    const index_t longest = *std::max_element(local_length.begin(), local_length.end());
    if (longest != width) {
      fail(kFormat, "slice ", s, " is ", width, " slots wide but its longest row has ", longest,
           " entries: a slice is exactly as wide as its longest row");
    }
    const auto used = local_length.begin() + occupied;
    std::copy(local_length.begin(), used, lengths.begin() + first);
    entries += std::accumulate(local_length.begin(), used, std::int64_t{0});
  }
  check_entry_count(kFormat, static_cast<std::uint64_t>(entries));
  if (entries != a.nnz) fail(kFormat, "nnz = ", a.nnz, " but the slots hold ", entries, " entries");
  return lengths;
}

// Within a window, positions hold rows by decreasing length, ties in their
// original order (a stable sort); with row_perm empty the rows must already
// be in that order.
void check_sell_order(const SellMatrix& a, const std::vector<index_t>& lengths) {
  constexpr std::string_view kFormat = "SELL";
  for (index_t p = 0; p + 1 < a.rows; ++p) {
    if ((p + 1) % a.sort_window == 0) continue;  // p + 1 starts the next window
    const index_t row = a.row_at(p);
    const index_t next_row = a.row_at(p + 1);
    if (lengths[p] < lengths[p + 1]) {
      fail(kFormat, "positions ", p, " and ", p + 1, " hold rows ", row, " (", lengths[p],
           " entries) and ", next_row, " (", lengths[p + 1], " entries) in one window of ",
           a.sort_window, " rows: rows not sorted by decreasing length",
           a.row_perm.empty() ? " (row_perm is empty, so the order must need no sorting)" : "");
    }
    if (lengths[p] == lengths[p + 1] && row > next_row) {
      fail(kFormat, "positions ", p, " and ", p + 1, " both have ", lengths[p],
           " entries but hold rows ", row, " and ", next_row,
           ": rows of equal length must keep their original order");
    }
  }
}

}  // namespace

void CsrMatrix::validate() const { validate_csr(*this); }
void CooMatrix::validate() const { validate_coo(*this, "COO"); }
void EllMatrix::validate() const { validate_ell(*this, "ELL"); }
void HybMatrix::validate() const { validate_hyb(*this); }
void JdsMatrix::validate() const { validate_jds(*this); }
void SellMatrix::validate() const { static_cast<void>(detail::sell_position_lengths(*this)); }

std::int64_t EllMatrix::nnz() const {
  return std::accumulate(row_length.begin(), row_length.end(), std::int64_t{0});
}

namespace detail {

std::vector<index_t> row_lengths(const CsrMatrix& csr) {
  std::vector<index_t> lengths(static_cast<std::size_t>(csr.rows));
  for (index_t r = 0; r < csr.rows; ++r) lengths[r] = csr.row_length(r);
  return lengths;
}

std::vector<index_t> jds_sorted_row_lengths(const JdsMatrix& jds) {
  std::vector<index_t> lengths(static_cast<std::size_t>(jds.rows));
  index_t longer = jds.num_diagonals();
  for (index_t k = 0; k < jds.rows; ++k) {
    while (longer > 0 && jds.jd_ptr[longer] - jds.jd_ptr[longer - 1] <= k) --longer;
    lengths[k] = longer;
  }
  return lengths;
}

std::vector<index_t> sell_position_lengths(const SellMatrix& sell) {
  check_sell_parameters(sell);
  check_sell_slices(sell);
  check_sell_permutation(sell);
  std::vector<index_t> lengths = check_sell_slots(sell);
  check_sell_order(sell, lengths);
  return lengths;
}

}  // namespace detail
}  // namespace spmv
