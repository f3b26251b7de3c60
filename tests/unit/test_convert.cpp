// Conversions: the course's worked examples array by array, exact round
// trips on generated matrices of every shape, the HYB width heuristic, the
// SELL row order and slice widths, and the refusal of padded formats that
// would not fit the memory limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sparse_test_support.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/generators.hpp"

namespace spmv {
namespace {

using test::expect_same;

template <typename Example>
void expect_worked_example() {
  const CsrMatrix csr = Example::csr();
  ASSERT_NO_THROW(csr.validate());
  expect_same(to_coo(csr), Example::coo());
  expect_same(to_ell(csr), Example::ell());
  expect_same(to_hyb(csr, test::hyb_width(2)), Example::hyb_width_2());
  expect_same(to_jds(csr), Example::jds());
  expect_same(to_sell(csr, test::sell_params(2, 4)), Example::sell_c2_sigma4());

  expect_same(to_csr(Example::coo()), csr);
  expect_same(to_csr(Example::ell()), csr);
  expect_same(to_csr(Example::hyb_width_2()), csr);
  expect_same(to_csr(Example::jds()), csr);
  expect_same(to_csr(Example::sell_c2_sigma4()), csr);
}

TEST(ConvertWorkedExample, TeachingKit4x4) { expect_worked_example<test::TeachingKit>(); }

TEST(ConvertWorkedExample, TextbookFigure14_1) { expect_worked_example<test::TextbookFigure14_1>(); }

TEST(ConvertWorkedExample, TeachingKitSellWithoutSortingKeepsTheRowOrder) {
  const SellMatrix sell = to_sell(test::TeachingKit::csr(), test::sell_params(2, 1));
  EXPECT_TRUE(sell.row_perm.empty());
  expect_same(sell, test::TeachingKit::sell_c2_sigma1());
  expect_same(to_csr(test::TeachingKit::sell_c2_sigma1()), test::TeachingKit::csr());
}

TEST(ConvertWorkedExample, TeachingKitSellOfSliceHeight1IsCsrWithPadding) {
  // C = 1: one row per slice, so no padding and the slots are CSR's
  // entries. With sigma = 2 both windows, rows 0, 1 (2 and 0 entries) and
  // rows 2, 3 (3 and 2), are already in order.
  const SellMatrix sell = to_sell(test::TeachingKit::csr(), test::sell_params(1, 2));
  EXPECT_TRUE(sell.row_perm.empty()) << "windows (2, 0) and (3, 2) are already sorted";
  EXPECT_EQ(sell.slice_ptr, (std::vector<std::int64_t>{0, 2, 2, 5, 7}));
  EXPECT_EQ(sell.col_idx, test::TeachingKit::csr().col_idx);
}

TEST(ConvertWorkedExample, TeachingKitHybWidth1) {
  const HybMatrix expected{{4, 4, 1, {1, 0, 1, 1}, {0, -1, 1, 0}, {3, 0, 2, 1}},
                           {4, 4, {0, 2, 2, 3}, {2, 2, 3, 3}, {1, 4, 1, 1}}};
  expect_same(to_hyb(test::TeachingKit::csr(), test::hyb_width(1)), expected);
}

TEST(ConvertWorkedExample, DefaultHybWidthOfTheExamplesIs2) {
  // 4 rows: width 2 leaves one row (fewer than 4 / 3) longer, width 1 three.
  for (const CsrMatrix& csr : {test::TeachingKit::csr(), test::TextbookFigure14_1::csr()}) {
    EXPECT_EQ(hyb_default_width(csr), 2);
  }
  expect_same(to_hyb(test::TeachingKit::csr()), test::TeachingKit::hyb_width_2());
  expect_same(to_hyb(test::TextbookFigure14_1::csr()), test::TextbookFigure14_1::hyb_width_2());
}

// Columns 0 .. length-1 in every row, values 1.
CsrMatrix with_row_lengths(const std::vector<index_t>& lengths, index_t cols) {
  CsrMatrix a;
  a.rows = static_cast<index_t>(lengths.size());
  a.cols = cols;
  for (const index_t length : lengths) {
    for (index_t c = 0; c < length; ++c) {
      a.col_idx.push_back(c);
      a.values.push_back(1.0F);
    }
    a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
  }
  return a;
}

std::vector<index_t> lengths_in_blocks(std::initializer_list<std::pair<index_t, index_t>> blocks) {
  std::vector<index_t> lengths;
  for (const auto& [count, length] : blocks) lengths.insert(lengths.end(), count, length);
  return lengths;
}

TEST(HybDefaultWidth, FollowsTheThirdOfRowsRule) {
  // 20000 rows: the bound is 20000 / 3 = 6666.7 rows.
  // 10000 rows of 5 and 10000 of 2: 10000 rows are longer than 2, none than 5.
  EXPECT_EQ(hyb_default_width(with_row_lengths(lengths_in_blocks({{10000, 5}, {10000, 2}}), 8)), 5);
  // 6000 rows of 5: 6000 < 6666.7 rows are longer than 2.
  EXPECT_EQ(hyb_default_width(with_row_lengths(lengths_in_blocks({{6000, 5}, {14000, 2}}), 8)), 2);
}

TEST(HybDefaultWidth, HasNoFloorOfRowsForSmallMatrices) {
  // 9000 rows: 4000 rows of 7 are not fewer than 3000, so ELL takes all 7
  // (CUSP's 4096-row floor would have chosen 1).
  EXPECT_EQ(hyb_default_width(with_row_lengths(lengths_in_blocks({{4000, 7}, {5000, 1}}), 8)), 7);
  EXPECT_EQ(hyb_default_width(with_row_lengths(lengths_in_blocks({{2900, 7}, {6100, 1}}), 8)), 1);
  EXPECT_EQ(hyb_default_width(gen::empty(0, 0)), 0);
  EXPECT_EQ(hyb_default_width(gen::empty(5, 5)), 0);
}

TEST(HybDefaultWidth, IsTheSmallestWidthWithASmallTail) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = gen::power_law(30000, 30000, 1.6, 3000, seed);
  const auto rows_longer = [&](index_t width) {
    std::int64_t count = 0;
    for (index_t r = 0; r < a.rows; ++r) count += a.row_length(r) > width ? 1 : 0;
    return count;
  };
  const double bound = a.rows / 3.0;
  const index_t width = hyb_default_width(a);
  EXPECT_LT(static_cast<double>(rows_longer(width)), bound);
  ASSERT_GT(width, 0);
  EXPECT_GE(static_cast<double>(rows_longer(width - 1)), bound);
}

// An explicit zero at every `period`-th entry: stored, so it must survive.
CsrMatrix with_explicit_zeros(CsrMatrix a, std::size_t period) {
  for (std::size_t e = 0; e < a.values.size(); e += period) a.values[e] = (e / period) % 2 == 0 ? 0.0F : -0.0F;
  return a;
}

index_t longest_row(const CsrMatrix& a) {
  index_t longest = 0;
  for (index_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.row_length(r));
  return longest;
}

struct NamedMatrix {
  std::string name;
  CsrMatrix matrix;
};

std::vector<NamedMatrix> round_trip_matrices(std::uint64_t seed) {
  return {
      {"random 300 x 300, 5 per row", gen::uniform_random(300, 300, 5, seed)},
      {"tall 500 x 40, 7 per row", gen::generate("tall rows=500 cols=40 per_row=7 seed=" + std::to_string(seed))},
      {"wide 40 x 700, 30 per row", gen::generate("wide rows=40 cols=700 per_row=30 seed=" + std::to_string(seed))},
      {"power law 3000 rows", gen::power_law(3000, 3000, 1.7, 600, seed)},
      {"35% empty rows", gen::with_empty_rows(gen::uniform_random(400, 250, 9, seed), 0.35, seed)},
      {"all rows empty", gen::with_empty_rows(gen::banded(30, 2, seed), 1.0, seed)},
      {"explicit zeros", with_explicit_zeros(gen::stencil_2d_5pt(17, 13, seed), 7)},
      {"rows of 110000 entries", gen::uniform_random(3, 200000, 110000, seed)},
      {"27-point stencil 6 x 5 x 4", gen::stencil_3d_27pt(6, 5, 4, seed)},
      {"banded", gen::banded(50, 3, seed)},
      {"block diagonal", gen::block_diagonal(7, 6, seed)},
      {"arrow", gen::arrow(300, seed)},
      {"1 x 1", gen::diagonal(1, seed)},
      {"1 x 1 explicit zero", with_explicit_zeros(gen::diagonal(1, seed), 1)},
      {"no entries 5 x 7", gen::empty(5, 7)},
      {"0 x 0", gen::empty(0, 0)},
      {"0 x 4", gen::empty(0, 4)},
      {"4 x 0", gen::empty(4, 0)},
  };
}

template <typename Format>
void expect_round_trip(const CsrMatrix& a, const Format& converted) {
  ASSERT_NO_THROW(converted.validate());
  expect_same(to_csr(converted), a);
}

TEST(ConvertRoundTrip, EveryFormatIsExact) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  for (const auto& [name, a] : round_trip_matrices(seed)) {
    SCOPED_TRACE(name);
    ASSERT_NO_THROW(a.validate());
    expect_round_trip(a, to_coo(a));
    const EllMatrix ell = to_ell(a);
    EXPECT_EQ(ell.width, longest_row(a));
    expect_round_trip(a, ell);
    expect_round_trip(a, to_jds(a));
    expect_round_trip(a, to_hyb(a));
    for (const index_t width : {0, 1, 3, longest_row(a) + 2}) {
      SCOPED_TRACE("HYB ELL width " + std::to_string(width));
      const HybMatrix hyb = to_hyb(a, test::hyb_width(width));
      EXPECT_EQ(hyb.ell.width, width);
      expect_round_trip(a, hyb);
    }
    // Small slices only: a slice of 1024 positions of the 110000-entry
    // rows would fill 900 MB with padding. ConvertSell covers the rest.
    for (const SellParams& params : {SellParams{}, test::sell_params(1, 1), test::sell_params(7, 5)}) {
      SCOPED_TRACE("SELL C " + std::to_string(params.slice_height) + ", sigma " + std::to_string(params.sort_window));
      expect_round_trip(a, to_sell(a, params));
    }
  }
}

