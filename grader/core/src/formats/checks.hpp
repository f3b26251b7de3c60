// The checks every container's validate() is made of: shape, sizes, entry
// counts and column order, each failing with a FormatError that names the
// format (or the part of one: "HYB: ELL part").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "message.hpp"
#include "spmv/core/formats.hpp"

namespace spmv::detail {

// Every format's entries are addressed by int32 indices on the device (CSR
// row_ptr, entry and diagonal offsets), so no container may hold more.
inline constexpr std::int64_t kMaxEntries = std::numeric_limits<index_t>::max();

// `format` names the container in the message: "CSR", "HYB: ELL part", ...
template <typename... Parts>
[[noreturn]] inline void fail(std::string_view format, const Parts&... parts) {
  throw FormatError(message(format, ": ", parts...));
}

inline void check_shape(std::string_view format, index_t rows, index_t cols) {
  if (rows < 0) fail(format, "negative rows (", rows, ")");
  if (cols < 0) fail(format, "negative cols (", cols, ")");
}

inline void check_size(std::string_view format, std::string_view array, std::size_t actual, std::size_t expected,
                       std::string_view expected_what) {
  if (actual != expected) {
    fail(format, array, " has ", actual, " entries, expected ", expected_what, " = ", expected);
  }
}

inline void check_entry_count(std::string_view format, std::uint64_t entries) {
  if (entries > static_cast<std::uint64_t>(kMaxEntries)) {
    fail(format, entries, " entries, more than int32 indices can address (", kMaxEntries, ")");
  }
}

inline bool column_in_range(index_t column, index_t cols) { return column >= 0 && column < cols; }

// The `at` texts locate an entry in the format's own terms ("entry 17",
// "slot 3", "diagonal 2"); callers build them only on the failure path.
[[noreturn]] inline void column_range_error(std::string_view format, index_t row, index_t column, index_t cols,
                                            const std::string& at) {
  fail(format, "row ", row, ": column ", column, " at ", at, " is outside [0, ", cols, ")");
}

[[noreturn]] inline void column_order_error(std::string_view format, index_t row, index_t previous, index_t column,
                                            const std::string& previous_at, const std::string& at) {
  if (column == previous) {
    fail(format, "row ", row, " holds column ", column, " twice (", previous_at, " and ", at, ")");
  }
  fail(format, "row ", row, " columns not increasing: column ", column, " at ", at, " follows column ", previous,
       " at ", previous_at);
}

// row_perm (of `rows` entries) names each row of [0, rows) once.
inline void check_permutation(std::string_view format, const std::vector<index_t>& row_perm, index_t rows) {
  std::vector<index_t> position(static_cast<std::size_t>(rows), -1);
  for (index_t k = 0; k < rows; ++k) {
    const index_t row = row_perm[k];
    if (row < 0 || row >= rows) fail(format, "row_perm[", k, "] = ", row, " is outside [0, ", rows, ")");
    if (position[row] >= 0) {
      fail(format, "row_perm is not a permutation: row ", row, " appears at positions ", position[row], " and ", k);
    }
    position[row] = k;
  }
}

// The checks of a container that is also a part of another (HYB's ELL and
// COO parts), with the name the messages give it.
void validate_coo(const CooMatrix& a, std::string_view format);
void validate_ell(const EllMatrix& a, std::string_view format);

}  // namespace spmv::detail
