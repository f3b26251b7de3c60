#include "spmv/core/formats/sell.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "formats/checks.hpp"
#include "formats/conversion.hpp"

namespace spmv {

using namespace detail;  // the shared checks and conversion steps

namespace {

constexpr std::string_view kFormat = "SELL";

void check_sell_parameters(const SellMatrix& a) {
  check_shape(kFormat, a.rows, a.cols);
  if (a.slice_height < 1 || a.slice_height > SellMatrix::kMaxSliceHeight) {
    fail(kFormat, "slice_height ", a.slice_height, " is outside [1, ", SellMatrix::kMaxSliceHeight, "]");
  }
  if (a.sort_window < 1) fail(kFormat, "sort_window ", a.sort_window, " is below 1");
  if (a.nnz < 0) fail(kFormat, "negative nnz (", a.nnz, ")");
}

void check_sell_slices(const SellMatrix& a) {
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
      fail(kFormat, "slice ", s, " holds ", end - begin, " slots, not a multiple of slice_height ", height);
    }
    // A slice is as wide as its longest row, which fits in a row of `cols`;
    // checked before the walk so that widths fit index_t.
    if ((end - begin) / height > a.cols) {
      fail(kFormat, "slice ", s, " is ", (end - begin) / height, " slots wide, more than cols = ", a.cols);
    }
  }
  const auto slots = static_cast<std::size_t>(a.slice_ptr.back());
  check_size(kFormat, "col_idx", a.col_idx.size(), slots, "slice_ptr[slices]");
  check_size(kFormat, "values", a.values.size(), slots, "slice_ptr[slices]");
}

void check_sell_permutation(const SellMatrix& a) {
  if (a.row_perm.empty()) return;
  check_size(kFormat, "row_perm", a.row_perm.size(), static_cast<std::size_t>(a.rows), "rows (or 0 for the identity)");
  check_permutation(kFormat, a.row_perm, a.rows);
  bool identity = true;
  for (index_t p = 0; p < a.rows; ++p) {
    const index_t row = a.row_perm[p];
    if (row / a.sort_window != p / a.sort_window) {
      const std::int64_t first = std::int64_t{p / a.sort_window} * a.sort_window;
      const std::int64_t last = std::min<std::int64_t>(first + a.sort_window, a.rows) - 1;
      fail(kFormat, "row_perm[", p, "] = ", row, " lies outside the sorting window of position ", p, " (rows ", first,
           " .. ", last, "): rows are sorted only within their window");
    }
    identity = identity && row == p;
  }
  if (identity && a.rows > 0) {
    fail(kFormat, "row_perm is the identity: it must then be empty (NULL in the view)");
  }
}

// Walks the slots in storage order, slice by slice, checking padding and
// columns; returns the entries of each position.
std::vector<index_t> check_sell_slots(const SellMatrix& a) {
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
            fail(kFormat, "padding slot ", k, " of position ", p, " (element ", slot, ") holds value ", a.values[slot],
                 ", expected 0");
          }
          continue;
        }
        if (i >= occupied) {
          fail(kFormat, "slot ", k, " of position ", p, " (element ", slot, ") holds column ", column,
               " but the matrix has ", a.rows, " rows: positions past the last row are all padding");
        }
        const index_t row = a.row_at(first + i);
        if (local_length[i] < k) {
          fail(kFormat, "row ", row, ": column ", column, " at slot ", k, " follows padding at slot ", local_length[i],
               ": a row's entries come before its padding");
        }
        if (!column_in_range(column, a.cols)) {
          column_range_error(kFormat, row, column, a.cols, message("slot ", k, " (element ", slot, ")"));
        }
        if (k > 0 && column <= a.col_idx[slot - slot_stride]) {
          column_order_error(kFormat, row, a.col_idx[slot - slot_stride], column, message("slot ", k - 1),
                             message("slot ", k));
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
  for (index_t p = 0; p + 1 < a.rows; ++p) {
    if ((p + 1) % a.sort_window == 0) continue;  // p + 1 starts the next window
    const index_t row = a.row_at(p);
    const index_t next_row = a.row_at(p + 1);
    if (lengths[p] < lengths[p + 1]) {
      fail(kFormat, "positions ", p, " and ", p + 1, " hold rows ", row, " (", lengths[p], " entries) and ", next_row,
           " (", lengths[p + 1], " entries) in one window of ", a.sort_window,
           " rows: rows not sorted by decreasing length",
           a.row_perm.empty() ? " (row_perm is empty, so the order must need no sorting)" : "");
    }
    if (lengths[p] == lengths[p + 1] && row > next_row) {
      fail(kFormat, "positions ", p, " and ", p + 1, " both have ", lengths[p], " entries but hold rows ", row, " and ",
           next_row, ": rows of equal length must keep their original order");
    }
  }
}

// The SELL row order: row_perm[p] is the row at position p, each window of
// `window` rows stably sorted by decreasing length. Empty when no window
// needs sorting (the identity), as for a matrix whose rows are alike: one
// pass over the lengths then decides it.
std::vector<index_t> sell_row_order(const std::vector<index_t>& lengths, index_t window) {
  std::vector<index_t> order(lengths.size());
  std::iota(order.begin(), order.end(), index_t{0});
  const auto longer_first = [&lengths](index_t a, index_t b) { return lengths[a] > lengths[b]; };
  const auto window_size = static_cast<std::size_t>(window);
  bool reordered = false;
  for (std::size_t first = 0; first < order.size(); first += window_size) {
    const auto begin = order.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), first + window_size));
    // A window already in order would stay as it is: a stable sort moves
    // rows only when some row is longer than the one before it.
    if (std::is_sorted(begin, end, longer_first)) continue;
    std::stable_sort(begin, end, longer_first);
    reordered = true;
  }
  if (!reordered) return {};
  return order;
}

