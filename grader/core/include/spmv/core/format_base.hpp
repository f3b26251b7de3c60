// What every format's container shares: the index and value types, the
// errors of validation and conversion, the conversion limits and the
// FormatTraits each format specializes (spmv/core/format_table.hpp lists
// the formats; spmv/core/formats/<format>.hpp holds each one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "spmv/contract/catalog.h"

namespace spmv {

using index_t = std::int32_t;
using value_t = float;

// A container breaks one of its format's invariants.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A format cannot hold this matrix within the limits (not a bug in the
// matrix: the grader reports "not applicable").
class ConversionRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ConversionLimits {
  // Largest allocation (index + value arrays) a padded format may make.
  std::size_t max_bytes = std::size_t{4} << 30;  // 4 GiB
};

// The number the catalog (spmv/contract/catalog.h, the contract's one list
// of formats) gives the format named `name`, which is also its spmv_format
// enumerator. A name the catalog lacks does not compile.
consteval int catalog_format_number(std::string_view name) {
#define SPMV_CATALOG_NUMBER(format, NAME, Name, number) \
  if (name == #format) return number;
  SPMV_FORMATS(SPMV_CATALOG_NUMBER)
#undef SPMV_CATALOG_NUMBER
  throw std::logic_error("the catalog has no format of this name");
}

// What the host side knows of format Matrix: its name, its number (from the
// catalog: catalog_format_number(name)), its label, its conversion from CSR with the grader's parameters
// (from_csr), its byte model (matrix_bytes, byte_model) and its members
// (members: a tuple of Member, below), in the order the runner's matrix
// image stores them.
template <typename Matrix>
struct FormatTraits;

// One member of a container: its name (the name an uploaded array goes by
// in the runner's messages) and where it lies.
template <typename Matrix, typename T>
struct Member {
  using type = T;
  using Pointer = T Matrix::*;  // named: nvcc's host code would parenthesize the declarator
  const char* name;
  Pointer pointer;
};
template <typename Matrix, typename T>
Member(const char*, T Matrix::*) -> Member<Matrix, T>;

// Calls visit(member) for every member of `a` (const or not), in the order
// FormatTraits lists them.
template <typename Self, typename Visit>
void for_each_member(Self& a, Visit&& visit) {
  std::apply([&](const auto&... member) { (visit(a.*member.pointer), ...); },
             FormatTraits<std::remove_const_t<Self>>::members);
}

namespace detail {
inline std::uint64_t u64(std::int64_t n) { return static_cast<std::uint64_t>(n); }
}  // namespace detail

}  // namespace spmv
