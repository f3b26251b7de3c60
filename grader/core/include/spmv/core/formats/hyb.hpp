// HYB: an ELL part of a fixed width and a COO part for the rows' tails.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "spmv/core/format_base.hpp"
#include "spmv/core/formats/coo.hpp"
#include "spmv/core/formats/csr.hpp"
#include "spmv/core/formats/ell.hpp"

namespace spmv {

// ELL part holds each row's first min(length, ell.width) entries; the COO
// part the rest. Both have the full shape.
struct HybMatrix {
  EllMatrix ell;
  CooMatrix coo;

  [[nodiscard]] index_t rows() const { return ell.rows; }
  [[nodiscard]] index_t cols() const { return ell.cols; }
  void validate() const;
};

struct HybOptions {
  // ELL width; when empty, hyb_default_width() chooses it.
  std::optional<index_t> ell_width;
  ConversionLimits limits;
};

HybMatrix to_hyb(const CsrMatrix& csr, const HybOptions& options = {});
CsrMatrix to_csr(const HybMatrix& hyb);
std::vector<float> cpu_spmv(const HybMatrix& a, std::span<const float> x);

// The HYB ELL width heuristic (after Bell & Garland): the smallest width K
// such that fewer than rows / 3 rows are longer than K (ELL processes an
// entry about 3x faster than COO, so a row tail that short is cheaper in
// COO). CUSP also keeps every matrix under 4096 rows entirely in COO (a
// breakeven measured on 2008 GPUs); that floor is dropped here, or every
// small course case would leave the ELL pass of a HYB kernel untested.
index_t hyb_default_width(const CsrMatrix& csr);

template <>
struct FormatTraits<HybMatrix> {
  static constexpr const char* name = "hyb";
  static constexpr int id = catalog_format_number(name);
  static constexpr const char* label = "HYB";
  static constexpr const char* byte_model = "its ELL and COO parts";
  static HybMatrix from_csr(const CsrMatrix& csr, const ConversionLimits& limits) {
    HybOptions options;
    options.limits = limits;
    return to_hyb(csr, options);
  }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& csr, const HybMatrix* form) {
    if (form == nullptr) return std::nullopt;
    return 4 * detail::u64(csr.rows) + 8 * detail::u64(form->ell.nnz()) + 12 * detail::u64(form->coo.nnz());
  }
  static constexpr auto members = std::tuple{Member{"ell", &HybMatrix::ell}, Member{"coo", &HybMatrix::coo}};
};

}  // namespace spmv