// ---- SELL-C-sigma

// Default, C = 1 (a slice per row), C of a warp without sorting, C not a
// power of two with a window that is not a multiple of it, the largest C,
// and one window over all rows (JDS's order, cut into slices).
std::vector<SellParams> sell_params_to_test(index_t rows) {
  return {SellParams{},
          test::sell_params(1, 1),
          test::sell_params(32, 1),
          test::sell_params(7, 5),
          test::sell_params(1024, 300),
          test::sell_params(64, std::max(rows, index_t{1}))};
}

// The row order SELL must have, computed apart from the library: within
// each window, longer rows first and equal rows by index (what a stable
// sort by length gives); the identity when that changes nothing.
std::vector<index_t> expected_sell_order(const CsrMatrix& a, index_t window) {
  std::vector<index_t> order(static_cast<std::size_t>(a.rows));
  std::iota(order.begin(), order.end(), index_t{0});
  for (std::size_t first = 0; first < order.size(); first += static_cast<std::size_t>(window)) {
    const std::size_t last = std::min(order.size(), first + static_cast<std::size_t>(window));
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(first), order.begin() + static_cast<std::ptrdiff_t>(last),
              [&a](index_t x, index_t y) {
                return a.row_length(x) != a.row_length(y) ? a.row_length(x) > a.row_length(y) : x < y;
              });
  }
  for (index_t p = 0; p < a.rows; ++p) {
    if (order[p] != p) return order;
  }
  return {};
}

