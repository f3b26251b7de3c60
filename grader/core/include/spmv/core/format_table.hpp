// The format table: every sparse format the grader knows, named once.
//
// FormatTable lists the host containers; FormatTraits<Matrix> holds what the
// host side knows of each: its number (the spmv_format enumerator of the
// contract, contract/include/spmv/contract/plugin.h), its name, its
// conversion from CSR with the grader's parameters and its byte model.
// Code that dispatches on a format visits the list (for_each_format,
// visit_format) instead of switching, so a format added here reaches every
// such place, and a place that needs more of a format than the table holds
// does not compile.
//
// This library has no CUDA, so the table holds the enumerator's number;
// spmv/memory/format_views.hpp adds each container's contract view and
// upload and checks there that the number is the view's enumerator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "spmv/core/convert.hpp"
#include "spmv/core/formats.hpp"

namespace spmv {

template <typename... Matrices>
struct FormatList {};

template <typename Matrix>
struct FormatTraits;

// Bytes of the arrays a kernel reads once. FormatTraits<M>::matrix_bytes takes
// the CSR form and, where the model depends on the layout, the converted
// form (null when it was not built: then the model is unknown).
namespace detail {
inline std::uint64_t u64(std::int64_t n) { return static_cast<std::uint64_t>(n); }
}  // namespace detail

template <>
struct FormatTraits<CsrMatrix> {
  static constexpr int id = 2;  // SPMV_FORMAT_CSR
  static constexpr const char* name = "csr";
  static constexpr const char* label = "CSR";
  static CsrMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& /*limits*/) { return csr; }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const CsrMatrix* /*form*/) {
    return 4 * (detail::u64(csr.rows) + 1) + 8 * detail::u64(csr.nnz());
  }
};

template <>
struct FormatTraits<CooMatrix> {
  static constexpr int id = 1;  // SPMV_FORMAT_COO
  static constexpr const char* name = "coo";
  static constexpr const char* label = "COO";
  static CooMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& /*limits*/) { return to_coo(csr); }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const CooMatrix* /*form*/) {
    return 12 * detail::u64(csr.nnz());
  }
};

template <>
struct FormatTraits<EllMatrix> {
  static constexpr int id = 3;  // SPMV_FORMAT_ELL
  static constexpr const char* name = "ell";
  static constexpr const char* label = "ELL";
  static EllMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& limits) { return to_ell(csr, limits); }
  // ELLPACK-R: a row's length tells where its padding starts, which is not read.
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const EllMatrix* /*form*/) {
    return 4 * detail::u64(csr.rows) + 8 * detail::u64(csr.nnz());
  }
};

template <>
struct FormatTraits<HybMatrix> {
  static constexpr int id = 4;  // SPMV_FORMAT_HYB
  static constexpr const char* name = "hyb";
  static constexpr const char* label = "HYB";
  static HybMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& limits) {
    HybOptions options;
    options.limits = limits;
    return to_hyb(csr, options);
  }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const HybMatrix* form) {
    if (form == nullptr) return std::nullopt;
    return 4 * detail::u64(csr.rows) + 8 * detail::u64(form->ell.nnz()) + 12 * detail::u64(form->coo.nnz());
  }
};

template <>
struct FormatTraits<JdsMatrix> {
  static constexpr int id = 5;  // SPMV_FORMAT_JDS
  static constexpr const char* name = "jds";
  static constexpr const char* label = "JDS";
  static JdsMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& /*limits*/) { return to_jds(csr); }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const JdsMatrix* form) {
    if (form == nullptr) return std::nullopt;
    return 4 * detail::u64(csr.rows) + 4 * (detail::u64(form->num_diagonals()) + 1) + 8 * detail::u64(csr.nnz());
  }
};

template <>
struct FormatTraits<SellMatrix> {
  static constexpr int id = 6;  // SPMV_FORMAT_SELL
  static constexpr const char* name = "sell";
  static constexpr const char* label = "SELL";
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
};

// Every format; runner::AnyMatrix's alternatives follow this order.
using FormatTable = FormatList<CsrMatrix, CooMatrix, EllMatrix, HybMatrix, JdsMatrix, SellMatrix>;

// A format as a value: visitors receive FormatTag<Matrix>{}.
template <typename Matrix>
struct FormatTag {
  using type = Matrix;
};

namespace detail {
template <typename Use, typename... Matrices>
void each_format(Use& use, FormatList<Matrices...> /*list*/) {
  (use(FormatTag<Matrices>{}), ...);
}
}  // namespace detail

// Calls use(FormatTag<M>{}) for every format M, in the table's order.
template <typename List = FormatTable, typename Use>
void for_each_format(Use&& use) {
  detail::each_format(use, List{});
}

// Calls use(FormatTag<M>{}) for the format M numbered `id`; false when the
// table has no such format.
template <typename Use>
bool visit_format(int id, Use&& use) {
  bool found = false;
  for_each_format([&](auto tag) {
    if (!found && FormatTraits<typename decltype(tag)::type>::id == id) {
      found = true;
      use(tag);
    }
  });
  return found;
}

inline bool is_format_id(int id) {
  return visit_format(id, [](auto /*tag*/) {});
}

// The format's name ("csr"), or "unknown".
inline const char* format_id_name(int id) {
  const char* name = "unknown";
  visit_format(id, [&](auto tag) { name = FormatTraits<typename decltype(tag)::type>::name; });
  return name;
}

// Calls use(form) with `csr` (CSR) or its conversion to format `id` with the
// grader's parameters; false when the table has no such format. Conversions
// throw ConversionRefused when the format cannot hold `csr` within `limits`.
template <typename Use>
bool with_form(const CsrMatrix& csr, int id, const ConversionLimits& limits, Use&& use) {
  return visit_format(id, [&](auto tag) {
    using Matrix = typename decltype(tag)::type;
    if constexpr (std::is_same_v<Matrix, CsrMatrix>) {
      use(csr);
    } else {
      use(FormatTraits<Matrix>::from_csr(csr, limits));
    }
  });
}

// Template<M> of every format, as a tuple (std::optional: one slot each).
template <template <typename> class Template, typename List = FormatTable>
struct EachFormat;
template <template <typename> class Template, typename... Matrices>
struct EachFormat<Template, FormatList<Matrices...>> {
  using type = std::tuple<Template<Matrices>...>;
};
template <template <typename> class Template>
using EachFormatTuple = typename EachFormat<Template>::type;

}  // namespace spmv
