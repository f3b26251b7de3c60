#include "spmv/core/convert.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "format_layout.hpp"
#include "message.hpp"

namespace spmv {
namespace {

using detail::message;

// A slot of a padded layout (ELL, SELL): a column and a value.
constexpr std::uint64_t kSlotBytes = sizeof(index_t) + sizeof(value_t);
constexpr std::uint64_t kCooEntryBytes = 2 * sizeof(index_t) + sizeof(value_t);
constexpr std::uint64_t kMaxBytes = std::numeric_limits<std::size_t>::max();

// Sizes saturate at the largest size_t: such a size exceeds every limit,
// which is all a caller needs to know about it.
std::size_t saturating_add(std::size_t a, std::size_t b) {
  return a > kMaxBytes - b ? static_cast<std::size_t>(kMaxBytes) : a + b;
}

std::string human_bytes(std::size_t bytes) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(1);
  if (bytes >= (std::size_t{1} << 30)) {
    text << static_cast<double>(bytes) / static_cast<double>(std::size_t{1} << 30) << " GiB";
  } else if (bytes >= (std::size_t{1} << 20)) {
    text << static_cast<double>(bytes) / static_cast<double>(std::size_t{1} << 20) << " MiB";
  } else {
    text << bytes << " bytes";
  }
  return text.str();
}

std::string needed_text(std::size_t bytes) {
  return message(human_bytes(bytes), " (", bytes, " bytes)");
}

std::string over_limit_text(const ConversionLimits& limits) {
  return message("over the ", human_bytes(limits.max_bytes),
                 " limit (ConversionLimits::max_bytes = ", limits.max_bytes, ")");
}

// Padding blows up when a few rows are far longer than the typical one; the
// two numbers show whether that is the case or the matrix is simply large.
std::string row_skew_text(const CsrMatrix& csr, index_t longest) {
  const double mean = csr.rows == 0 ? 0.0 : static_cast<double>(csr.nnz()) / csr.rows;
  std::ostringstream text;
  text << "the longest row has " << longest << " entries while the mean is " << std::fixed
       << std::setprecision(1) << mean;
  return text.str();
}

index_t longest_of(const std::vector<index_t>& lengths) {
  return lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
}

// longer[L] = the number of rows with more than L entries, for
// L = 0 .. longest (so longer[longest] = 0): the JDS diagonal lengths, the
// counting-sort offsets of JDS and the tail counts of the HYB heuristic.
std::vector<index_t> rows_longer_than(const std::vector<index_t>& lengths) {
  std::vector<index_t> longer(static_cast<std::size_t>(longest_of(lengths)) + 1, 0);
  for (const index_t length : lengths) {
    if (length > 0) ++longer[length - 1];
  }
  for (std::size_t l = longer.size() - 1; l-- > 0;) longer[l] += longer[l + 1];
  return longer;
}

index_t default_hyb_width(const std::vector<index_t>& lengths) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  const std::vector<index_t> longer = rows_longer_than(lengths);
  const auto longest = static_cast<index_t>(longer.size()) - 1;
  index_t width = 0;
  // "fewer than rows / 3" compared as 3 * longer < rows: exact, no rounding
  // of rows / 3 moves the width.
  while (width < longest && 3 * std::int64_t{longer[width]} >= rows) ++width;
  return width;
}

std::vector<index_t> offsets_of(const std::vector<index_t>& lengths) {
  std::vector<index_t> offsets(lengths.size() + 1, 0);
  for (std::size_t r = 0; r < lengths.size(); ++r) offsets[r + 1] = offsets[r] + lengths[r];
  return offsets;
}

// A CSR of these row lengths with room for its entries; the caller has
// validated its source, so the total fits index_t.
CsrMatrix csr_with_lengths(index_t rows, index_t cols, const std::vector<index_t>& lengths) {
  CsrMatrix csr;
  csr.rows = rows;
  csr.cols = cols;
  csr.row_ptr = offsets_of(lengths);
  csr.col_idx.resize(static_cast<std::size_t>(csr.row_ptr.back()));
  csr.values.resize(static_cast<std::size_t>(csr.row_ptr.back()));
  return csr;
}