// slice_ptr for rows in `order` (empty: the identity): each slice of C
// positions is C times its longest row wide.
std::vector<std::int64_t> expected_slice_ptr(const CsrMatrix& a, const std::vector<index_t>& order, index_t height) {
  std::vector<std::int64_t> slice_ptr{0};
  for (index_t first = 0; first < a.rows; first += height) {
    index_t width = 0;
    for (index_t p = first; p < std::min(a.rows, first + height); ++p) {
      width = std::max(width, a.row_length(order.empty() ? p : order[p]));
    }
    slice_ptr.push_back(slice_ptr.back() + std::int64_t{width} * height);
  }
  return slice_ptr;
}

// Power-law rows (empty ones, rows longer than a warp and a block) with
// row counts that are no multiple of the slice heights tested.
std::vector<NamedMatrix> sell_matrices(std::uint64_t seed) {
  std::vector<NamedMatrix> matrices;
  for (const index_t rows : {1, 2, 31, 33, 1000, 2111}) {
    const index_t cols = 1 + static_cast<index_t>((seed + static_cast<std::uint64_t>(rows)) % 700);
    matrices.push_back({"power law, 20% empty, " + std::to_string(rows) + " rows",
                        gen::with_empty_rows(gen::power_law(rows, cols, 1.7, cols, seed + 1), 0.2, seed + 2)});
  }
  matrices.push_back({"arrow of 3000", gen::arrow(3000, seed)});
  matrices.push_back({"uniform 999 x 999, 9 per row", gen::uniform_random(999, 999, 9, seed)});
  matrices.push_back({"no entries 70 x 9", gen::empty(70, 9)});
  matrices.push_back({"0 x 0", gen::empty(0, 0)});
  matrices.push_back({"0 x 4", gen::empty(0, 4)});
  return matrices;
}

