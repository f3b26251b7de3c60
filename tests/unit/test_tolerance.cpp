#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "random_csr.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"

namespace spmv {
namespace {

// One way a kernel may sum a row, given the row's values and the x values
// they multiply. All of them accumulate in fp32, as kernels do.
using RowSum = std::function<float(std::span<const float> values, std::span<const float> xs)>;

float forward_sum(std::span<const float> values, std::span<const float> xs) {
  float sum = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    sum += values[k] * xs[k];
  }
  return sum;
}

float forward_fma_sum(std::span<const float> values, std::span<const float> xs) {
  float sum = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    sum = std::fmaf(values[k], xs[k], sum);
  }
  return sum;
}

float reversed_sum(std::span<const float> values, std::span<const float> xs) {
  float sum = 0;
  for (std::size_t k = values.size(); k-- > 0;) {
    sum += values[k] * xs[k];
  }
  return sum;
}

float pairwise_sum(std::span<const float> values, std::span<const float> xs) {
  if (values.empty()) {
    return 0;
  }
  if (values.size() == 1) {
    return values[0] * xs[0];
  }
  const std::size_t half = values.size() / 2;
  return pairwise_sum(values.first(half), xs.first(half)) + pairwise_sum(values.subspan(half), xs.subspan(half));
}

// CSR-vector style: 32 lanes each sum a strided share with fmaf, then a
// shuffle-down tree adds the lanes' partial sums.
float warp_sum(std::span<const float> values, std::span<const float> xs) {
  constexpr std::size_t kLanes = 32;
  std::vector<float> lane(kLanes, 0.0F);
  for (std::size_t k = 0; k < values.size(); ++k) {
    lane[k % kLanes] = std::fmaf(values[k], xs[k], lane[k % kLanes]);
  }
  for (std::size_t offset = kLanes / 2; offset > 0; offset /= 2) {
    for (std::size_t i = 0; i < offset; ++i) {
      lane[i] += lane[i + offset];
    }
  }
  return lane[0];
}

// Merge-path style: consecutive chunks of 7 entries summed on their own,
// their partial sums added in fp32 afterwards.
float chunked_sum(std::span<const float> values, std::span<const float> xs) {
  constexpr std::size_t kChunk = 7;
  float total = 0;
  for (std::size_t begin = 0; begin < values.size(); begin += kChunk) {
    const std::size_t size = std::min(kChunk, values.size() - begin);
    total += forward_sum(values.subspan(begin, size), xs.subspan(begin, size));
  }
  return total;
}

// The reference CPU path: fp64 accumulation, one rounding at the end.
float double_rounded_sum(std::span<const float> values, std::span<const float> xs) {
  double sum = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    sum += static_cast<double>(values[k]) * xs[k];
  }
  return static_cast<float>(sum);
}

// COO with atomics: entries arrive in any order.
RowSum shuffled_sum(std::uint64_t seed) {
  return [rng = std::mt19937_64(seed)](std::span<const float> values, std::span<const float> xs) mutable {
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    float sum = 0;
    for (const std::size_t k : order) {
      sum += values[k] * xs[k];
    }
    return sum;
  };
}

std::vector<float> gathered_x(const CsrMatrix& a, std::span<const float> x, index_t row) {
  std::vector<float> xs;
  for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
    xs.push_back(x[a.col_idx[k]]);
  }
  return xs;
}

std::span<const float> row_values(const CsrMatrix& a, index_t row) {
  return std::span<const float>(a.values).subspan(a.row_ptr[row], a.row_length(row));
}

float sum_row(const CsrMatrix& a, std::span<const float> x, index_t row, const RowSum& sum) {
  const std::vector<float> xs = gathered_x(a, x, row);
  return sum(row_values(a, row), xs);
}

std::vector<float> spmv_by(const CsrMatrix& a, std::span<const float> x, const RowSum& sum) {
  std::vector<float> y(static_cast<std::size_t>(a.rows));
  for (index_t row = 0; row < a.rows; ++row) {
    y[static_cast<std::size_t>(row)] = sum_row(a, x, row, sum);
  }
  return y;
}