// Calls visit(row, k) for every k < lengths[row]: a block of rows at a
// time, k outer within the block. Between row-major CSR and a column-major
// layout (ELL slots, JDS diagonals) a plain walk streams one side but jumps
// a cache line per entry on the other; blocked, the column-major side moves
// in runs of a block's rows while the block's CSR rows stay in cache. The
// cost is the block size times each block's longest row: at most the slot
// count for ELL, and nnz + kRowBlock * longest for JDS, whose rows are sorted.
template <typename Visit>
void visit_blocked(const std::vector<index_t>& lengths, Visit&& visit) {
  // 512 rows of a 27-point stencil are ~110 KiB of CSR, inside L2; on the
  // 128^3 27-point matrix this made ELL, HYB and JDS conversion ~3x faster
  // than a slot-major walk.
  constexpr std::size_t kRowBlock = 512;
  for (std::size_t first = 0; first < lengths.size(); first += kRowBlock) {
    const std::size_t last = std::min(lengths.size(), first + kRowBlock);
    const index_t longest = *std::max_element(lengths.begin() + static_cast<std::ptrdiff_t>(first),
                                              lengths.begin() + static_cast<std::ptrdiff_t>(last));
    for (index_t k = 0; k < longest; ++k) {
      for (std::size_t r = first; r < last; ++r) {
        if (k < lengths[r]) visit(static_cast<index_t>(r), k);
      }
    }
  }
}

// Each row's first min(length, width) entries.
EllMatrix build_ell(const CsrMatrix& csr, index_t width) {
  EllMatrix ell;
  ell.rows = csr.rows;
  ell.cols = csr.cols;
  ell.width = width;
  ell.row_length.resize(static_cast<std::size_t>(csr.rows));
  for (index_t r = 0; r < csr.rows; ++r) ell.row_length[r] = std::min(csr.row_length(r), width);
  const std::size_t slots = static_cast<std::size_t>(csr.rows) * static_cast<std::size_t>(width);
  ell.col_idx.assign(slots, EllMatrix::kPaddingColumn);
  ell.values.assign(slots, 0.0F);
  visit_blocked(ell.row_length, [&](index_t r, index_t k) {
    const std::size_t s = ell.slot(r, k);
    ell.col_idx[s] = csr.col_idx[csr.row_ptr[r] + k];
    ell.values[s] = csr.values[csr.row_ptr[r] + k];
  });
  return ell;
}