// slice_ptr of the positions' lengths: each slice is as wide as its longest.
std::vector<std::int64_t> sell_slice_offsets(const std::vector<index_t>& position_lengths, index_t height) {
  const std::size_t positions = position_lengths.size();
  const auto slice = static_cast<std::size_t>(height);
  std::vector<std::int64_t> slice_ptr{0};
  slice_ptr.reserve((positions + slice - 1) / slice + 1);
  for (std::size_t first = 0; first < positions; first += slice) {
    const auto begin = position_lengths.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = position_lengths.begin() + static_cast<std::ptrdiff_t>(std::min(positions, first + slice));
    const index_t width = *std::max_element(begin, end);
    slice_ptr.push_back(slice_ptr.back() + std::int64_t{width} * height);
  }
  return slice_ptr;
}

std::size_t sell_bytes(std::int64_t slots) {
  const auto count = static_cast<std::uint64_t>(slots);
  if (count > kMaxBytes / kSlotBytes) return static_cast<std::size_t>(kMaxBytes);
  return static_cast<std::size_t>(count * kSlotBytes);
}

// Calls visit(s, i, p, k) for every slot k < position_lengths[p] of every
// slice s, local position i, position p = s * C + i: slot-major within a
// slice, so the slice's slots stream while its C rows stay in cache (the
// same reasoning as visit_blocked, with the slice as the block).
template <typename Visit>
void visit_sell(const SellMatrix& sell, const std::vector<index_t>& position_lengths, Visit&& visit) {
  const index_t height = sell.slice_height;
  for (index_t s = 0; s < sell.slices(); ++s) {
    const index_t first = s * height;
    const index_t occupied = std::min(height, sell.rows - first);
    const index_t width = sell.slice_width(s);
    for (index_t k = 0; k < width; ++k) {
      for (index_t i = 0; i < occupied; ++i) {
        if (k < position_lengths[first + i]) visit(s, i, first + i, k);
      }
    }
  }
}

}  // namespace

void SellMatrix::validate() const { static_cast<void>(detail::sell_position_lengths(*this)); }

std::vector<index_t> detail::sell_position_lengths(const SellMatrix& sell) {
  check_sell_parameters(sell);
  check_sell_slices(sell);
  check_sell_permutation(sell);
  std::vector<index_t> lengths = check_sell_slots(sell);
  check_sell_order(sell, lengths);
  return lengths;
}

void SellParams::validate() const {
  if (slice_height < 1 || slice_height > SellMatrix::kMaxSliceHeight) {
    throw std::invalid_argument(
        message("SELL: slice_height ", slice_height, " is outside [1, ", SellMatrix::kMaxSliceHeight, "]"));
  }
  if (sort_window < 1) {
    throw std::invalid_argument(message("SELL: sort_window ", sort_window, " is below 1"));
  }
}

SellParams sell_params_for(const CsrMatrix& csr) {
  SellParams params;
  const std::vector<index_t> lengths = detail::row_lengths(csr);
  const auto unsorted_slots = static_cast<double>(sell_slice_offsets(lengths, params.slice_height).back());
  if (unsorted_slots <= (1.0 + kSellUnsortedPadding) * static_cast<double>(csr.nnz())) params.sort_window = 1;
  return params;
}

SellMatrix to_sell(const CsrMatrix& csr, const SellParams& params, const ConversionLimits& limits) {
  params.validate();
  csr.validate();
  const std::vector<index_t> lengths = detail::row_lengths(csr);
  SellMatrix sell;
  sell.rows = csr.rows;
  sell.cols = csr.cols;
  sell.nnz = csr.nnz();
  sell.slice_height = params.slice_height;
  sell.sort_window = params.sort_window;
  sell.row_perm = sell_row_order(lengths, params.sort_window);
  std::vector<index_t> position_lengths(lengths.size());
  for (index_t p = 0; p < csr.rows; ++p) position_lengths[p] = lengths[sell.row_at(p)];
  sell.slice_ptr = sell_slice_offsets(position_lengths, params.slice_height);
  const std::int64_t slots = sell.slice_ptr.back();
  const std::size_t bytes = sell_bytes(slots);
  if (bytes > limits.max_bytes) {
    throw ConversionRefused(message("SELL-C-sigma (C = ", params.slice_height, ", sigma = ", params.sort_window,
                                    ") of ", csr.rows, " rows needs ", slots, " slots for ", csr.nnz(), " entries, ",
                                    needed_text(bytes), " of padded arrays, ", over_limit_text(limits), "; ",
                                    row_skew_text(csr, longest_of(lengths))));
  }
  sell.col_idx.assign(static_cast<std::size_t>(slots), SellMatrix::kPaddingColumn);
  sell.values.assign(static_cast<std::size_t>(slots), 0.0F);
  visit_sell(sell, position_lengths, [&](index_t s, index_t i, index_t p, index_t k) {
    copy_entry(csr, csr.row_ptr[sell.row_at(p)] + k, sell, sell.slot(s, i, k));
  });
  return sell;
}

CsrMatrix to_csr(const SellMatrix& sell) {
  const std::vector<index_t> position_lengths = detail::sell_position_lengths(sell);  // validates
  std::vector<index_t> lengths(position_lengths.size());
  for (index_t p = 0; p < sell.rows; ++p) lengths[sell.row_at(p)] = position_lengths[p];
  CsrMatrix csr = csr_with_lengths(sell.rows, sell.cols, lengths);
  visit_sell(sell, position_lengths, [&](index_t s, index_t i, index_t p, index_t k) {
    copy_entry(sell, sell.slot(s, i, k), csr, csr.row_ptr[sell.row_at(p)] + k);
  });
  return csr;
}

}  // namespace spmv
