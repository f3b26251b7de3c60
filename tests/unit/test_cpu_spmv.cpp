// cpu_spmv for every format against a plain fp64 row-by-row product: each
// format's walk over its own arrays (padding, permutation, diagonals, the
// HYB split) must give the fp64 row sum rounded once to float.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sparse_test_support.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/cpu_spmv.hpp"
#include "spmv/core/generators.hpp"

namespace spmv {
namespace {

// Magnitudes in [0.1, 2] with random signs: never zero, and of varied
// scale so that dropped or repeated terms show.
std::vector<float> random_x(std::size_t size, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> magnitude(0.1F, 2.0F);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> x(size);
  for (float& v : x) v = negative(engine) ? -magnitude(engine) : magnitude(engine);
  return x;
}

std::vector<double> fp64_product(const CsrMatrix& a, const std::vector<float>& x) {
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) {
      y[r] += static_cast<double>(a.values[e]) * static_cast<double>(x[a.col_idx[e]]);
    }
  }
  return y;
}

// Within one ulp of the fp64 sum rounded to float: the oracle's summation
// order may differ from the format's, which can move the rounding by one.
void expect_rounded(const std::vector<float>& y, const std::vector<double>& expected, const std::string& format) {
  SCOPED_TRACE(format);
  ASSERT_EQ(y.size(), expected.size());
  int reported = 0;
  for (std::size_t r = 0; r < y.size() && reported < 5; ++r) {
    const auto rounded = static_cast<float>(expected[r]);
    const bool close = y[r] == rounded || y[r] == std::nextafter(rounded, std::numeric_limits<float>::infinity()) ||
                       y[r] == std::nextafter(rounded, -std::numeric_limits<float>::infinity());
    if (!close) {
      ADD_FAILURE() << "row " << r << ": got " << y[r] << ", expected " << rounded << " (fp64 " << expected[r] << ")";
      ++reported;
    }
  }
}

void expect_all_formats_match(const CsrMatrix& a, std::uint64_t seed) {
  const std::vector<float> x = random_x(static_cast<std::size_t>(a.cols), seed);
  const std::vector<double> expected = fp64_product(a, x);
  expect_rounded(cpu_spmv(a, x), expected, "CSR");
  expect_rounded(cpu_spmv(to_coo(a), x), expected, "COO");
  expect_rounded(cpu_spmv(to_jds(a), x), expected, "JDS");
  expect_rounded(cpu_spmv(to_hyb(a), x), expected, "HYB, default width");
  expect_rounded(cpu_spmv(to_hyb(a, test::hyb_width(1)), x), expected, "HYB, width 1");
  // Each row's terms in column order, as CSR sums them: the same bits.
  const std::vector<float> csr_y = cpu_spmv(a, x);
  for (const SellParams& params :
       {SellParams{}, test::sell_params(1, 1), test::sell_params(3, 8), test::sell_params(32, 1)}) {
    SCOPED_TRACE("SELL C " + std::to_string(params.slice_height) + ", sigma " + std::to_string(params.sort_window));
    EXPECT_EQ(test::bits_of(cpu_spmv(to_sell(a, params), x)), test::bits_of(csr_y));
  }
  try {
    expect_rounded(cpu_spmv(to_ell(a), x), expected, "ELL");
  } catch (const ConversionRefused&) {
    // Too much padding for ELL: nothing to compare, as in the grader.
  }
}