// Row `row` summed forward with its entry at offset `skip` left out, or
// with the entry at offset `repeat` added a second time.
float row_with_wrong_term(const CsrMatrix& a, std::span<const float> x, index_t row, index_t skip, index_t repeat) {
  std::vector<float> values;
  std::vector<float> xs;
  for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
    const index_t offset = k - a.row_ptr[row];
    const int copies = offset == skip ? 0 : offset == repeat ? 2 : 1;
    for (int copy = 0; copy < copies; ++copy) {
      values.push_back(a.values[k]);
      xs.push_back(x[a.col_idx[k]]);
    }
  }
  return forward_sum(values, xs);
}

double term_in_column(const CsrMatrix& a, std::span<const float> x, index_t row, index_t column) {
  for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
    if (a.col_idx[k] == column) {
      return static_cast<double>(a.values[k]) * x[column];
    }
  }
  ADD_FAILURE() << "row " << row << " has no entry in column " << column;
  return std::numeric_limits<double>::quiet_NaN();
}

float poison() { return std::bit_cast<float>(kPoisonBits); }

// A random matrix, x and a correct fp32 result to break one way or another.
struct Scenario {
  explicit Scenario(std::uint64_t seed) : rng(seed) {
    a = test::random_csr(rng, {.rows = 500, .cols = 800, .empty_fraction = 0.1, .long_row = 0});
    x = test::random_x(rng, a.cols);
    golden = golden_spmv(a, x);
    y = spmv_by(a, x, forward_sum);
  }

  // A random row with a length in [min_length, max_length]. Rows of up to
  // 16 entries keep each term far above the row's bound, which grows as
  // n^2 relative to a typical term.
  index_t pick_row(index_t min_length, index_t max_length) {
    const std::vector<index_t> rows = test::rows_with_length(a, min_length, max_length);
    if (rows.empty()) {
      ADD_FAILURE() << "no row of length " << min_length << ".." << max_length;
      return 0;
    }
    return rows[std::uniform_int_distribution<std::size_t>(0, rows.size() - 1)(rng)];
  }
  index_t pick_offset(index_t row) { return std::uniform_int_distribution<index_t>(0, a.row_length(row) - 1)(rng); }

  // An entry (row, offset) of a row of 3..16 entries whose term t is far
  // from sign * golden, so that dropping it (sign -1) or adding it twice
  // (sign +1) cannot also pass for a doubled row, which would be a fair
  // call by the check but not the cause under test.
  std::pair<index_t, index_t> pick_unambiguous_term(double sign) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
      const index_t row = pick_row(3, 16);
      const index_t offset = pick_offset(row);
      const auto i = static_cast<std::size_t>(row);
      if (std::fabs(term(row, offset) - sign * golden.y[i]) > 1e-3 * golden.abs_sum[i]) {
        return {row, offset};
      }
    }
    ADD_FAILURE() << "no unambiguous entry found";
    return {0, 0};
  }

  [[nodiscard]] double term(index_t row, index_t offset) const {
    const index_t k = a.row_ptr[row] + offset;
    return static_cast<double>(a.values[k]) * x[a.col_idx[k]];
  }

  // check_result's verdict; within_tolerance, which computes the golden
  // result row by row and keeps none of it, must agree with its passed.
  ToleranceVerdict check() const {
    ToleranceVerdict verdict = check_result(a, x, golden, y);
    EXPECT_EQ(within_tolerance(a, x, y), verdict.passed) << verdict.describe();
    return verdict;
  }

  std::mt19937_64 rng;
  CsrMatrix a;
  std::vector<float> x;
  GoldenResult golden;
  std::vector<float> y;
};

TEST(GammaFp32, KnownValues) {
  EXPECT_EQ(gamma_fp32(0), 0.0);
  EXPECT_EQ(gamma_fp32(-3), 0.0);
  EXPECT_DOUBLE_EQ(gamma_fp32(1), 5.9604648328104515e-08);       // 2^-24 / (1 - 2^-24)
  EXPECT_DOUBLE_EQ(gamma_fp32(std::int64_t{1} << 22), 1.0 / 3);  // u n = 1/4
  EXPECT_EQ(gamma_fp32(std::int64_t{1} << 23), 1.0);             // u n = 1/2
  EXPECT_TRUE(std::isinf(gamma_fp32(std::int64_t{1} << 24)));    // bound is void
}

