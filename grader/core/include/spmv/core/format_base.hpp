// What every format's container shares: the index and value types, the
// errors of validation and conversion, the conversion limits and the
// FormatTraits each format specializes (spmv/core/format_table.hpp lists
// the formats; spmv/core/formats/<format>.hpp holds each one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

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

// What the host side knows of format Matrix: its number (the spmv_format
// enumerator of the contract, contract/include/spmv/contract/plugin.h), its
// name and label, its conversion from CSR with the grader's parameters
// (from_csr), its byte model (matrix_bytes, byte_model) and its members in
// the order the runner's matrix image stores them (for_each_member).
template <typename Matrix>
struct FormatTraits;

namespace detail {
inline std::uint64_t u64(std::int64_t n) { return static_cast<std::uint64_t>(n); }
}  // namespace detail

}  // namespace spmv
