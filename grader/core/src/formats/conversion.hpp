// What the conversions from and to CSR share: sizes and the texts of a
// refusal, row lengths and their counts, and the blocked walk between
// row-major CSR and a column-major layout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "message.hpp"
#include "spmv/core/formats.hpp"

namespace spmv::detail {

// A slot of a padded layout (ELL, SELL): a column and a value.
inline constexpr std::uint64_t kSlotBytes = sizeof(index_t) + sizeof(value_t);
inline constexpr std::uint64_t kCooEntryBytes = 2 * sizeof(index_t) + sizeof(value_t);
inline constexpr std::uint64_t kMaxBytes = std::numeric_limits<std::size_t>::max();

// Sizes saturate at the largest size_t: such a size exceeds every limit,
// which is all a caller needs to know about it.
inline std::size_t saturating_add(std::size_t a, std::size_t b) {
  return a > kMaxBytes - b ? static_cast<std::size_t>(kMaxBytes) : a + b;
}

inline std::string human_bytes(std::size_t bytes) {
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

inline std::string needed_text(std::size_t bytes) { return message(human_bytes(bytes), " (", bytes, " bytes)"); }

inline std::string over_limit_text(const ConversionLimits& limits) {
  return message("over the ", human_bytes(limits.max_bytes), " limit (ConversionLimits::max_bytes = ", limits.max_bytes,
                 ")");
}

// Padding blows up when a few rows are far longer than the typical one; the
// two numbers show whether that is the case or the matrix is simply large.
inline std::string row_skew_text(const CsrMatrix& csr, index_t longest) {
  const double mean = csr.rows == 0 ? 0.0 : static_cast<double>(csr.nnz()) / csr.rows;
  std::ostringstream text;
  text << "the longest row has " << longest << " entries while the mean is " << std::fixed << std::setprecision(1)
       << mean;
  return text.str();
}

inline index_t longest_of(const std::vector<index_t>& lengths) {
  return lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
}

// longer[L] = the number of rows with more than L entries, for
// L = 0 .. longest (so longer[longest] = 0): the lengths of diagonals,
// counting-sort offsets by length, the tail counts of a width heuristic.
inline std::vector<index_t> rows_longer_than(const std::vector<index_t>& lengths) {
  std::vector<index_t> longer(static_cast<std::size_t>(longest_of(lengths)) + 1, 0);
  for (const index_t length : lengths) {
    if (length > 0) ++longer[length - 1];
  }
  for (std::size_t l = longer.size() - 1; l-- > 0;) longer[l] += longer[l + 1];
  return longer;
}

inline std::vector<index_t> offsets_of(const std::vector<index_t>& lengths) {
  std::vector<index_t> offsets(lengths.size() + 1, 0);
  for (std::size_t r = 0; r < lengths.size(); ++r) offsets[r + 1] = offsets[r] + lengths[r];
  return offsets;
}

// A CSR of these row lengths with room for its entries; the caller has
// validated its source, so the total fits index_t.
inline CsrMatrix csr_with_lengths(index_t rows, index_t cols, const std::vector<index_t>& lengths) {
  CsrMatrix csr;
  csr.rows = rows;
  csr.cols = cols;
  csr.row_ptr = offsets_of(lengths);
  csr.col_idx.resize(static_cast<std::size_t>(csr.row_ptr.back()));
  csr.values.resize(static_cast<std::size_t>(csr.row_ptr.back()));
  return csr;
}

// Entry `from_entry` of `from` (its column and value) copied to entry
// `to_entry` of `to`: every conversion between CSR and another layout moves
// its entries so, in either direction.
template <typename From, typename To>
void copy_entry(const From& from, std::size_t from_entry, To& to, std::size_t to_entry) {
  to.col_idx[to_entry] = from.col_idx[from_entry];
  to.values[to_entry] = from.values[from_entry];
}

// Calls visit(row, k) for every k < lengths[row]: a block of rows at a
// time, k outer within the block. Between row-major CSR and a column-major
// layout (slots, diagonals) a plain walk streams one side but jumps
// a cache line per entry on the other; blocked, the column-major side moves
// in runs of a block's rows while the block's CSR rows stay in cache. The
// cost is the block size times each block's longest row: at most the slot
// count of a padded layout, and nnz + kRowBlock * longest where rows are sorted
// by length.
template <typename Visit>
void visit_blocked(const std::vector<index_t>& lengths, Visit&& visit) {
  // 512 rows of a 27-point stencil are ~110 KiB of CSR, inside L2; on the
  // 128^3 27-point matrix this made the conversions of the column-major
  // layouts ~3x faster
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

// ELL's conversions, which HYB's ELL part shares (defined in ell.cpp).
// Each row's first min(length, width) entries.
EllMatrix build_ell(const CsrMatrix& csr, index_t width);
// Copies the ELL entries into `csr`, row r's slot k to entry row_ptr[r] + k.
void scatter_ell(const EllMatrix& ell, CsrMatrix& csr);

}  // namespace spmv::detail