TEST(GammaFp32, GrowsWithTheLength) {
  for (std::int64_t n = 1; n < 10'000'000; n = n * 3 + 1) {
    EXPECT_LT(gamma_fp32(n), gamma_fp32(n + 1)) << "n = " << n;
  }
}

TEST(CheckResult, AcceptsAnySummationOrderOnRandomMatrices) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<std::string, RowSum>> orders{{"forward", forward_sum},
                                                           {"forward fmaf", forward_fma_sum},
                                                           {"reversed", reversed_sum},
                                                           {"pairwise", pairwise_sum},
                                                           {"warp", warp_sum},
                                                           {"chunked", chunked_sum},
                                                           {"fp64 rounded", double_rounded_sum},
                                                           {"shuffled", shuffled_sum(seed)}};
  for (int matrix = 0; matrix < 4; ++matrix) {
    const index_t long_row = std::uniform_int_distribution<index_t>(100'000, 150'000)(rng);
    const CsrMatrix a =
        test::random_csr(rng, {.rows = 2000, .cols = 3000, .empty_fraction = 0.1, .long_row = long_row});
    const std::vector<float> x = test::random_x(rng, a.cols);
    const GoldenResult golden = golden_spmv(a, x);
    for (const auto& [name, sum] : orders) {
      const ToleranceVerdict verdict = check_result(a, x, golden, spmv_by(a, x, sum));
      EXPECT_TRUE(verdict.passed) << "matrix " << matrix << ", " << name << ": " << verdict.describe();
      EXPECT_LE(verdict.max_ratio, 1.0) << "matrix " << matrix << ", " << name;
      EXPECT_EQ(verdict.cause, LikelyCause::kNone);
    }
  }
}

TEST(CheckResult, AcceptsACancellingRowThatARelativeToleranceWouldFail) {
  // 1e4 * 0.5 - 1e4 * 0.5 + 1e-3 * 0.75 = 7.5e-4: summed the other way
  // round, the small term is rounded against 5000 first.
  CsrMatrix a;
  a.rows = 1;
  a.cols = 3;
  a.row_ptr = {0, 3};
  a.col_idx = {0, 1, 2};
  a.values = {1e4F, -1e4F, 1e-3F};
  const std::vector<float> x{0.5F, 0.5F, 0.75F};
  const GoldenResult golden = golden_spmv(a, x);
  const std::vector<float> y = spmv_by(a, x, reversed_sum);
  const double relative_error = std::fabs(y[0] - golden.y[0]) / std::fabs(golden.y[0]);
  ASSERT_GT(relative_error, 0.01) << "the reordered sum should be far off in relative terms";
  const ToleranceVerdict verdict = check_result(a, x, golden, y);
  EXPECT_TRUE(verdict.passed) << verdict.describe();
}

TEST(CheckResult, MissingTermIsFoundInItsRow) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const auto [row, offset] = s.pick_unambiguous_term(-1.0);
  s.y[static_cast<std::size_t>(row)] = row_with_wrong_term(s.a, s.x, row, offset, -1);
  const ToleranceVerdict verdict = s.check();
  SCOPED_TRACE(verdict.describe());
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.bad_rows, 1);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, row);
  EXPECT_EQ(verdict.cause, LikelyCause::kMissingTerm);
  EXPECT_EQ(verdict.cause_row, row);
  // The named column's term must be the one left out (or indistinguishable).
  EXPECT_NEAR(term_in_column(s.a, s.x, row, verdict.cause_column), s.term(row, offset), verdict.first->allowed);
  EXPECT_NE(verdict.describe().find("row " + std::to_string(row) + " lacks exactly one term"), std::string::npos);
}

TEST(CheckResult, DuplicatedTermIsFoundInItsRow) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const auto [row, offset] = s.pick_unambiguous_term(+1.0);
  s.y[static_cast<std::size_t>(row)] = row_with_wrong_term(s.a, s.x, row, -1, offset);
  const ToleranceVerdict verdict = s.check();
  SCOPED_TRACE(verdict.describe());
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.bad_rows, 1);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, row);
  EXPECT_EQ(verdict.cause, LikelyCause::kExtraTerm);
  EXPECT_EQ(verdict.cause_row, row);
  EXPECT_NEAR(term_in_column(s.a, s.x, row, verdict.cause_column), s.term(row, offset), verdict.first->allowed);
}

