// SELL-C-sigma (contract/include/spmv/contract/sell.h): slices of C rows,
// each an ELL block, rows sorted by length within windows of sigma rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "spmv/core/format_base.hpp"
#include "spmv/core/formats/csr.hpp"

namespace spmv {

// Rows stably sorted by decreasing length within each window of sort_window
// rows; position p holds row row_perm[p] (row_perm empty: the identity, and
// only then). Slice s is an ELL block of slice_height positions,
// column-major from slice_ptr[s]: slot k of local position i at
// slice_ptr[s] + k * C + i. Padding slots hold column -1 and value 0, after
// each row's entries.
struct SellMatrix {
  static constexpr index_t kPaddingColumn = -1;
  static constexpr index_t kMaxSliceHeight = 1024;

  // The parameters default to SellParams' (below), so SellMatrix{} is what
  // to_sell makes of a 0 x 0 matrix.
  index_t rows = 0;
  index_t cols = 0;
  index_t nnz = 0;                         // real entries, padding excluded
  index_t slice_height = 32;               // C
  index_t sort_window = 256;               // sigma
  std::vector<std::int64_t> slice_ptr{0};  // slices + 1
  std::vector<index_t> row_perm;           // rows, or empty for the identity
  std::vector<index_t> col_idx;            // slice_ptr.back()
  std::vector<value_t> values;             // slice_ptr.back()

  [[nodiscard]] index_t slices() const { return static_cast<index_t>(slice_ptr.size()) - 1; }
  [[nodiscard]] index_t row_at(index_t position) const { return row_perm.empty() ? position : row_perm[position]; }
  // Slots per position of slice s (its longest row).
  [[nodiscard]] index_t slice_width(index_t s) const {
    return static_cast<index_t>((slice_ptr[s + 1] - slice_ptr[s]) / slice_height);
  }
  [[nodiscard]] std::size_t slot(index_t s, index_t local_position, index_t k) const {
    return static_cast<std::size_t>(slice_ptr[s]) +
           static_cast<std::size_t>(k) * static_cast<std::size_t>(slice_height) +
           static_cast<std::size_t>(local_position);
  }
  void validate() const;
};

// SELL-C-sigma's two parameters (Kreutzer et al., 2014).
struct SellParams {
  // C: one warp per slice, so a warp's threads run rows of one slice and
  // read its slots coalesced.
  index_t slice_height = 32;
  // sigma: sorting within windows of a few slices fills each slice with rows
  // of similar length (less padding) while rows stay near their neighbours,
  // so the reads of x keep the locality of the original order.
  index_t sort_window = 256;

  // Throws std::invalid_argument unless 1 <= slice_height <= 1024 and
  // sort_window >= 1.
  void validate() const;
};

// The parameters the grader, the bench and the TA tool use for `csr`: C = 32
// and, when the unsorted slices would pad the entries by at most
// kSellUnsortedPadding (stencils, bands: only boundary rows are shorter),
// sigma = 1, which keeps rows in place (no row_perm: y stored coalesced, x
// gathered in the original order); otherwise the default sigma.
inline constexpr double kSellUnsortedPadding = 0.10;
SellParams sell_params_for(const CsrMatrix& csr);

SellMatrix to_sell(const CsrMatrix& csr, const SellParams& params = {}, const ConversionLimits& limits = {});
CsrMatrix to_csr(const SellMatrix& sell);
std::vector<float> cpu_spmv(const SellMatrix& a, std::span<const float> x);

namespace detail {
// Entries of each position p (holding row sell.row_at(p)), counted while
// validating every invariant: throws FormatError like validate(), which
// calls it. One walk of the slots serves both.
std::vector<index_t> sell_position_lengths(const SellMatrix& sell);
}  // namespace detail

template <>
struct FormatTraits<SellMatrix> {
  static constexpr const char* name = "sell";
  static constexpr int id = catalog_format_number(name);
  static constexpr const char* label = "SELL";
  static constexpr const char* byte_model =
      "8(slices+1) + 4 rows if rows are permuted + 4 slots + 4 nnz, as padding is told only by its column";
  static SellMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& limits) {
    return to_sell(csr, sell_params_for(csr), limits);
  }
  // Padding is told only by its column, so every slot's column is read;
  // values only of real entries.
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const SellMatrix* form) {
    if (form == nullptr) return std::nullopt;
    const std::uint64_t row_perm = form->row_perm.empty() ? 0 : 4 * detail::u64(csr.rows);
    return 8 * (detail::u64(form->slices()) + 1) + row_perm + 4 * detail::u64(form->slice_ptr.back()) +
           4 * detail::u64(csr.nnz());
  }
  static constexpr auto members = std::tuple{Member{"rows", &SellMatrix::rows},
                                             Member{"cols", &SellMatrix::cols},
                                             Member{"nnz", &SellMatrix::nnz},
                                             Member{"slice_height", &SellMatrix::slice_height},
                                             Member{"sort_window", &SellMatrix::sort_window},
                                             Member{"slice_ptr", &SellMatrix::slice_ptr},
                                             Member{"row_perm", &SellMatrix::row_perm},
                                             Member{"col_idx", &SellMatrix::col_idx},
                                             Member{"values", &SellMatrix::values}};
};

}  // namespace spmv
