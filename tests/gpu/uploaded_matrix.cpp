#include "uploaded_matrix.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <utility>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/convert.hpp"

namespace spmv::test {
namespace {

index_t longest_row(const CsrMatrix& a) {
  index_t longest = 0;
  for (index_t row = 0; row < a.rows; ++row) longest = std::max(longest, a.row_length(row));
  return longest;
}

std::string sell_label(const SellMatrix& s) {
  return "sell (C " + std::to_string(s.slice_height) + ", sigma " + std::to_string(s.sort_window) + ", " +
         (s.row_perm.empty() ? std::string("rows in order") : std::string("rows permuted")) + ", " +
         std::to_string(s.slice_ptr.back()) + " slots)";
}

// The SELL parameters a SELL kernel is tested on: the grader's default
// (C 32, sigma 256); C 1 without sorting (a slice per row, no padding); C 7
// with windows of 5 (no multiple of a warp, windows across slice
// boundaries); C 128 with one window over every row (the most reordering,
// slices wider than a warp).
std::vector<SellParams> sell_layout_params(index_t rows) {
  SellParams row_per_slice;
  row_per_slice.slice_height = 1;
  row_per_slice.sort_window = 1;
  SellParams odd;
  odd.slice_height = 7;
  odd.sort_window = 5;
  SellParams one_window;
  one_window.slice_height = 128;
  one_window.sort_window = std::max(rows, index_t{1});
  return {SellParams{}, row_per_slice, odd, one_window};
}

// A slice pads its positions past the last row to its width, so a few very
// long rows make wide slices: 32 x 3M slots for the default C on the
// single 3M-entry row. Layouts past this size are left out (C 1 never is:
// its slots are the entries).
constexpr std::size_t kSellLayoutBytes = std::size_t{256} << 20;

std::string hyb_label(const HybMatrix& h, const std::string& how) {
  return "hyb (ELL width " + std::to_string(h.ell.width) + ", " + how + ", " + std::to_string(h.coo.nnz()) +
         " COO entries)";
}

}  // namespace

UploadedMatrix::UploadedMatrix(std::string label, runner::AnyMatrix host, MemorySpace space)
    : label_(std::move(label)),
      host_(std::make_unique<runner::AnyMatrix>(std::move(host))),
      uploaded_(runner::upload_matrix(space, *host_)) {}

std::vector<UploadedMatrix> uploaded_layouts(spmv_format format, const CsrMatrix& a, MemorySpace space) {
  std::vector<UploadedMatrix> layouts;
  switch (format) {
    case SPMV_FORMAT_COO: layouts.emplace_back("coo", to_coo(a), space); break;
    case SPMV_FORMAT_CSR: layouts.emplace_back("csr", a, space); break;
    case SPMV_FORMAT_ELL: layouts.emplace_back("ell", to_ell(a), space); break;
    case SPMV_FORMAT_JDS: layouts.emplace_back("jds", to_jds(a), space); break;
    case SPMV_FORMAT_HYB: {
      // The heuristic's width, then the extremes: every entry in COO (the
      // ELL pass only writes zeros), a one-slot ELL part, and no COO part.
      HybMatrix by_heuristic = to_hyb(a);
      std::set<index_t> widths_done{by_heuristic.ell.width};
      std::string label = hyb_label(by_heuristic, "default width");
      layouts.emplace_back(std::move(label), std::move(by_heuristic), space);
      for (const index_t width : {index_t{0}, index_t{1}, longest_row(a)}) {
        if (!widths_done.insert(width).second) continue;
        HybOptions options;
        options.ell_width = width;
        HybMatrix with_width = to_hyb(a, options);
        label = hyb_label(with_width, "width set");
        layouts.emplace_back(std::move(label), std::move(with_width), space);
      }
      break;
    }
    case SPMV_FORMAT_SELL:
      for (const SellParams& params : sell_layout_params(a.rows)) {
        try {
          SellMatrix sell = to_sell(a, params, {.max_bytes = kSellLayoutBytes});
          std::string label = sell_label(sell);
          layouts.emplace_back(std::move(label), std::move(sell), space);
        } catch (const ConversionRefused&) {
          // Too much padding for a test layout; see kSellLayoutBytes.
        }
      }
      break;
    default:
      throw std::invalid_argument("no test layout for format " + std::to_string(static_cast<int>(format)) +
                                  ": add it to uploaded_layouts() in tests/gpu/uploaded_matrix.cpp");
  }
  return layouts;
}

}  // namespace spmv::test