TEST(CheckResult, UnwrittenRowIsReportedAsSuch) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const index_t row = std::uniform_int_distribution<index_t>(0, s.a.rows - 1)(s.rng);
  s.y[static_cast<std::size_t>(row)] = poison();
  const ToleranceVerdict verdict = s.check();
  const std::string text = verdict.describe();
  SCOPED_TRACE(text);
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.bad_rows, 1);
  EXPECT_EQ(verdict.unwritten_rows, 1);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, row);
  EXPECT_TRUE(std::isinf(verdict.max_ratio));
  EXPECT_EQ(verdict.cause, LikelyCause::kUnwritten);
  EXPECT_EQ(verdict.cause_row, row);
  EXPECT_NE(text.find("1 of 500 rows wrong (1 never written)"), std::string::npos);
  EXPECT_NE(text.find("row " + std::to_string(row) + " was never written"), std::string::npos);
  EXPECT_NE(text.find("Every row, empty rows too, must be written."), std::string::npos);
}

TEST(CheckResult, UnwrittenEmptyRowFails) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const index_t row = s.pick_row(0, 0);
  s.y[static_cast<std::size_t>(row)] = poison();
  const ToleranceVerdict verdict = s.check();
  EXPECT_FALSE(verdict.passed);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, row);
  EXPECT_EQ(verdict.cause, LikelyCause::kUnwritten);
}

TEST(CheckResult, NothingWrittenCountsEveryRow) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  std::fill(s.y.begin(), s.y.end(), poison());
  const ToleranceVerdict verdict = s.check();
  EXPECT_EQ(verdict.bad_rows, s.a.rows);
  EXPECT_EQ(verdict.unwritten_rows, s.a.rows);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, 0);
  EXPECT_EQ(verdict.cause, LikelyCause::kUnwritten);
}

TEST(CheckResult, DoubledRowIsReportedAsSuch) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const index_t row = s.pick_row(3, 64);
  s.y[static_cast<std::size_t>(row)] *= 2;
  const ToleranceVerdict verdict = s.check();
  SCOPED_TRACE(verdict.describe());
  EXPECT_FALSE(verdict.passed);
  EXPECT_EQ(verdict.bad_rows, 1);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, row);
  EXPECT_EQ(verdict.cause, LikelyCause::kDoubled);
  EXPECT_EQ(verdict.cause_row, row);
}

TEST(CheckResult, EveryRowDoubledIsReportedAsDoubled) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  for (float& value : s.y) {
    value *= 2;
  }
  const ToleranceVerdict verdict = s.check();
  SCOPED_TRACE(verdict.describe());
  // A long row whose sum cancels to below its bound stays within it when
  // doubled (about 1 row in 1000 of those over 200 entries): the worst-case
  // bound cannot see that, so allow a few such rows.
  const auto nonempty_rows = static_cast<std::int64_t>(test::rows_with_length(s.a, 1, s.a.cols).size());
  EXPECT_LE(verdict.bad_rows, nonempty_rows);
  EXPECT_GE(verdict.bad_rows, nonempty_rows - 5);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_GT(s.a.row_length(verdict.first->row), 0);
  EXPECT_EQ(verdict.cause, LikelyCause::kDoubled);
}

// within_tolerance on results that any summation order gives, then with one
// row moved just past its bound and one just inside it, on larger random
// matrices than the scenarios': the same answer as check_result each time.
TEST(WithinTolerance, AgreesWithCheckResultAtTheBound) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  for (int matrix = 0; matrix < 3; ++matrix) {
    const CsrMatrix a = test::random_csr(rng, {.rows = 3000, .cols = 2000, .empty_fraction = 0.1, .long_row = 5000});
    const std::vector<float> x = test::random_x(rng, a.cols);
    const GoldenResult golden = golden_spmv(a, x);
    std::vector<float> y = spmv_by(a, x, pairwise_sum);
    ASSERT_TRUE(check_result(a, x, golden, y).passed);
    EXPECT_TRUE(within_tolerance(a, x, y)) << "matrix " << matrix;
    const std::vector<index_t> rows = test::rows_with_length(a, 1, a.cols);
    ASSERT_FALSE(rows.empty());
    const auto row =
        static_cast<std::size_t>(rows[std::uniform_int_distribution<std::size_t>(0, rows.size() - 1)(rng)]);
    const ToleranceOptions options;
    const double allowed = options.c * gamma_fp32(golden.row_nnz[row]) * golden.abs_sum[row] + options.atol;
    for (const double factor : {0.5, 2.0}) {
      std::vector<float> moved = y;
      moved[row] = static_cast<float>(golden.y[row] + factor * allowed);
      const bool passed = check_result(a, x, golden, moved).passed;
      EXPECT_EQ(within_tolerance(a, x, moved), passed) << "matrix " << matrix << ", row " << row << " x" << factor;
    }
    std::vector<float> far = y;
    far[row] = static_cast<float>(golden.y[row] + 4 * allowed + 1);
    EXPECT_FALSE(within_tolerance(a, x, far)) << "matrix " << matrix << ", row " << row;
  }
}