// Copies the ELL entries into `csr`, row r's slot k to entry row_ptr[r] + k.
void scatter_ell(const EllMatrix& ell, CsrMatrix& csr) {
  visit_blocked(ell.row_length, [&](index_t r, index_t k) {
    const std::size_t s = ell.slot(r, k);
    csr.col_idx[csr.row_ptr[r] + k] = ell.col_idx[s];
    csr.values[csr.row_ptr[r] + k] = ell.values[s];
  });
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
    const auto end = order.begin() + static_cast<std::ptrdiff_t>(
                                         std::min(order.size(), first + window_size));
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
std::vector<std::int64_t> sell_slice_offsets(const std::vector<index_t>& position_lengths,
                                             index_t height) {
  const std::size_t positions = position_lengths.size();
  const auto slice = static_cast<std::size_t>(height);
  std::vector<std::int64_t> slice_ptr{0};
  slice_ptr.reserve((positions + slice - 1) / slice + 1);
  for (std::size_t first = 0; first < positions; first += slice) {
    const auto begin = position_lengths.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = position_lengths.begin() +
                     static_cast<std::ptrdiff_t>(std::min(positions, first + slice));
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
void visit_sell(const SellMatrix& sell, const std::vector<index_t>& position_lengths,
                Visit&& visit) {
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

void SellParams::validate() const {
  if (slice_height < 1 || slice_height > SellMatrix::kMaxSliceHeight) {
    throw std::invalid_argument(message("SELL: slice_height ", slice_height, " is outside [1, ",
                                        SellMatrix::kMaxSliceHeight, "]"));
  }
  if (sort_window < 1) {
    throw std::invalid_argument(message("SELL: sort_window ", sort_window, " is below 1"));
  }
}

std::size_t ell_bytes(index_t rows, index_t width) {
  if (rows < 0 || width < 0) {
    throw std::invalid_argument(
        message("ell_bytes: rows (", rows, ") and width (", width, ") must not be negative"));
  }
  // rows * width < 2^62 cannot overflow; the bytes of it can.
  const std::uint64_t slots = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(width);
  const std::uint64_t row_length_bytes = static_cast<std::uint64_t>(rows) * sizeof(index_t);
  if (slots > (kMaxBytes - row_length_bytes) / kSlotBytes) {
    return static_cast<std::size_t>(kMaxBytes);
  }
  return static_cast<std::size_t>(slots * kSlotBytes + row_length_bytes);
}

index_t hyb_default_width(const CsrMatrix& csr) {
  csr.validate();
  return default_hyb_width(detail::row_lengths(csr));
}

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

EllMatrix to_ell(const CsrMatrix& csr, const ConversionLimits& limits) {
  csr.validate();
  const index_t width = longest_of(detail::row_lengths(csr));
  const std::size_t bytes = ell_bytes(csr.rows, width);
  if (bytes > limits.max_bytes) {
    throw ConversionRefused(message("ELL of ", csr.rows, " rows x width ", width, " needs ",
                                    needed_text(bytes), " of padded arrays, ",
                                    over_limit_text(limits), "; ", row_skew_text(csr, width)));
  }
  return build_ell(csr, width);
}

HybMatrix to_hyb(const CsrMatrix& csr, const HybOptions& options) {
  csr.validate();
  const std::vector<index_t> lengths = detail::row_lengths(csr);
  const index_t width = options.ell_width ? *options.ell_width : default_hyb_width(lengths);
  if (width < 0) {
    throw std::invalid_argument(message("to_hyb: ELL width ", width, " is negative"));
  }
  std::int64_t coo_entries = 0;
  for (const index_t length : lengths) coo_entries += std::max(length - width, 0);
  const std::size_t ell_part = ell_bytes(csr.rows, width);
  const std::size_t coo_part = static_cast<std::size_t>(coo_entries) * kCooEntryBytes;
  const std::size_t bytes = saturating_add(ell_part, coo_part);
  if (bytes > options.limits.max_bytes) {
    throw ConversionRefused(message("HYB of ", csr.rows, " rows with ELL width ", width, " needs ",
                                    needed_text(bytes), ": ELL part ", human_bytes(ell_part),
                                    " + COO part ", human_bytes(coo_part), " for ", coo_entries,
                                    " entries, ", over_limit_text(options.limits), "; ",
                                    row_skew_text(csr, longest_of(lengths))));
  }
  HybMatrix hyb;
  hyb.ell = build_ell(csr, width);
  hyb.coo.rows = csr.rows;
  hyb.coo.cols = csr.cols;
  hyb.coo.row_idx.reserve(static_cast<std::size_t>(coo_entries));
  hyb.coo.col_idx.reserve(static_cast<std::size_t>(coo_entries));
  hyb.coo.values.reserve(static_cast<std::size_t>(coo_entries));
  for (index_t r = 0; r < csr.rows; ++r) {
    for (index_t e = csr.row_ptr[r] + width; e < csr.row_ptr[r + 1]; ++e) {
      hyb.coo.row_idx.push_back(r);
      hyb.coo.col_idx.push_back(csr.col_idx[e]);
      hyb.coo.values.push_back(csr.values[e]);
    }
  }
  return hyb;
}

JdsMatrix to_jds(const CsrMatrix& csr) {
  csr.validate();
  const std::vector<index_t> lengths = detail::row_lengths(csr);
  const std::vector<index_t> longer = rows_longer_than(lengths);
  const index_t diagonals = static_cast<index_t>(longer.size()) - 1;
  JdsMatrix jds;
  jds.rows = csr.rows;
  jds.cols = csr.cols;
  // Counting sort by decreasing length: rows of length L take the positions
  // after all longer rows, and visiting rows in index order keeps ties stable.
  jds.row_perm.resize(lengths.size());
  std::vector<index_t> next_position = longer;
  for (index_t r = 0; r < csr.rows; ++r) jds.row_perm[next_position[lengths[r]]++] = r;
  jds.jd_ptr.assign(static_cast<std::size_t>(diagonals) + 1, 0);
  for (index_t d = 0; d < diagonals; ++d) jds.jd_ptr[d + 1] = jds.jd_ptr[d] + longer[d];
  jds.col_idx.resize(csr.col_idx.size());
  jds.values.resize(csr.values.size());
  std::vector<index_t> sorted_lengths(lengths.size());
  for (index_t k = 0; k < csr.rows; ++k) sorted_lengths[k] = lengths[jds.row_perm[k]];
  visit_blocked(sorted_lengths, [&](index_t k, index_t d) {
    const index_t source = csr.row_ptr[jds.row_perm[k]] + d;
    jds.col_idx[jds.jd_ptr[d] + k] = csr.col_idx[source];
    jds.values[jds.jd_ptr[d] + k] = csr.values[source];
  });
  return jds;
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
    throw ConversionRefused(message("SELL-C-sigma (C = ", params.slice_height, ", sigma = ",
                                    params.sort_window, ") of ", csr.rows, " rows needs ", slots,
                                    " slots for ", csr.nnz(), " entries, ", needed_text(bytes),
                                    " of padded arrays, ", over_limit_text(limits), "; ",
                                    row_skew_text(csr, longest_of(lengths))));
  }
  sell.col_idx.assign(static_cast<std::size_t>(slots), SellMatrix::kPaddingColumn);
  sell.values.assign(static_cast<std::size_t>(slots), 0.0F);
  visit_sell(sell, position_lengths, [&](index_t s, index_t i, index_t p, index_t k) {
    const std::size_t slot = sell.slot(s, i, k);
    const index_t source = csr.row_ptr[sell.row_at(p)] + k;
    sell.col_idx[slot] = csr.col_idx[source];
    sell.values[slot] = csr.values[source];
  });
  return sell;
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

CsrMatrix to_csr(const EllMatrix& ell) {
  ell.validate();
  CsrMatrix csr = csr_with_lengths(ell.rows, ell.cols, ell.row_length);
  scatter_ell(ell, csr);
  return csr;
}

CsrMatrix to_csr(const HybMatrix& hyb) {
  hyb.validate();
  std::vector<index_t> lengths = hyb.ell.row_length;
  for (const index_t row : hyb.coo.row_idx) ++lengths[row];
  CsrMatrix csr = csr_with_lengths(hyb.rows(), hyb.cols(), lengths);
  scatter_ell(hyb.ell, csr);
  // A row's COO entries follow its ELL ones (validate() checked the columns).
  index_t next = 0;
  for (index_t e = 0; e < hyb.coo.nnz(); ++e) {
    const index_t row = hyb.coo.row_idx[e];
    if (e == 0 || row != hyb.coo.row_idx[e - 1]) next = csr.row_ptr[row] + hyb.ell.row_length[row];
    csr.col_idx[next] = hyb.coo.col_idx[e];
    csr.values[next] = hyb.coo.values[e];
    ++next;
  }
  return csr;
}

CsrMatrix to_csr(const JdsMatrix& jds) {
  jds.validate();
  const std::vector<index_t> sorted_lengths = detail::jds_sorted_row_lengths(jds);
  std::vector<index_t> lengths(static_cast<std::size_t>(jds.rows));
  for (index_t k = 0; k < jds.rows; ++k) lengths[jds.row_perm[k]] = sorted_lengths[k];
  CsrMatrix csr = csr_with_lengths(jds.rows, jds.cols, lengths);
  visit_blocked(sorted_lengths, [&](index_t k, index_t d) {
    const index_t target = csr.row_ptr[jds.row_perm[k]] + d;
    csr.col_idx[target] = jds.col_idx[jds.jd_ptr[d] + k];
    csr.values[target] = jds.values[jds.jd_ptr[d] + k];
  });
  return csr;
}

CsrMatrix to_csr(const SellMatrix& sell) {
  const std::vector<index_t> position_lengths = detail::sell_position_lengths(sell);  // validates
  std::vector<index_t> lengths(position_lengths.size());
  for (index_t p = 0; p < sell.rows; ++p) lengths[sell.row_at(p)] = position_lengths[p];
  CsrMatrix csr = csr_with_lengths(sell.rows, sell.cols, lengths);
  visit_sell(sell, position_lengths, [&](index_t s, index_t i, index_t p, index_t k) {
    const std::size_t slot = sell.slot(s, i, k);
    const index_t target = csr.row_ptr[sell.row_at(p)] + k;
    csr.col_idx[target] = sell.col_idx[slot];
    csr.values[target] = sell.values[slot];
  });
  return csr;
}

}  // namespace spmv
