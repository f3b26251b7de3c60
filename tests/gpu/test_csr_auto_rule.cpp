// The rule of the "auto" reference kernel (reference/include/spmv/reference/
// csr_auto.hpp): host code only, so it is tested without a GPU.
#include <gtest/gtest.h>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/reference/csr_auto.hpp"

namespace spmv::test {
namespace {

using reference::choose_csr_kernel;
using reference::CsrAutoChoice;
using reference::RowLengthStats;
using Kernel = CsrAutoChoice::Kernel;

TEST(CsrAutoRule, SkewedRowsGoToTheMergePath) {
  // Power-law rows: mean about 11, one row of 136,849 entries.
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{2'000'000, 2'000'000, 22'300'000, 136'849, 1'999'000}).kernel,
            Kernel::kMerge);
  // An arrow matrix: short rows and one full row.
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{3000, 3000, 9000, 3000, 2999}).kernel, Kernel::kMerge);
}

TEST(CsrAutoRule, VeryShortRowsGoToRowBlocksAsLargeAsTheStageAllows) {
  // Rows of 2: the stage of 2048 entries holds 1024 rows, above the cap.
  const CsrAutoChoice pairs = choose_csr_kernel(RowLengthStats{12'000'000, 12'000'000, 24'000'000, 2, 11'000'000});
  EXPECT_EQ(pairs.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(pairs.rows_per_block, 511);
  // Mostly single entries, a few rows of 8: the longest row sets the count.
  const CsrAutoChoice mixed = choose_csr_kernel(RowLengthStats{1'000'000, 1'000'000, 1'500'000, 8, 900'000});
  EXPECT_EQ(mixed.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(mixed.rows_per_block, 256);
  // Empty rows with a few entries in between.
  const CsrAutoChoice sparse = choose_csr_kernel(RowLengthStats{1'000'000, 1'000'000, 1000, 1, 0});
  EXPECT_EQ(sparse.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(sparse.rows_per_block, 511);
}

TEST(CsrAutoRule, DenseBandsGetGroupsWithLoadsInFlight) {
  // A band of 25 around the diagonal: each row spans 24 columns. 8 lanes of
  // 4 loads cover a row in one step.
  const CsrAutoChoice band = choose_csr_kernel(RowLengthStats{1'000'000, 1'000'000, 24'999'844, 25, 24});
  EXPECT_EQ(band.kernel, Kernel::kVector);
  EXPECT_EQ(band.threads_per_row, 8);
  EXPECT_EQ(band.loads_per_lane, 4);
}

TEST(CsrAutoRule, ShortEvenRowsGetAThreadEach) {
  // 2D 5-point and 3D 7-point stencils.
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{4'194'304, 4'194'304, 20'963'328, 5, 4096}).kernel, Kernel::kScalar);
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{3'375'000, 3'375'000, 23'490'000, 7, 45'000}).kernel,
            Kernel::kScalar);
}

TEST(CsrAutoRule, LongerRowsShareThreadsByLengthAndLocality) {
  // A 27-point stencil on 100^3: rows span 2 * 10101 columns of 1M.
  const CsrAutoChoice stencil27 = choose_csr_kernel(RowLengthStats{1'000'000, 1'000'000, 26'463'592, 27, 20'202});
  EXPECT_EQ(stencil27.kernel, Kernel::kVector);
  EXPECT_EQ(stencil27.threads_per_row, 8);
  EXPECT_EQ(stencil27.loads_per_lane, 4);
  // Rows of 16 scattered over x: row blocks, 128 rows of 16 fill the stage.
  const CsrAutoChoice random = choose_csr_kernel(RowLengthStats{2'000'000, 2'000'000, 32'000'000, 16, 1'999'000});
  EXPECT_EQ(random.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(random.rows_per_block, 128);
  // Scattered rows longer than kAutoRowBlockMaxRow, and rows of 2000: the
  // largest group, several steps a row.
  for (const RowLengthStats& stats : {RowLengthStats{100'000, 1'000'000, 10'000'000, 100, 999'000},
                                      RowLengthStats{12'000, 1'000'000, 24'000'000, 2000, 999'000}}) {
    const CsrAutoChoice choice = choose_csr_kernel(stats);
    EXPECT_EQ(choice.kernel, Kernel::kVector) << stats.max_row;
    EXPECT_EQ(choice.threads_per_row, 8) << stats.max_row;
    EXPECT_EQ(choice.loads_per_lane, 4) << stats.max_row;
  }
  // Local rows of 13 to 16 entries: 4 lanes of 4 loads.
  const CsrAutoChoice sixteen = choose_csr_kernel(RowLengthStats{1'000'000, 1'000'000, 16'000'000, 16, 5000});
  EXPECT_EQ(sixteen.kernel, Kernel::kVector);
  EXPECT_EQ(sixteen.threads_per_row, 4);
  // Group sizes are powers of two from 2 to 8, growing with the mean.
  int previous = 0;
  for (std::int64_t mean = 13; mean <= 4096; mean *= 2) {
    const CsrAutoChoice choice = choose_csr_kernel(RowLengthStats{1000, 1'000'000, 1000 * mean, mean, 100'000});
    ASSERT_EQ(choice.kernel, Kernel::kVector) << "mean " << mean;
    EXPECT_GE(choice.threads_per_row, previous) << "mean " << mean;
    EXPECT_GE(choice.threads_per_row, 2);
    EXPECT_LE(choice.threads_per_row, 8);
    EXPECT_EQ(choice.threads_per_row & (choice.threads_per_row - 1), 0) << "not a power of two";
    EXPECT_EQ(choice.loads_per_lane, 4);
    previous = choice.threads_per_row;
  }
}

TEST(CsrAutoRule, EmptyMatricesNeedNoGroups) {
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{0, 0, 0, 0, 0}).kernel, Kernel::kScalar);
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{500, 30, 0, 0, 0}).kernel, Kernel::kScalar);
}

TEST(CsrAutoRule, DescribesItsChoice) {
  EXPECT_EQ((CsrAutoChoice{Kernel::kVector, 8}).describe(), "csr_vector (8 threads/row)");
  EXPECT_EQ((CsrAutoChoice{Kernel::kVector, 8, 1, 4}).describe(), "csr_vector (8 threads/row, 4 loads/lane)");
  EXPECT_EQ((CsrAutoChoice{Kernel::kMerge, 1}).describe(), "csr_merge");
  EXPECT_EQ((CsrAutoChoice{Kernel::kRowBlocks, 1, 75}).describe(), "csr_stream (75 rows/block)");
}

TEST(CsrAutoRule, NothingIsRememberedForAMatrixAutoHasNotRun) {
  const spmv_csr_view never_seen{10, 10, 0, nullptr, nullptr, nullptr};
  EXPECT_FALSE(reference::csr_auto_choice_for(never_seen).has_value());
}

}  // namespace
}  // namespace spmv::test
