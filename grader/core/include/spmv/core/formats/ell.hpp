// ELLPACK-R: every row padded to the longest, stored column-major.
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

// Slot k of row r at k * rows + r (column-major). Slots
// 0 .. row_length[r]-1 hold row r's entries in column order; the others are
// padding with column -1 and value 0.
struct EllMatrix {
  static constexpr index_t kPaddingColumn = -1;

  index_t rows = 0;
  index_t cols = 0;
  index_t width = 0;
  std::vector<index_t> row_length;  // rows
  std::vector<index_t> col_idx;     // rows * width
  std::vector<value_t> values;      // rows * width

  [[nodiscard]] std::size_t slot(index_t row, index_t k) const {
    return static_cast<std::size_t>(k) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(row);
  }
  [[nodiscard]] std::int64_t nnz() const;  // sum of row_length
  void validate() const;
};

// Width: the longest row. Throws ConversionRefused when the padded arrays
// would exceed the limits, before allocating them.
EllMatrix to_ell(const CsrMatrix& csr, const ConversionLimits& limits = {});
CsrMatrix to_csr(const EllMatrix& ell);
std::vector<float> cpu_spmv(const EllMatrix& a, std::span<const float> x);

// Bytes the ELL form of `csr` with `width` slots per row would allocate.
std::size_t ell_bytes(index_t rows, index_t width);

template <>
struct FormatTraits<EllMatrix> {
  static constexpr const char* name = "ell";
  static constexpr int id = catalog_format_number(name);
  static constexpr const char* label = "ELL";
  static constexpr const char* byte_model = "4 rows + 8 nnz";
  static EllMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& limits) { return to_ell(csr, limits); }
  // ELLPACK-R: a row's length tells where its padding starts, which is not read.
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const EllMatrix* /*form*/) {
    return 4 * detail::u64(csr.rows) + 8 * detail::u64(csr.nnz());
  }
  static constexpr auto members =
      std::tuple{Member{"rows", &EllMatrix::rows},       Member{"cols", &EllMatrix::cols},
                 Member{"width", &EllMatrix::width},     Member{"row_length", &EllMatrix::row_length},
                 Member{"col_idx", &EllMatrix::col_idx}, Member{"values", &EllMatrix::values}};
};

}  // namespace spmv
