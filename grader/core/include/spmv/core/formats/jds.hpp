// JDS (jagged diagonal storage): rows sorted by length, stored diagonal by
// diagonal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "spmv/core/format_base.hpp"
#include "spmv/core/formats/csr.hpp"

namespace spmv {

// Rows sorted by decreasing length (stable); row_perm[k] = original index
// of sorted row k; diagonal d is entries jd_ptr[d] .. jd_ptr[d+1]-1 and
// sorted row k's d-th entry is at jd_ptr[d] + k. Within a row, entries keep
// column order.
struct JdsMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_perm;   // rows
  std::vector<index_t> jd_ptr{0};  // num_diagonals + 1
  std::vector<index_t> col_idx;    // nnz
  std::vector<value_t> values;     // nnz

  [[nodiscard]] index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
  [[nodiscard]] index_t num_diagonals() const { return static_cast<index_t>(jd_ptr.size()) - 1; }
  void validate() const;
};

JdsMatrix to_jds(const CsrMatrix& csr);
CsrMatrix to_csr(const JdsMatrix& jds);
std::vector<float> cpu_spmv(const JdsMatrix& a, std::span<const float> x);

namespace detail {
// Entries of each sorted row k (not original row): the number of diagonals
// longer than k. Needs jd_ptr non-decreasing with non-increasing diagonal
// lengths, which validate() checks before it relies on this.
std::vector<index_t> jds_sorted_row_lengths(const JdsMatrix& jds);
}  // namespace detail

template <>
struct FormatTraits<JdsMatrix> {
  static constexpr const char* name = "jds";
  static constexpr int id = catalog_format_number(name);
  static constexpr const char* label = "JDS";
  static constexpr const char* byte_model = "4 rows + 4(diagonals+1) + 8 nnz";
  static JdsMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& /*limits*/) { return to_jds(csr); }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const JdsMatrix* form) {
    if (form == nullptr) return std::nullopt;
    return 4 * detail::u64(csr.rows) + 4 * (detail::u64(form->num_diagonals()) + 1) + 8 * detail::u64(csr.nnz());
  }
  static constexpr auto members =
      std::tuple{Member{"rows", &JdsMatrix::rows},         Member{"cols", &JdsMatrix::cols},
                 Member{"row_perm", &JdsMatrix::row_perm}, Member{"jd_ptr", &JdsMatrix::jd_ptr},
                 Member{"col_idx", &JdsMatrix::col_idx},   Member{"values", &JdsMatrix::values}};
};

}  // namespace spmv