TEST(WithinTolerance, RejectsMismatchedSizes) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const CsrMatrix a = test::random_csr(rng, {.rows = 40, .cols = 30, .empty_fraction = 0, .long_row = 0});
  const std::vector<float> x = test::random_x(rng, a.cols);
  const std::vector<float> y(static_cast<std::size_t>(a.rows), 0.0F);
  EXPECT_THROW(static_cast<void>(within_tolerance(a, std::span<const float>(x).first(29), y)), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(within_tolerance(a, x, std::span<const float>(y).first(39))), std::invalid_argument);
}

TEST(CheckResult, ComputedNanAndInfAreNonFinite) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()}) {
    Scenario s(seed);
    const index_t row = s.pick_row(1, s.a.cols);
    s.y[static_cast<std::size_t>(row)] = bad;
    const ToleranceVerdict verdict = s.check();
    SCOPED_TRACE(verdict.describe());
    EXPECT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.bad_rows, 1);
    EXPECT_EQ(verdict.unwritten_rows, 0);
    ASSERT_TRUE(verdict.first.has_value());
    EXPECT_EQ(verdict.first->row, row);
    EXPECT_EQ(verdict.cause, LikelyCause::kNonFinite);
  }
}

// A matrix read with allow_nonfinite: a row whose exact result is NaN or
// an infinity passes when y holds the same, and fails otherwise.
TEST(CheckResult, RowsWhoseExactResultIsNonFiniteMustMatchIt) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const index_t nan_row = s.pick_row(1, 16);
  index_t inf_row = s.pick_row(1, 16);
  while (inf_row == nan_row) inf_row = s.pick_row(1, 16);
  const auto entry = [&](index_t row) { return static_cast<std::size_t>(s.a.row_ptr[row] + s.pick_offset(row)); };
  s.a.values[entry(nan_row)] = std::numeric_limits<float>::quiet_NaN();
  s.a.values[entry(inf_row)] = std::numeric_limits<float>::infinity();
  s.golden = golden_spmv(s.a, s.x);
  s.y = spmv_by(s.a, s.x, forward_sum);
  ASSERT_TRUE(std::isnan(s.golden.y[static_cast<std::size_t>(nan_row)]));
  ASSERT_TRUE(std::isinf(s.golden.y[static_cast<std::size_t>(inf_row)]));

  const ToleranceVerdict correct = s.check();
  EXPECT_TRUE(correct.passed) << correct.describe();
  EXPECT_TRUE(std::isfinite(correct.max_ratio)) << "matching non-finite rows have no error";

  const auto fails_with = [&](index_t row, float value) {
    Scenario broken = s;
    broken.y[static_cast<std::size_t>(row)] = value;
    const ToleranceVerdict verdict = broken.check();
    EXPECT_FALSE(verdict.passed) << "row " << row << " = " << value;
    EXPECT_EQ(verdict.bad_rows, 1);
    return verdict;
  };
  const float inf_value = s.y[static_cast<std::size_t>(inf_row)];
  fails_with(inf_row, -inf_value);  // the other infinity
  fails_with(inf_row, 1.0F);
  fails_with(nan_row, 1.0F);
  fails_with(nan_row, std::numeric_limits<float>::infinity());
  EXPECT_EQ(fails_with(nan_row, poison()).unwritten_rows, 1) << "the poison is never a computed NaN";
}

