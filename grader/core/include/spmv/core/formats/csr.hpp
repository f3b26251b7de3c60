// CSR, the hub format: every other format converts from and to it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "spmv/core/format_base.hpp"

namespace spmv {

// Row r: entries row_ptr[r] .. row_ptr[r+1]-1, columns strictly increasing.
struct CsrMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr{0};  // rows + 1
  std::vector<index_t> col_idx;     // nnz
  std::vector<value_t> values;      // nnz

  [[nodiscard]] index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
  [[nodiscard]] index_t row_length(index_t row) const { return row_ptr[row + 1] - row_ptr[row]; }
  void validate() const;
};

// The sequential product (spmv/core/cpu_spmv.hpp); not in the student kit.
std::vector<float> cpu_spmv(const CsrMatrix& a, std::span<const float> x);

namespace detail {
// Entries of each row, from row_ptr.
std::vector<index_t> row_lengths(const CsrMatrix& csr);
}  // namespace detail

// FormatTraits<M>::matrix_bytes: bytes of the arrays a kernel reads once,
// from the CSR form and, where the model depends on the layout, the
// converted form (null when it was not built: then the model is unknown).
template <>
struct FormatTraits<CsrMatrix> {
  static constexpr const char* name = "csr";
  static constexpr int id = catalog_format_number(name);
  static constexpr const char* label = "CSR";
  static constexpr const char* byte_model = "4(rows+1) + 8 nnz";
  static CsrMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& /*limits*/) { return csr; }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const CsrMatrix* /*form*/) {
    return 4 * (detail::u64(csr.rows) + 1) + 8 * detail::u64(csr.nnz());
  }
  static constexpr auto members = std::tuple{
      Member{"rows", &CsrMatrix::rows}, Member{"cols", &CsrMatrix::cols}, Member{"row_ptr", &CsrMatrix::row_ptr},
      Member{"col_idx", &CsrMatrix::col_idx}, Member{"values", &CsrMatrix::values}};
};

}  // namespace spmv
