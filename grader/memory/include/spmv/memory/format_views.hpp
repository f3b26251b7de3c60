// The format table (spmv/core/format_table.hpp) extended with each
// container's upload (spmv/memory/format_buffers.hpp) and contract view
// (below): FormatViews<Matrix>::Buffers is what upload() makes of it, View
// the contract view it fills, and format the view's spmv_format, checked
// here against the number the core table holds. Include this header to
// upload: it declares the views upload() fills.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/format_table.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/memory/format_buffers.hpp"

namespace spmv {

// Each format's contract view from the device side of its uploaded members
// (spmv/memory/format_buffers.hpp), which upload() finds by overload: the
// pointer of each array, in the order of FormatTraits<Matrix>::members, and
// the view of each part.
inline spmv_csr_view contract_view(const CsrMatrix& a, const index_t* row_ptr, const index_t* col_idx,
                                   const value_t* values) {
  return {a.rows, a.cols, a.nnz(), row_ptr, col_idx, values};
}

inline spmv_coo_view contract_view(const CooMatrix& a, const index_t* row_idx, const index_t* col_idx,
                                   const value_t* values) {
  return {a.rows, a.cols, a.nnz(), row_idx, col_idx, values};
}

inline spmv_ell_view contract_view(const EllMatrix& a, const index_t* row_length, const index_t* col_idx,
                                   const value_t* values) {
  return {a.rows, a.cols, a.width, row_length, col_idx, values};
}

// The ELL and COO parts, each uploaded as its own format is.
inline spmv_hyb_view contract_view(const HybMatrix& /*a*/, const spmv_ell_view& ell, const spmv_coo_view& coo) {
  return {ell, coo};
}

inline spmv_jds_view contract_view(const JdsMatrix& a, const index_t* row_perm, const index_t* jd_ptr,
                                   const index_t* col_idx, const value_t* values) {
  return {a.rows, a.cols, a.nnz(), a.num_diagonals(), row_perm, jd_ptr, col_idx, values};
}

inline spmv_sell_view contract_view(const SellMatrix& a, const std::int64_t* slice_ptr, const index_t* row_perm,
                                    const index_t* col_idx, const value_t* values) {
  // The contract's NULL row_perm stands for the identity order.
  const index_t* order = a.row_perm.empty() ? nullptr : row_perm;
  return {a.rows, a.cols, a.nnz, a.slice_height, a.sort_window, a.slices(), slice_ptr, order, col_idx, values};
}

template <typename Matrix>
struct FormatViews {
  using Buffers = FormatBuffers<Matrix>;
  using View = typename Buffers::View;
  static constexpr spmv_format format = contract::view_format<View>::value;
  static_assert(static_cast<int>(format) == FormatTraits<Matrix>::id,
                "the core format table numbers this container unlike its contract view");
};

namespace detail {
template <typename... Matrices>
constexpr bool every_view_checked(FormatList<Matrices...> /*list*/) {
  return ((static_cast<int>(FormatViews<Matrices>::format) > 0) && ...);
}
static_assert(every_view_checked(FormatTable{}));
}  // namespace detail

template <typename Matrix>
inline constexpr spmv_format format_of_v = FormatViews<Matrix>::format;

// visit_format over the contract's enumerator.
template <typename Use>
bool visit_format(spmv_format format, Use&& use) {
  return visit_format(static_cast<int>(format), std::forward<Use>(use));
}

}  // namespace spmv
