#include "spmv/core/formats/hyb.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "formats/checks.hpp"
#include "formats/conversion.hpp"

namespace spmv {

using namespace detail;  // the shared checks and conversion steps

namespace {

void validate_hyb(const HybMatrix& a) {
  constexpr std::string_view kFormat = "HYB";
  validate_ell(a.ell, "HYB: ELL part");
  validate_coo(a.coo, "HYB: COO part");
  if (a.ell.rows != a.coo.rows || a.ell.cols != a.coo.cols) {
    fail(kFormat, "ELL part is ", a.ell.rows, " x ", a.ell.cols, " but COO part is ", a.coo.rows, " x ", a.coo.cols);
  }
  check_entry_count(kFormat, static_cast<std::uint64_t>(a.ell.nnz() + a.coo.nnz()));
  for (index_t e = 0; e < a.coo.nnz(); ++e) {
    const index_t row = a.coo.row_idx[e];
    const index_t length = a.ell.row_length[row];
    if (length < a.ell.width) {
      fail(kFormat, "row ", row, " has entries in the COO part (entry ", e,
           ") but its ELL part is not full: row_length[", row, "] = ", length, " < width ", a.ell.width);
    }
    if (a.ell.width == 0) continue;
    const index_t last_ell_column = a.ell.col_idx[a.ell.slot(row, a.ell.width - 1)];
    if (a.coo.col_idx[e] <= last_ell_column) {
      fail(kFormat, "row ", row, ": COO entry ", e, " has column ", a.coo.col_idx[e],
           ", not after the row's last ELL column ", last_ell_column,
           " (a row's first entries are in ELL, the rest in COO)");
    }
  }
}

index_t default_hyb_width(const std::vector<index_t>& lengths) {
  const auto rows = static_cast<std::int64_t>(lengths.size());
  const std::vector<index_t> longer = rows_longer_than(lengths);
  const auto longest = static_cast<index_t>(longer.size()) - 1;
  index_t width = 0;
  // "fewer than rows / 3" compared as 3 * longer < rows: exact, no rounding
  // of rows / 3 moves the width.
  while (width < longest && 3 * std::int64_t{longer[width]} >= rows) ++width;
  return width;
}

}  // namespace

void HybMatrix::validate() const { validate_hyb(*this); }

index_t hyb_default_width(const CsrMatrix& csr) {
  csr.validate();
  return default_hyb_width(detail::row_lengths(csr));
}

HybMatrix to_hyb(const CsrMatrix& csr, const HybOptions& options) {
  csr.validate();
  const std::vector<index_t> lengths = detail::row_lengths(csr);
  const index_t width = options.ell_width ? *options.ell_width : default_hyb_width(lengths);
  if (width < 0) {
    throw std::invalid_argument(message("to_hyb: ELL width ", width, " is negative"));
  }
  std::int64_t coo_entries = 0;
  for (const index_t length : lengths) coo_entries += std::max(length - width, 0);
  const std::size_t ell_part = ell_bytes(csr.rows, width);
  const std::size_t coo_part = static_cast<std::size_t>(coo_entries) * kCooEntryBytes;
  const std::size_t bytes = saturating_add(ell_part, coo_part);
  if (bytes > options.limits.max_bytes) {
    throw ConversionRefused(message("HYB of ", csr.rows, " rows with ELL width ", width, " needs ", needed_text(bytes),
                                    ": ELL part ", human_bytes(ell_part), " + COO part ", human_bytes(coo_part),
                                    " for ", coo_entries, " entries, ", over_limit_text(options.limits), "; ",
                                    row_skew_text(csr, longest_of(lengths))));
  }
  HybMatrix hyb;
  hyb.ell = build_ell(csr, width);
  hyb.coo.rows = csr.rows;
  hyb.coo.cols = csr.cols;
  hyb.coo.row_idx.reserve(static_cast<std::size_t>(coo_entries));
  hyb.coo.col_idx.reserve(static_cast<std::size_t>(coo_entries));
  hyb.coo.values.reserve(static_cast<std::size_t>(coo_entries));
  for (index_t r = 0; r < csr.rows; ++r) {
    for (index_t e = csr.row_ptr[r] + width; e < csr.row_ptr[r + 1]; ++e) {
      hyb.coo.row_idx.push_back(r);
      hyb.coo.col_idx.push_back(csr.col_idx[e]);
      hyb.coo.values.push_back(csr.values[e]);
    }
  }
  return hyb;
}

CsrMatrix to_csr(const HybMatrix& hyb) {
  hyb.validate();
  std::vector<index_t> lengths = hyb.ell.row_length;
  for (const index_t row : hyb.coo.row_idx) ++lengths[row];
  CsrMatrix csr = csr_with_lengths(hyb.rows(), hyb.cols(), lengths);
  scatter_ell(hyb.ell, csr);
  // A row's COO entries follow its ELL ones (validate() checked the columns).
  index_t next = 0;
  for (index_t e = 0; e < hyb.coo.nnz(); ++e) {
    const index_t row = hyb.coo.row_idx[e];
    if (e == 0 || row != hyb.coo.row_idx[e - 1]) next = csr.row_ptr[row] + hyb.ell.row_length[row];
    copy_entry(hyb.coo, e, csr, next++);
  }
  return csr;
}

}  // namespace spmv
