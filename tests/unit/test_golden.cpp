#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "random_csr.hpp"
#include "spmv/core/golden.hpp"

namespace spmv {
namespace {

// Textbook figure 14.1: row 0: 1 (col 0), 7 (col 1); row 1: 5 (col 0),
// 3 (col 2), 9 (col 3); row 2: 2 (col 1), 8 (col 2); row 3: 6 (col 3).
CsrMatrix textbook_fig14_1() {
  CsrMatrix a;
  a.rows = 4;
  a.cols = 4;
  a.row_ptr = {0, 2, 5, 7, 8};
  a.col_idx = {0, 1, 0, 2, 3, 1, 2, 3};
  a.values = {1, 7, 5, 3, 9, 2, 8, 6};
  return a;
}

// Teaching kit example, with an empty row: 3 0 1 0 / 0 0 0 0 / 0 2 4 1 / 1 0 0 1.
CsrMatrix teaching_kit() {
  CsrMatrix a;
  a.rows = 4;
  a.cols = 4;
  a.row_ptr = {0, 2, 2, 5, 7};
  a.col_idx = {0, 2, 1, 2, 3, 0, 3};
  a.values = {3, 1, 2, 4, 1, 1, 1};
  return a;
}

// A matrix read with allow_nonfinite: an infinite term gives the infinity
// any summation order gives (the compensation term alone would be NaN),
// and opposite infinities or a NaN give NaN.
TEST(Golden, NonFiniteEntriesGiveTheResultOfAnyOrder) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  CsrMatrix a;
  a.rows = 3;
  a.cols = 3;
  a.row_ptr = {0, 3, 5, 7};
  a.col_idx = {0, 1, 2, 0, 2, 1, 2};
  a.values = {1.5F, kInf, 2, kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), 1};
  const std::vector<float> x{0.5F, -0.75F, 1};
  const GoldenResult golden = golden_spmv(a, x);
  EXPECT_EQ(golden.y[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(golden.y[1]));
  EXPECT_TRUE(std::isnan(golden.y[2]));
}

TEST(Golden, TextbookExampleWithMixedSigns) {
  const std::vector<float> x{1, -2, 3, -4};
  const GoldenResult golden = golden_spmv(textbook_fig14_1(), x);
  // 1-14, 5+9-36, -4+24, -24 and the sums of the terms' magnitudes.
  EXPECT_EQ(golden.y, (std::vector<double>{-13, -22, 20, -24}));
  EXPECT_EQ(golden.abs_sum, (std::vector<double>{15, 50, 28, 24}));
  EXPECT_EQ(golden.row_nnz, (std::vector<index_t>{2, 3, 2, 1}));
}

TEST(Golden, TeachingKitExampleHasAnExactlyZeroEmptyRow) {
  const std::vector<float> x{0.5F, -1, 0.25F, 2};
  const GoldenResult golden = golden_spmv(teaching_kit(), x);
  // 1.5+0.25, empty, -2+1+2, 0.5+2
  EXPECT_EQ(golden.y, (std::vector<double>{1.75, 0, 1, 2.5}));
  EXPECT_EQ(golden.abs_sum, (std::vector<double>{1.75, 0, 5, 2.5}));
  EXPECT_EQ(golden.row_nnz, (std::vector<index_t>{2, 0, 3, 2}));
}

TEST(Golden, CancellationBeyondDoublePrecisionIsExact) {
  // 2^60 + 1 - 2^60: plain fp64 summation loses the 1 entirely.
  CsrMatrix a;
  a.rows = 1;
  a.cols = 3;
  a.row_ptr = {0, 3};
  a.col_idx = {0, 1, 2};
  a.values = {std::ldexp(1.0F, 60), 1.0F, -std::ldexp(1.0F, 60)};
  const std::vector<float> x{1, 1, 1};
  const GoldenResult golden = golden_spmv(a, x);
  EXPECT_EQ(golden.y[0], 1.0);
  EXPECT_EQ(golden.abs_sum[0], std::ldexp(1.0, 61) + 1);
}

TEST(Golden, MatchesExtendedPrecisionSumOnRandomMatrices) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const CsrMatrix a = test::random_csr(rng, {.rows = 3000, .cols = 2000, .empty_fraction = 0.1, .long_row = 0});
  const std::vector<float> x = test::random_x(rng, a.cols);
  const GoldenResult golden = golden_spmv(a, x);
  ASSERT_EQ(golden.y.size(), static_cast<std::size_t>(a.rows));
  for (index_t row = 0; row < a.rows; ++row) {
    long double sum = 0;
    long double abs_sum = 0;
    for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
      const long double term = static_cast<long double>(a.values[k]) * x[a.col_idx[k]];
      sum += term;
      abs_sum += std::fabs(term);
    }
    const auto i = static_cast<std::size_t>(row);
    // Both sums are far more accurate than fp32; 1e-14 of the scale leaves
    // room for long double being plain double on some platforms.
    ASSERT_NEAR(golden.y[i], static_cast<double>(sum), 1e-14 * static_cast<double>(abs_sum)) << "row " << row;
    ASSERT_NEAR(golden.abs_sum[i], static_cast<double>(abs_sum), 1e-14 * static_cast<double>(abs_sum)) << "row " << row;
    ASSERT_EQ(golden.row_nnz[i], a.row_length(row)) << "row " << row;
  }
}