TEST(ConvertSell, RowOrderAndSliceWidthsFollowTheParameters) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  bool some_window_reordered = false;
  for (const auto& [name, a] : sell_matrices(seed)) {
    SCOPED_TRACE(name);
    for (const SellParams& params : sell_params_to_test(a.rows)) {
      SCOPED_TRACE("C " + std::to_string(params.slice_height) + ", sigma " + std::to_string(params.sort_window));
      const SellMatrix sell = to_sell(a, params);
      ASSERT_NO_THROW(sell.validate());
      EXPECT_EQ(sell.slice_height, params.slice_height);
      EXPECT_EQ(sell.sort_window, params.sort_window);
      EXPECT_EQ(sell.nnz, a.nnz());
      const std::vector<index_t> order = expected_sell_order(a, params.sort_window);
      EXPECT_EQ(sell.row_perm, order);
      if (params.sort_window == 1) {
        EXPECT_TRUE(sell.row_perm.empty());
      }
      some_window_reordered = some_window_reordered || !sell.row_perm.empty();
      EXPECT_EQ(sell.slice_ptr, expected_slice_ptr(a, order, params.slice_height));
      expect_same(to_csr(sell), a);
    }
  }
  EXPECT_TRUE(some_window_reordered) << "no matrix exercised a sorted window";
}

TEST(ConvertSell, SortingWithinWindowsCutsThePaddingOfAlternatingRows) {
  // Rows of 8 and 1 entries in turn: slices of 2 unsorted rows are all 8
  // wide; sorted in windows of 4, every other slice is 1 wide.
  std::vector<index_t> lengths;
  for (int i = 0; i < 8; ++i) lengths.push_back(i % 2 == 0 ? 8 : 1);
  const CsrMatrix a = with_row_lengths(lengths, 8);
  const SellMatrix unsorted = to_sell(a, test::sell_params(2, 1));
  const SellMatrix sorted = to_sell(a, test::sell_params(2, 4));
  EXPECT_EQ(unsorted.slice_ptr.back(), 4 * 2 * 8);
  EXPECT_EQ(sorted.slice_ptr.back(), 2 * 2 * 8 + 2 * 2 * 1);
  EXPECT_EQ(sorted.row_perm, (std::vector<index_t>{0, 2, 1, 3, 4, 6, 5, 7}));
  expect_same(to_csr(sorted), a);
}

TEST(ConvertSell, ParametersForAMatrixSortOnlyWhenUnsortedSlicesPadMuch) {
  // Rows of 8 and 1 in turn: unsorted slices of 32 pad 9 entries to 16.
  std::vector<index_t> alternating;
  for (int i = 0; i < 256; ++i) alternating.push_back(i % 2 == 0 ? 8 : 1);
  EXPECT_EQ(sell_params_for(with_row_lengths(alternating, 8)).sort_window, SellParams{}.sort_window);
  // Rows of 5 with one row of 4 per slice of 32: 1 slot of padding in 160.
  std::vector<index_t> nearly_even;
  for (int i = 0; i < 256; ++i) nearly_even.push_back(i % 32 == 0 ? 4 : 5);
  const SellParams even = sell_params_for(with_row_lengths(nearly_even, 8));
  EXPECT_EQ(even.sort_window, 1);
  EXPECT_EQ(even.slice_height, SellParams{}.slice_height);
  EXPECT_TRUE(to_sell(with_row_lengths(nearly_even, 8), even).row_perm.empty());
  // No entries at all: nothing to gain from sorting.
  EXPECT_EQ(sell_params_for(with_row_lengths(std::vector<index_t>(40, 0), 8)).sort_window, 1);
}