TEST(CpuSpmv, TeachingKitByHand) {
  // [3 0 1 0; 0 0 0 0; 0 2 4 1; 1 0 0 1] * [1 2 3 4] = [6 0 20 5].
  const std::vector<float> x{1, 2, 3, 4};
  const std::vector<float> expected{6, 0, 20, 5};
  EXPECT_EQ(cpu_spmv(test::TeachingKit::csr(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TeachingKit::coo(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TeachingKit::ell(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TeachingKit::hyb_width_2(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TeachingKit::jds(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TeachingKit::sell_c2_sigma4(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TeachingKit::sell_c2_sigma1(), x), expected);
}

TEST(CpuSpmv, TextbookFigureByHand) {
  // [1 7 0 0; 5 0 3 9; 0 2 8 0; 0 0 0 6] * [1 -1 2 0.5] = [-6 15.5 14 3].
  const std::vector<float> x{1, -1, 2, 0.5F};
  const std::vector<float> expected{-6, 15.5F, 14, 3};
  EXPECT_EQ(cpu_spmv(test::TextbookFigure14_1::csr(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TextbookFigure14_1::coo(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TextbookFigure14_1::ell(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TextbookFigure14_1::hyb_width_2(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TextbookFigure14_1::jds(), x), expected);
  EXPECT_EQ(cpu_spmv(test::TextbookFigure14_1::sell_c2_sigma4(), x), expected);
}

TEST(CpuSpmv, RoundsTheFp64SumOnce) {
  // 1 + 2^-24 + 2^-24: summed in float each half-ulp term is lost (1);
  // in fp64 the sum 1 + 2^-23 is exactly a float.
  const CsrMatrix a{1, 3, {0, 3}, {0, 1, 2}, {1.0F, 0x1p-24F, 0x1p-24F}};
  const std::vector<float> x{1, 1, 1};
  const float expected = 1.0F + 0x1p-23F;
  EXPECT_EQ(cpu_spmv(a, x)[0], expected);
  EXPECT_EQ(cpu_spmv(to_coo(a), x)[0], expected);
  EXPECT_EQ(cpu_spmv(to_ell(a), x)[0], expected);
  EXPECT_EQ(cpu_spmv(to_hyb(a, test::hyb_width(1)), x)[0], expected);
  EXPECT_EQ(cpu_spmv(to_jds(a), x)[0], expected);
  EXPECT_EQ(cpu_spmv(to_sell(a), x)[0], expected);
}

TEST(CpuSpmv, EveryFormatMatchesFp64OnGeneratedMatrices) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  const std::vector<std::pair<std::string, CsrMatrix>> cases = {
      {"random", gen::uniform_random(2000, 1500, 12, seed)},
      {"power law", gen::power_law(5000, 5000, 1.8, 800, seed)},
      {"2D stencil", gen::stencil_2d_5pt(45, 37, seed)},
      {"3D 27-point stencil", gen::stencil_3d_27pt(9, 8, 7, seed)},
      {"empty rows", gen::with_empty_rows(gen::banded(700, 6, seed), 0.4, seed)},
      {"tall", gen::uniform_random(900, 60, 9, seed)},
      {"wide", gen::uniform_random(60, 900, 70, seed)},
      {"arrow with a 40000-entry row", gen::arrow(40000, seed)},
      {"block diagonal", gen::block_diagonal(20, 33, seed)},
      {"1 x 1", gen::diagonal(1, seed)},
      {"no entries", gen::empty(6, 9)},
      {"0 x 0", gen::empty(0, 0)},
  };
  for (const auto& [name, a] : cases) {
    SCOPED_TRACE(name);
    expect_all_formats_match(a, seed);
  }
}

TEST(CpuSpmv, EmptyRowsGiveZero) {
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(cpu_spmv(gen::empty(6, 9), x), std::vector<float>(6, 0.0F));
  EXPECT_EQ(cpu_spmv(to_jds(gen::empty(6, 9)), x), std::vector<float>(6, 0.0F));
  EXPECT_EQ(cpu_spmv(to_sell(gen::empty(6, 9), test::sell_params(4, 1)), x), std::vector<float>(6, 0.0F));
}

template <typename Matrix>
void expect_x_size_rejected(const Matrix& a, const std::string& format) {
  const std::vector<float> x(3, 1.0F);
  try {
    static_cast<void>(cpu_spmv(a, std::span<const float>(x)));
    ADD_FAILURE() << format << ": accepted x of 3 entries for 4 columns";
  } catch (const std::invalid_argument& error) {
    const std::string expected = "cpu_spmv(" + format + "): x has 3 entries, expected cols = 4";
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
  }
}

TEST(CpuSpmv, RejectsXOfTheWrongSize) {
  expect_x_size_rejected(test::TeachingKit::csr(), "CSR");
  expect_x_size_rejected(test::TeachingKit::coo(), "COO");
  expect_x_size_rejected(test::TeachingKit::ell(), "ELL");
  expect_x_size_rejected(test::TeachingKit::hyb_width_2(), "HYB");
  expect_x_size_rejected(test::TeachingKit::jds(), "JDS");
  expect_x_size_rejected(test::TeachingKit::sell_c2_sigma4(), "SELL");
}

TEST(CpuSpmv, RejectsInvalidContainers) {
  const std::vector<float> x{1, 2, 3, 4};
  JdsMatrix jds = test::TeachingKit::jds();
  jds.row_perm[0] = 9;  // would write y out of bounds
  EXPECT_THROW(static_cast<void>(cpu_spmv(jds, x)), FormatError);
  EllMatrix ell = test::TeachingKit::ell();
  ell.col_idx[0] = 4;  // would read x out of bounds
  EXPECT_THROW(static_cast<void>(cpu_spmv(ell, x)), FormatError);
  SellMatrix sell = test::TeachingKit::sell_c2_sigma4();
  sell.row_perm[0] = 9;  // would write y out of bounds
  EXPECT_THROW(static_cast<void>(cpu_spmv(sell, x)), FormatError);
}

// The SELL walk visits every slot, padding and the positions past the last
// row included, and must still give CSR's bits: padding adds nothing.
TEST(CpuSpmv, SellPaddingAddsNothing) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  // 13 rows in slices of 8: the last slice has 3 positions past the rows.
  const CsrMatrix a = gen::with_empty_rows(gen::uniform_random(13, 20, 6, seed), 0.5, seed);
  const std::vector<float> x = random_x(20, seed);
  const SellMatrix sell = to_sell(a, test::sell_params(8, 4));
  EXPECT_EQ(test::bits_of(cpu_spmv(sell, x)), test::bits_of(cpu_spmv(a, x)));
}

}  // namespace
}  // namespace spmv
