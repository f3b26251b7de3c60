// COO: one (row, column, value) triple per entry.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "spmv/core/format_base.hpp"
#include "spmv/core/formats/csr.hpp"

namespace spmv {

// Entries sorted by row, then column; no duplicate (row, column).
struct CooMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_idx;
  std::vector<index_t> col_idx;
  std::vector<value_t> values;

  [[nodiscard]] index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
  void validate() const;
};

CooMatrix to_coo(const CsrMatrix& csr);
CsrMatrix to_csr(const CooMatrix& coo);
std::vector<float> cpu_spmv(const CooMatrix& a, std::span<const float> x);

template <>
struct FormatTraits<CooMatrix> {
  static constexpr const char* name = "coo";
  static constexpr int id = catalog_format_number(name);
  static constexpr const char* label = "COO";
  static constexpr const char* byte_model = "12 nnz";
  static CooMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& /*limits*/) { return to_coo(csr); }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const CooMatrix* /*form*/) {
    return 12 * detail::u64(csr.nnz());
  }
  static constexpr auto members = std::tuple{
      Member{"rows", &CooMatrix::rows}, Member{"cols", &CooMatrix::cols}, Member{"row_idx", &CooMatrix::row_idx},
      Member{"col_idx", &CooMatrix::col_idx}, Member{"values", &CooMatrix::values}};
};

}  // namespace spmv