TEST(ConvertSell, RejectsParametersOutsideTheContract) {
  const CsrMatrix a = test::TeachingKit::csr();
  for (const SellParams& params : {test::sell_params(0, 1), test::sell_params(1025, 1), test::sell_params(-3, 1),
                                   test::sell_params(32, 0), test::sell_params(32, -1)}) {
    SCOPED_TRACE("C " + std::to_string(params.slice_height) + ", sigma " + std::to_string(params.sort_window));
    EXPECT_THROW(static_cast<void>(to_sell(a, params)), std::invalid_argument);
  }
  EXPECT_NO_THROW(static_cast<void>(to_sell(a, test::sell_params(1024, 1))));
  EXPECT_NO_THROW(static_cast<void>(to_sell(a, test::sell_params(1, 1000000))));
}

TEST(ConvertRoundTrip, RowLongerThan100kEntriesWithoutEll) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = gen::arrow(120000, seed);
  ASSERT_EQ(a.row_length(0), 120000);
  expect_round_trip(a, to_coo(a));
  expect_round_trip(a, to_jds(a));
  const HybMatrix hyb = to_hyb(a);
  // Every row but row 0 has 2 entries: row 0's tail goes to COO.
  EXPECT_EQ(hyb.ell.width, 2);
  EXPECT_EQ(hyb.coo.nnz(), 120000 - 2);
  expect_round_trip(a, hyb);
  EXPECT_THROW(static_cast<void>(to_ell(a)), ConversionRefused);
}

// 46500 x 46500 with one full row and a diagonal: ELL would pad every row
// to 46500 slots.
CsrMatrix one_full_row(index_t n) {
  CsrMatrix a;
  a.rows = n;
  a.cols = n;
  for (index_t c = 0; c < n; ++c) a.col_idx.push_back(c);
  a.row_ptr.push_back(n);
  for (index_t r = 1; r < n; ++r) {
    a.col_idx.push_back(r);
    a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
  }
  a.values.assign(a.col_idx.size(), 0.5F);
  return a;
}

void expect_message_has(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "missing \"" << part << "\" in: " << message;
  }
}

TEST(ConvertLimits, EllOfOneFullRowIsRefusedBeforeAllocating) {
  const CsrMatrix a = one_full_row(46500);
  const std::size_t needed = ell_bytes(46500, 46500);
  ASSERT_GT(needed, ConversionLimits{}.max_bytes);
  const auto start = std::chrono::steady_clock::now();
  try {
    static_cast<void>(to_ell(a));
    ADD_FAILURE() << "to_ell accepted a " << needed << "-byte ELL";
  } catch (const ConversionRefused& refusal) {
    // Filling 16 GiB of padding first would take far longer (or fail).
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    expect_message_has(refusal.what(),
                       {"46500 rows", "width 46500", std::to_string(needed) + " bytes", "ConversionLimits::max_bytes",
                        "4.0 GiB", "longest row has 46500 entries", "mean is 2.0"});
  }
  // HYB keeps the long row in COO and fits.
  const HybMatrix hyb = to_hyb(a);
  EXPECT_EQ(hyb.ell.width, 1);
  expect_round_trip(a, hyb);
}

TEST(ConvertLimits, EllBoundaryIsInclusive) {
  const CsrMatrix a = test::TeachingKit::csr();
  const std::size_t needed = ell_bytes(4, 3);
  EXPECT_NO_THROW(static_cast<void>(to_ell(a, {.max_bytes = needed})));
  EXPECT_THROW(static_cast<void>(to_ell(a, {.max_bytes = needed - 1})), ConversionRefused);
}