TEST(CheckResult, EmptyRowMustBeExactlyZero) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const index_t row = s.pick_row(0, 0);
  s.y[static_cast<std::size_t>(row)] = -0.0F;
  EXPECT_TRUE(s.check().passed) << "-0 is zero";
  s.y[static_cast<std::size_t>(row)] = 1e-37F;
  const ToleranceVerdict verdict = s.check();
  EXPECT_FALSE(verdict.passed);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, row);
  EXPECT_EQ(verdict.first->allowed, 0.0);
  EXPECT_NE(verdict.describe().find("must be exactly 0"), std::string::npos) << verdict.describe();
}

TEST(CheckResult, CauseFollowsTheMajorityOfBadRows) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  // Two unwritten rows at the top, then five short rows each missing a term.
  std::vector<index_t> short_rows;
  for (const index_t row : test::rows_with_length(s.a, 3, 16)) {
    if (row > 1 && short_rows.size() < 5) {
      short_rows.push_back(row);
    }
  }
  ASSERT_EQ(short_rows.size(), 5U);
  s.y[0] = poison();
  s.y[1] = poison();
  for (const index_t row : short_rows) {
    s.y[static_cast<std::size_t>(row)] = row_with_wrong_term(s.a, s.x, row, 0, -1);
  }
  const ToleranceVerdict verdict = s.check();
  SCOPED_TRACE(verdict.describe());
  EXPECT_EQ(verdict.bad_rows, 7);
  EXPECT_EQ(verdict.unwritten_rows, 2);
  ASSERT_TRUE(verdict.first.has_value());
  EXPECT_EQ(verdict.first->row, 0);
  EXPECT_EQ(verdict.cause, LikelyCause::kMissingTerm);
  EXPECT_EQ(verdict.cause_row, short_rows[0]);
}

TEST(CheckResult, WorstRowHasTheLargestRatio) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const std::vector<index_t> rows = test::rows_with_length(s.a, 3, 16);
  ASSERT_GE(rows.size(), 2U);
  const auto early = static_cast<std::size_t>(rows[0]);
  const auto late = static_cast<std::size_t>(rows[1]);
  s.y[early] = static_cast<float>(s.golden.y[early] + 0.01 * s.golden.abs_sum[early]);
  s.y[late] = static_cast<float>(s.golden.y[late] + 0.5 * s.golden.abs_sum[late]);
  const ToleranceVerdict verdict = s.check();
  const std::string text = verdict.describe();
  SCOPED_TRACE(text);
  ASSERT_TRUE(verdict.first && verdict.worst);
  EXPECT_EQ(verdict.first->row, rows[0]);
  EXPECT_EQ(verdict.worst->row, rows[1]);
  EXPECT_DOUBLE_EQ(verdict.max_ratio, verdict.worst->ratio());
  EXPECT_NE(text.find("First wrong row " + std::to_string(rows[0])), std::string::npos);
  EXPECT_NE(text.find("Worst row " + std::to_string(rows[1])), std::string::npos);
}

TEST(CheckResult, CorrectResultDescribesItselfAsPassing) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  const ToleranceVerdict verdict = s.check();
  EXPECT_TRUE(verdict.passed);
  EXPECT_EQ(verdict.bad_rows, 0);
  EXPECT_FALSE(verdict.first.has_value());
  EXPECT_NE(verdict.describe().find("All 500 rows within tolerance"), std::string::npos) << verdict.describe();
}

TEST(CheckResult, RejectsMismatchedSizes) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  Scenario s(seed);
  s.y.pop_back();
  EXPECT_THROW(s.check(), std::invalid_argument);
}

TEST(RowError, RatioOfNanAndOfExactZeroBound) {
  EXPECT_TRUE(std::isinf((RowError{3, 1.0, std::numeric_limits<double>::quiet_NaN(), 1e-7}).ratio()));
  EXPECT_EQ((RowError{3, 0.0, 0.0, 0.0}).ratio(), 0.0);
  EXPECT_TRUE(std::isinf((RowError{3, 0.0, 1e-40, 0.0}).ratio()));
  EXPECT_DOUBLE_EQ((RowError{3, 1.0, 1.5, 0.25}).ratio(), 2.0);
}

}  // namespace
}  // namespace spmv
