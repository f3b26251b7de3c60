// The matrix statistics (spmv/core/matrix_stats.hpp, which spmv-cases and
// spmv-bench show) on the course's worked examples (their numbers
// worked out by hand from the slides) and on random matrices checked against
// a direct count and against the real HYB conversion.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "sparse_test_support.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/matrix_stats.hpp"
#include "text_report.hpp"

namespace spmv::ta {
namespace {

using test::TeachingKit;
using test::TextbookFigure14_1;

TEST(MatrixStats, TeachingKitExample) {
  const CsrMatrix a = TeachingKit::csr();
  const MatrixStats s = compute_stats(a);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.cols, 4);
  EXPECT_EQ(s.nnz, 7);
  EXPECT_EQ(s.min_row_length, 0);
  EXPECT_DOUBLE_EQ(s.mean_row_length, 1.75);
  EXPECT_EQ(s.max_row_length, 3);
  EXPECT_EQ(s.empty_rows, 1);
  ASSERT_TRUE(s.ell_padding_ratio.has_value());
  EXPECT_DOUBLE_EQ(*s.ell_padding_ratio, 12.0 / 7.0);
  EXPECT_EQ(s.ell_bytes, ell_bytes(4, 3));
  // Lengths 2, 0, 3, 2: bucket 0 (empty) 1, bucket 1 (length 1) 0, bucket 2 (2-3) 3.
  EXPECT_EQ(s.histogram.rows_in_bucket, (std::vector<std::int64_t>{1, 0, 3}));
  EXPECT_EQ(s.hyb_width, hyb_default_width(a));
  EXPECT_EQ(s.hyb_coo_entries, to_hyb(a).coo.nnz());
}

TEST(MatrixStats, TextbookFigure14_1) {
  const MatrixStats s = compute_stats(TextbookFigure14_1::csr());
  EXPECT_EQ(s.nnz, 8);
  EXPECT_EQ(s.min_row_length, 1);
  EXPECT_DOUBLE_EQ(s.mean_row_length, 2.0);
  EXPECT_EQ(s.max_row_length, 3);
  EXPECT_EQ(s.empty_rows, 0);
  EXPECT_DOUBLE_EQ(*s.ell_padding_ratio, 12.0 / 8.0);
  // Lengths 2, 3, 2, 1.
  EXPECT_EQ(s.histogram.rows_in_bucket, (std::vector<std::int64_t>{0, 1, 3}));
}

TEST(MatrixStats, MatrixWithoutEntriesHasNoPaddingRatio) {
  const MatrixStats s = compute_stats(gen::empty(5, 3));
  EXPECT_EQ(s.rows, 5);
  EXPECT_EQ(s.cols, 3);
  EXPECT_EQ(s.nnz, 0);
  EXPECT_EQ(s.empty_rows, 5);
  EXPECT_EQ(s.max_row_length, 0);
  EXPECT_DOUBLE_EQ(s.mean_row_length, 0.0);
  EXPECT_FALSE(s.ell_padding_ratio.has_value());
  EXPECT_DOUBLE_EQ(s.hyb_coo_share(), 0.0);
  EXPECT_EQ(s.histogram.rows_in_bucket, (std::vector<std::int64_t>{5}));
}

TEST(MatrixStats, ZeroRowMatrix) {
  const MatrixStats s = compute_stats(CsrMatrix{});
  EXPECT_EQ(s.rows, 0);
  EXPECT_EQ(s.min_row_length, 0);
  EXPECT_TRUE(s.histogram.rows_in_bucket.empty());
}

// A random CSR with lengths from 0 to a few hundred: every statistic against
// a direct count of the row lengths, the COO share against to_hyb itself.
TEST(MatrixStats, RandomMatricesAgreeWithDirectCounts) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 5; ++round) {
    const auto rows = std::uniform_int_distribution<index_t>(1, 3000)(rng);
    const index_t cols = 400;
    CsrMatrix a;
    a.rows = rows;
    a.cols = cols;
    std::vector<index_t> lengths;
    for (index_t r = 0; r < rows; ++r) {
      const bool empty = std::bernoulli_distribution(0.1)(rng);
      const index_t length = empty ? 0 : std::uniform_int_distribution<index_t>(1, 1 << (r % 9))(rng);
      lengths.push_back(length);
      for (index_t c = 0; c < length; ++c) {
        a.col_idx.push_back(c);
        a.values.push_back(std::uniform_real_distribution<float>(0.25f, 1.0f)(rng));
      }
      a.row_ptr.push_back(a.nnz());
    }
    const MatrixStats s = compute_stats(a);
    EXPECT_EQ(s.nnz, a.nnz());
    EXPECT_EQ(s.min_row_length, *std::min_element(lengths.begin(), lengths.end()));
    EXPECT_EQ(s.max_row_length, *std::max_element(lengths.begin(), lengths.end()));
    EXPECT_DOUBLE_EQ(s.mean_row_length, static_cast<double>(a.nnz()) / rows);
    EXPECT_EQ(s.empty_rows, std::count(lengths.begin(), lengths.end(), 0));
    EXPECT_DOUBLE_EQ(*s.ell_padding_ratio, static_cast<double>(rows) * s.max_row_length / static_cast<double>(a.nnz()));
    std::vector<std::int64_t> buckets(s.histogram.rows_in_bucket.size(), 0);
    for (const index_t length : lengths) {
      std::size_t b = 0;
      while (!(RowLengthHistogram::bucket_low(b) <= length && length <= RowLengthHistogram::bucket_high(b))) ++b;
      ASSERT_LT(b, buckets.size()) << "length " << length;
      ++buckets[b];
    }
    EXPECT_EQ(s.histogram.rows_in_bucket, buckets);
    EXPECT_EQ(s.hyb_coo_entries, to_hyb(a).coo.nnz());
  }
}

TEST(RowLengthHistogram, BucketsAreLog2Ranges) {
  EXPECT_EQ(RowLengthHistogram::bucket_of(0), 0u);
  EXPECT_EQ(RowLengthHistogram::bucket_of(1), 1u);
  EXPECT_EQ(RowLengthHistogram::bucket_of(2), 2u);
  EXPECT_EQ(RowLengthHistogram::bucket_of(3), 2u);
  EXPECT_EQ(RowLengthHistogram::bucket_of(4), 3u);
  EXPECT_EQ(RowLengthHistogram::bucket_of(INT32_MAX), 31u);
  EXPECT_EQ(RowLengthHistogram::bucket_label(0), "0");
  EXPECT_EQ(RowLengthHistogram::bucket_label(1), "1");
  EXPECT_EQ(RowLengthHistogram::bucket_label(2), "2-3");
  EXPECT_EQ(RowLengthHistogram::bucket_label(11), "1024-2047");
  EXPECT_EQ(RowLengthHistogram::bucket_high(31), INT32_MAX);
  // Consecutive buckets tile the lengths without gap or overlap.
  for (std::size_t b = 1; b < 31; ++b) {
    EXPECT_EQ(RowLengthHistogram::bucket_high(b) + 1, RowLengthHistogram::bucket_low(b + 1)) << "bucket " << b;
    EXPECT_EQ(RowLengthHistogram::bucket_of(RowLengthHistogram::bucket_low(b)), b);
    EXPECT_EQ(RowLengthHistogram::bucket_of(RowLengthHistogram::bucket_high(b)), b);
  }
}

TEST(HumanBytes, BinaryUnits) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1023), "1023 B");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(std::uint64_t{17} << 30), "17.0 GiB");
}

}  // namespace
}  // namespace spmv::ta
