// The format table: every sparse format the grader knows, as the catalog
// (contract/include/spmv/contract/catalog.h) lists them.
//
// FormatTable lists the host containers; FormatTraits<Matrix>, next to each
// container in spmv/core/formats/<format>.hpp, holds what the host side
// knows of it: its number (the catalog's, also the spmv_format enumerator
// of the contract's plugin.h), its name, its conversion from CSR with the
// grader's parameters, its byte model and its members. Code that
// dispatches on a format visits the list (for_each_format, visit_format)
// instead of switching, so a format added to the catalog reaches every
// such place, and a place that needs more of a format than the table holds
// does not compile.
//
// This library has no CUDA, so the table holds the enumerator's number;
// spmv/memory/format_views.hpp adds each container's contract view and
// upload and checks there that the number is the view's enumerator.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv {

template <typename... Matrices>
struct FormatList {};

namespace detail {
template <typename Ignored, typename... Matrices>
using FormatListOfRest = FormatList<Matrices...>;
}  // namespace detail

// Every format of the catalog (spmv/contract/catalog.h), in its order, by
// its container <Name>Matrix; runner::AnyMatrix's alternatives follow it.
#define SPMV_CORE_CONTAINER(name, NAME, Name, number) , Name##Matrix
using FormatTable = detail::FormatListOfRest<void SPMV_FORMATS(SPMV_CORE_CONTAINER)>;
#undef SPMV_CORE_CONTAINER

namespace detail {
// Whether Table is a tuple of members of Matrix (FormatTraits<Matrix>::members).
template <typename Table, typename Matrix>
inline constexpr bool is_member_table = false;
template <typename Matrix, typename... T>
inline constexpr bool is_member_table<std::tuple<Member<Matrix, T>...>, Matrix> = true;
}  // namespace detail

// Every piece a format of the table must provide, so that a format added to
// the list without one of them does not compile here (and not only at the
// first place that needs it).
template <typename Matrix>
concept TableFormat = requires(const Matrix& form, const CsrMatrix& csr, const ConversionLimits& limits,
                               std::span<const float> x) {
  { FormatTraits<Matrix>::id } -> std::convertible_to<int>;
  { FormatTraits<Matrix>::name } -> std::convertible_to<const char*>;
  { FormatTraits<Matrix>::label } -> std::convertible_to<const char*>;
  { FormatTraits<Matrix>::byte_model } -> std::convertible_to<const char*>;
  { FormatTraits<Matrix>::from_csr(csr, limits) } -> std::same_as<Matrix>;
  { FormatTraits<Matrix>::matrix_bytes(csr, &form) } -> std::same_as<std::optional<std::uint64_t>>;
  requires detail::is_member_table<std::remove_cvref_t<decltype(FormatTraits<Matrix>::members)>, Matrix>;
  form.validate();
  requires std::same_as<Matrix, CsrMatrix> || requires {
    { to_csr(form) } -> std::same_as<CsrMatrix>;
  };
  { cpu_spmv(form, x) } -> std::same_as<std::vector<float>>;
};

namespace detail {
template <typename... Matrices>
constexpr bool every_format_complete(FormatList<Matrices...> /*list*/) {
  return (TableFormat<Matrices> && ...);
}
template <typename... Matrices>
constexpr bool numbers_distinct(FormatList<Matrices...> /*list*/) {
  constexpr int ids[] = {FormatTraits<Matrices>::id...};
  for (std::size_t i = 0; i < sizeof...(Matrices); ++i) {
    for (std::size_t j = i + 1; j < sizeof...(Matrices); ++j) {
      if (ids[i] == ids[j]) return false;
    }
  }
  return true;
}
static_assert(every_format_complete(FormatTable{}), "a format of the table lacks a piece TableFormat lists");
static_assert(numbers_distinct(FormatTable{}), "two formats of the table share a number");
}  // namespace detail

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

// "CSR: 4(rows+1) + 8 nnz<separator>COO: 12 nnz...": every format's byte model.
inline std::string byte_models(std::string_view separator) {
  std::string text;
  for_each_format([&](auto tag) {
    using Traits = FormatTraits<typename decltype(tag)::type>;
    if (!text.empty()) text += separator;
    text += std::string(Traits::label) + ": " + Traits::byte_model;
  });
  return text;
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