TEST(ConvertLimits, HybCountsItsCooPart) {
  const CsrMatrix a = test::TeachingKit::csr();
  // Width 2: the ELL part plus one COO entry (row, column, value).
  const std::size_t needed = ell_bytes(4, 2) + 2 * sizeof(index_t) + sizeof(value_t);
  EXPECT_NO_THROW(static_cast<void>(to_hyb(a, test::hyb_width(2, {.max_bytes = needed}))));
  try {
    static_cast<void>(to_hyb(a, test::hyb_width(2, {.max_bytes = needed - 1})));
    ADD_FAILURE() << "to_hyb ignored the COO part's bytes";
  } catch (const ConversionRefused& refusal) {
    expect_message_has(refusal.what(), {"HYB of 4 rows", "ELL width 2", "COO part 12 bytes for 1 entries",
                                        std::to_string(needed) + " bytes", "ConversionLimits::max_bytes"});
  }
}

TEST(ConvertLimits, SellCountsEverySlotOfItsSlices) {
  const CsrMatrix a = test::TeachingKit::csr();
  // 10 slots (C = 2, sigma = 4) of a column and a value each.
  const std::size_t needed = 10 * (sizeof(index_t) + sizeof(value_t));
  EXPECT_NO_THROW(static_cast<void>(to_sell(a, test::sell_params(2, 4), {.max_bytes = needed})));
  try {
    static_cast<void>(to_sell(a, test::sell_params(2, 4), {.max_bytes = needed - 1}));
    ADD_FAILURE() << "to_sell accepted " << needed << " bytes over a limit of " << needed - 1;
  } catch (const ConversionRefused& refusal) {
    expect_message_has(refusal.what(),
                       {"SELL-C-sigma (C = 2, sigma = 4) of 4 rows", "10 slots for 7 entries",
                        std::to_string(needed) + " bytes", "ConversionLimits::max_bytes", "longest row has 3 entries"});
  }
}

TEST(ConvertLimits, SellOfOneFullRowPadsOnlyItsSlice) {
  // What ELL refuses (46500 x 46500 slots) costs SELL one slice of the
  // full row's width: 32 x 46500 slots, and 1 per position elsewhere.
  const CsrMatrix a = one_full_row(46500);
  const SellMatrix sell = to_sell(a);
  const std::int64_t slices = (46500 + 31) / 32;
  EXPECT_EQ(sell.slice_ptr.back(), 32 * 46500 + (slices - 1) * 32 * 1);
  expect_round_trip(a, sell);
}

TEST(ConvertLimits, EllBytesCountsSlotsAndRowLengthsIn64Bits) {
  EXPECT_EQ(ell_bytes(0, 0), 0U);
  EXPECT_EQ(ell_bytes(46500, 46500), std::size_t{46500} * 46500 * 8 + 46500 * 4);
  constexpr index_t kMax = std::numeric_limits<index_t>::max();
  EXPECT_EQ(ell_bytes(kMax, 1 << 28), std::size_t{kMax} * (std::size_t{1} << 28) * 8 + std::size_t{kMax} * 4);
  // Too large for size_t: saturates above any limit instead of wrapping.
  EXPECT_EQ(ell_bytes(kMax, kMax), std::numeric_limits<std::size_t>::max());
  EXPECT_THROW(static_cast<void>(ell_bytes(-1, 3)), std::invalid_argument);
}

TEST(ConvertErrors, NegativeHybWidthIsRejected) {
  EXPECT_THROW(static_cast<void>(to_hyb(test::TeachingKit::csr(), test::hyb_width(-1))), std::invalid_argument);
}

TEST(ConvertErrors, InvalidInputIsRejectedNotConverted) {
  CsrMatrix broken = test::TeachingKit::csr();
  broken.col_idx[3] = 9;
  EXPECT_THROW(static_cast<void>(to_ell(broken)), FormatError);
  EXPECT_THROW(static_cast<void>(to_jds(broken)), FormatError);
  EXPECT_THROW(static_cast<void>(to_sell(broken)), FormatError);
  EllMatrix broken_ell = test::TeachingKit::ell();
  broken_ell.row_length[1] = 1;
  EXPECT_THROW(static_cast<void>(to_csr(broken_ell)), FormatError);
  SellMatrix broken_sell = test::TeachingKit::sell_c2_sigma4();
  broken_sell.row_perm[0] = 0;  // row 0 twice
  EXPECT_THROW(static_cast<void>(to_csr(broken_sell)), FormatError);
}

}  // namespace
}  // namespace spmv
