// The format table (spmv/core/format_table.hpp) extended with each
// container's upload and contract view (spmv/memory/formats/<format>.hpp):
// FormatViews<Matrix>::Buffers is what upload() makes of it, View the
// contract view it fills, and format the view's spmv_format, checked here
// against the number the core table holds.
#pragma once

#include <type_traits>
#include <utility>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/format_table.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/memory/formats/coo.hpp"
#include "spmv/memory/formats/csr.hpp"
#include "spmv/memory/formats/ell.hpp"
#include "spmv/memory/formats/hyb.hpp"
#include "spmv/memory/formats/jds.hpp"
#include "spmv/memory/formats/sell.hpp"

namespace spmv {

template <typename Matrix>
struct FormatViews {
  using Buffers = decltype(upload(MemorySpace::kHost, std::declval<const Matrix&>()));
  using View = std::remove_cv_t<decltype(std::declval<Buffers&>().view)>;
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