// The compensated sum keeps each addition's exact rounding error. Two ways
// of computing that error exist (the ordered one, larger operand first, and
// the branch-free two-sum); both give the exact error, so the golden result
// must equal, bit for bit, the ordered form's on rows whose terms span wide
// exponents and cancel.
TEST(Golden, EachAdditionsErrorIsTheOrderedFormsBitForBit) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  CsrMatrix a = test::random_csr(rng, {.rows = 4000, .cols = 3000, .empty_fraction = 0.05, .long_row = 0});
  std::uniform_int_distribution<int> exponent(-40, 40);
  for (float& value : a.values) value = std::ldexp(value, exponent(rng));
  std::vector<float> x = test::random_x(rng, a.cols);
  for (float& value : x) value = std::ldexp(value, exponent(rng));
  const GoldenResult golden = golden_spmv(a, x);
  for (index_t row = 0; row < a.rows; ++row) {
    double sum = 0;
    double lost = 0;
    for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
      const double term = static_cast<double>(a.values[k]) * static_cast<double>(x[a.col_idx[k]]);
      const double total = sum + term;
      lost += std::fabs(sum) >= std::fabs(term) ? (sum - total) + term : (term - total) + sum;
      sum = total;
    }
    const double expected = sum + lost;
    const double got = golden.y[static_cast<std::size_t>(row)];
    ASSERT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(expected))
        << "row " << row << ": " << got << " against " << expected;
  }
}

TEST(Golden, RejectsXOfTheWrongSize) {
  const std::vector<float> x{1, 2, 3};
  EXPECT_THROW(golden_spmv(textbook_fig14_1(), x), std::invalid_argument);
}

TEST(RandomVector, SameSeedSameValuesAndEachValueDependsOnlyOnItsIndex) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const std::vector<float> full = random_vector(10000, seed);
  EXPECT_EQ(random_vector(10000, seed), full);
  const std::vector<float> prefix = random_vector(37, seed);
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), full.begin()));
  EXPECT_NE(random_vector(10000, seed + 1), full);
}

TEST(RandomVector, ValuesStayInRangeAndSpreadOverIt) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const std::vector<float> x = random_vector(100000, seed);
  std::size_t negative = 0;
  std::size_t low_half = 0;  // |x| < 0.625, the middle of [0.25, 1]
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float magnitude = std::fabs(x[i]);
    ASSERT_GE(magnitude, 0.25F) << "index " << i << " value " << x[i];
    ASSERT_LE(magnitude, 1.0F) << "index " << i << " value " << x[i];
    negative += x[i] < 0 ? 1 : 0;
    low_half += magnitude < 0.625F ? 1 : 0;
  }
  // Binomial(100000, 0.5) stays within +-2000 of its mean with probability
  // 1 - 1e-36: a failure means a biased generator, not bad luck.
  EXPECT_NEAR(static_cast<double>(negative), 50000, 2000);
  EXPECT_NEAR(static_cast<double>(low_half), 50000, 2000);
}

TEST(RandomVector, EmptyVector) { EXPECT_TRUE(random_vector(0, 5).empty()); }

}  // namespace
}  // namespace spmv
