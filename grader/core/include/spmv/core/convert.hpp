// Conversions between CSR (the hub format) and every other format.
//
// Round trips to_csr(to_X(A)) == A are exact: values, explicit zeros, empty
// rows and the shape survive. Conversions that pad (ELL, HYB, SELL) first compute
// the size they would allocate and throw ConversionRefused when it exceeds
// ConversionLimits::max_bytes, before allocating anything.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>

#include "spmv/core/formats.hpp"

namespace spmv {

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

struct HybOptions {
  // ELL width; when empty, hyb_default_width() chooses it.
  std::optional<index_t> ell_width;
  ConversionLimits limits;
};

// SELL-C-sigma's two parameters (Kreutzer et al., 2014).
struct SellParams {
  // C: one warp per slice, so a warp's threads run rows of one slice and
  // read its slots coalesced.
  index_t slice_height = 32;
  // sigma: sorting within windows of a few slices fills each slice with rows
  // of similar length (less padding) while rows stay near their neighbours,
  // so the reads of x keep the locality of the original order.
  index_t sort_window = 256;

  // Throws std::invalid_argument unless 1 <= slice_height <= 1024 and
  // sort_window >= 1.
  void validate() const;
};

// The parameters the grader, the bench and the TA tool use for `csr`: C = 32
// and, when the unsorted slices would pad the entries by at most
// kSellUnsortedPadding (stencils, bands: only boundary rows are shorter),
// sigma = 1, which keeps rows in place (no row_perm: y stored coalesced, x
// gathered in the original order); otherwise the default sigma.
inline constexpr double kSellUnsortedPadding = 0.10;
SellParams sell_params_for(const CsrMatrix& csr);

CooMatrix to_coo(const CsrMatrix& csr);
EllMatrix to_ell(const CsrMatrix& csr, const ConversionLimits& limits = {});
HybMatrix to_hyb(const CsrMatrix& csr, const HybOptions& options = {});
JdsMatrix to_jds(const CsrMatrix& csr);
SellMatrix to_sell(const CsrMatrix& csr, const SellParams& params = {},
                   const ConversionLimits& limits = {});

CsrMatrix to_csr(const CooMatrix& coo);
CsrMatrix to_csr(const EllMatrix& ell);
CsrMatrix to_csr(const HybMatrix& hyb);
CsrMatrix to_csr(const JdsMatrix& jds);
CsrMatrix to_csr(const SellMatrix& sell);

// The HYB ELL width heuristic (after Bell & Garland): the smallest width K
// such that fewer than rows / 3 rows are longer than K (ELL processes an
// entry about 3x faster than COO, so a row tail that short is cheaper in
// COO). CUSP also keeps every matrix under 4096 rows entirely in COO (a
// breakeven measured on 2008 GPUs); that floor is dropped here, or every
// small course case would leave the ELL pass of a HYB kernel untested.
index_t hyb_default_width(const CsrMatrix& csr);

// Bytes the ELL form of `csr` with `width` slots per row would allocate.
std::size_t ell_bytes(index_t rows, index_t width);

}  // namespace spmv
