// The rule of the "auto" reference kernel (reference/include/spmv/reference/
// csr_auto.hpp): host code only, so it is tested without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/reference/csr_auto.hpp"

namespace spmv::test {
namespace {

using reference::choose_csr_kernel;
using reference::CsrAutoChoice;
using reference::CsrAutoRuleSettings;
using reference::RowLengthStats;
using Kernel = CsrAutoChoice::Kernel;

TEST(CsrAutoRule, SkewedRowsGoToTheMergePath) {
  // Power-law rows: mean about 11, one row of 136,849 entries.
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{2'000'000, 2'000'000, 22'300'000, 136'849, 1'999'000}).kernel,
            Kernel::kMerge);
  // A large arrow matrix: short rows and one full row.
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{3'000'000, 3'000'000, 9'000'000, 3'000'000, 2'999'999}).kernel,
            Kernel::kMerge);
}

// Small matrices (a merge path of at most kAutoSmallPath items), with the
// row statistics of the real suite's matrices that set each threshold.
TEST(CsrAutoRule, SmallMatricesWithALongRowGetRowBlocksThatSumItTogether) {
  // adder_dcop_05: 1813 rows, 11,097 entries (mean 6.1, rounded up to 7), a
  // row of 1310: (2048 - 1310) / 14 = 52 rows a block, 35 blocks.
  const CsrAutoChoice adder = choose_csr_kernel(RowLengthStats{1813, 1813, 11'097, 1310, 1800});
  EXPECT_EQ(adder.kernel, Kernel::kRowBlocks);
  EXPECT_TRUE(adder.block_long_rows);
  EXPECT_EQ(adder.rows_per_block, 52);
  EXPECT_EQ(adder.describe(), "csr_stream (52 rows/block, long rows by the block)");
  // EVA: mostly empty rows, one of 552: as many rows as a block takes.
  const CsrAutoChoice eva = choose_csr_kernel(RowLengthStats{8497, 8497, 6726, 552, 8400});
  EXPECT_TRUE(eva.block_long_rows);
  EXPECT_EQ(eva.rows_per_block, 511);
}

// Such row blocks numbering more than tuning::kAutoSmallLongRowBlocksMax
// (132): csr_merge's tiles in one launch (wiki-Vote, 189 blocks, on the
// H200: the stream 14.43 us, the merge 6.72).
TEST(CsrAutoRule, SmallMatricesWithALongRowAndMoreRowBlocksThanSmsGetTheMergePathInOneLaunch) {
  // wiki-Vote: 8298 rows, 103,689 entries (mean 12.5, rounded up to 13),
  // a row of 893: 44 rows a block, 189 blocks.
  const CsrAutoChoice wiki = choose_csr_kernel(RowLengthStats{8298, 8298, 103'689, 893, 8297});
  EXPECT_EQ(wiki.kernel, Kernel::kMergeSingle);
  EXPECT_EQ(wiki.tile_threads, 256);
  // A mean row of 7 beside one of 1310 (52 rows a block): 132 blocks
  // take 132 x 52 rows; one more row makes 133.
  const auto rows_of = [](std::int64_t rows) { return RowLengthStats{rows, rows, rows * 7, 1310, rows - 1}; };
  EXPECT_EQ(choose_csr_kernel(rows_of(132 * 52)).rows_per_block, 52);
  EXPECT_EQ(choose_csr_kernel(rows_of(132 * 52)).kernel, Kernel::kRowBlocks);
  EXPECT_EQ(choose_csr_kernel(rows_of(132 * 52 + 1)).kernel, Kernel::kMergeSingle);
}

TEST(CsrAutoRule, RowBlocksWhoseRowsOverflowTheStageBecomeTheMergePathInOneLaunch) {
  // rajat01's 43-row blocks (6833 rows, 43,250 entries, a row of 1442: 159
  // blocks, so the rule itself now takes the merge): the fullest holds 3577
  // entries (long rows together), over the stage of 2048; adder_dcop_05's
  // 52-row blocks hold at most 1646.
  CsrAutoChoice rajat01{Kernel::kRowBlocks, 1, 43};
  rajat01.block_long_rows = true;
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{6833, 6833, 43'250, 1442, 6832}).kernel, Kernel::kMergeSingle);
  EXPECT_EQ(reference::settle_row_blocks(rajat01, 3577).kernel, Kernel::kMergeSingle);
  EXPECT_EQ(reference::settle_row_blocks(rajat01, 3577).tile_threads, 256);
  EXPECT_EQ(reference::settle_row_blocks(rajat01, 2048), rajat01);
  const CsrAutoChoice adder = choose_csr_kernel(RowLengthStats{1813, 1813, 11'097, 1310, 1800});
  EXPECT_EQ(adder.rows_per_block, 52);
  EXPECT_EQ(reference::settle_row_blocks(adder, 1646), adder);
  // Other choices are left as they are.
  const CsrAutoChoice plain{Kernel::kRowBlocks, 1, 128};
  EXPECT_EQ(reference::settle_row_blocks(plain, 1'000'000), plain);
}

TEST(CsrAutoRule, SmallMatricesWithALongerRowGetTheMergePathInOneLaunch) {
  // A small arrow matrix: short rows and one full row of 3000.
  const CsrAutoChoice arrow = choose_csr_kernel(RowLengthStats{3000, 3000, 9000, 3000, 2999});
  EXPECT_EQ(arrow.kernel, Kernel::kMergeSingle);
  EXPECT_EQ(arrow.tile_threads, 256);
  EXPECT_EQ(arrow.describe(), "csr_merge (one launch, 256 threads/tile)");
}

TEST(CsrAutoRule, SmallMatricesWithRowsOfUpToAQuarterStageGetRowBlocks) {
  // watt_2 (skewed: mean 6.2, longest 128): 16 rows of up to 128 a block.
  const CsrAutoChoice watt = choose_csr_kernel(RowLengthStats{1856, 1856, 11'550, 128, 1800});
  EXPECT_EQ(watt.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(watt.rows_per_block, 16);
  // mbeacxc (skewed: mean 100.6, longest 484).
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{496, 496, 49'920, 484, 495}).kernel, Kernel::kRowBlocks);
  // polblogs (skewed: mean 22.4, longest 351): 298 blocks of 5 rows.
  const CsrAutoChoice polblogs = choose_csr_kernel(RowLengthStats{1490, 1490, 33'430, 351, 1489});
  EXPECT_EQ(polblogs.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(polblogs.rows_per_block, 5);
}

// Skewed rows whose row blocks would number more than
// tuning::kAutoSmallRowBlocksMax (1056): csr_merge's tiles in one launch
// (astro-ph on the H200: row blocks 13.15 us, csr_merge 8.16; in a later
// run csr_merge 8.19, its tiles in one launch 7.26).
TEST(CsrAutoRule, SmallSkewedMatricesWithMoreRowBlocksThanAWaveGetTheMergePathInOneLaunch) {
  // astro-ph: mean 14.5, longest 360: blocks of 5 rows, 3342 of them.
  const CsrAutoChoice astro = choose_csr_kernel(RowLengthStats{16'706, 16'706, 242'502, 360, 16'700});
  EXPECT_EQ(astro.kernel, Kernel::kMergeSingle);
  EXPECT_EQ(astro.tile_threads, 256);
  // Rows of the same lengths: 5 x 1056 rows make 1056 blocks, one more row 1057.
  const auto skewed = [](std::int64_t rows) { return RowLengthStats{rows, rows, rows * 14, 360, rows - 1}; };
  EXPECT_EQ(choose_csr_kernel(skewed(5 * 1056)).kernel, Kernel::kRowBlocks);
  EXPECT_EQ(choose_csr_kernel(skewed(5 * 1056 + 1)).kernel, Kernel::kMergeSingle);
}

// A row longer than tuning::kAutoSmallMergeLaunchRow (2^14): csr_merge's two
// launches (mult_dcop_01, BOYD1 on the H200); up to it the one-launch merge
// (BOYD2, a row of 10,992).
TEST(CsrAutoRule, SmallMatricesWithAVeryLongRowGetTheMergePathInTwoLaunches) {
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{25'187, 25'187, 193'276, 22'767, 25'186}).kernel, Kernel::kMerge);
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{93'279, 93'261, 652'246, 93'261, 93'260}).kernel, Kernel::kMerge);
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{279'794, 93'263, 517'047, 10'992, 93'262}).kernel, Kernel::kMergeSingle);
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{20'000, 20'000, 100'000, 16'384, 19'999}).kernel, Kernel::kMergeSingle);
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{20'000, 20'000, 100'000, 16'385, 19'999}).kernel, Kernel::kMerge);
}

// A mean of 16 or more, or (not skewed) a longest row of 24 or more:
// csr_vector's own kernel, its group from the mean, one load a lane (on the
// H200, faster than 8 lanes of 4 loads on bcsstk13 and crystk01 and than
// row blocks by the longest row on zenios, ibm13 and finan512).
TEST(CsrAutoRule, SmallMatricesWithLongerOrShortRowsGetAGroupOrAThreadPerRow) {
  // bcsstk16: mean 59.5, longest 81: csr_vector's 32 lanes.
  const CsrAutoChoice fem = choose_csr_kernel(RowLengthStats{4884, 4884, 290'378, 81, 4800});
  EXPECT_EQ(fem.kernel, Kernel::kVector);
  EXPECT_EQ(fem.threads_per_row, 32);
  EXPECT_EQ(fem.loads_per_lane, 1);
  EXPECT_EQ(fem.describe(), "csr_vector (32 threads/row)");
  // zenios (not skewed: mean 9.5, longest 47): 16 lanes; ibm13 (mean 3.6,
  // longest 24): 4; finan512 (mean 7.0, longest 54): 8.
  for (const auto& [stats, lanes] : {std::pair{RowLengthStats{2873, 2873, 27'191, 47, 2800}, 16},
                                     std::pair{RowLengthStats{99'666, 99'666, 357'075, 24, 99'000}, 4},
                                     std::pair{RowLengthStats{74'752, 74'752, 522'240, 54, 74'000}, 8}}) {
    const CsrAutoChoice choice = choose_csr_kernel(stats);
    EXPECT_EQ(choice.kernel, Kernel::kVector) << stats.rows;
    EXPECT_EQ(choice.threads_per_row, lanes) << stats.rows;
    EXPECT_EQ(choice.loads_per_lane, 1) << stats.rows;
  }
  // luxembourg_osm (rows of 1-6) and delaunay_n16 (up to 17): a thread per row.
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{114'599, 114'599, 239'332, 6, 114'000}).kernel, Kernel::kRows);
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{65'536, 65'536, 393'150, 17, 65'000}).kernel, Kernel::kRows);
  EXPECT_EQ((CsrAutoChoice{Kernel::kRows, 1}).describe(), "csr_rows");
}

// csr_rows with 16 loads in flight (tuning::kAutoSmallRowsWide): off in
// auto, so the rule keeps csr_rows's 8 loads whatever the longest row.
TEST(CsrAutoRule, WideRowsAreOffByDefault) {
  EXPECT_FALSE(CsrAutoRuleSettings{}.small_rows_wide);
  const CsrAutoRuleSettings off = [] {
    CsrAutoRuleSettings settings;
    settings.small_rows_wide = false;
    return settings;
  }();
  for (const std::int64_t longest : {1, 5, 8, 9, 14, 16, 17, 23}) {
    // bcspwr10's 5300 rows, with rows of up to `longest`.
    const RowLengthStats stats{5300, 5300, 5300 * std::min<std::int64_t>(longest, 4), longest, 5000};
    const CsrAutoChoice choice = choose_csr_kernel(stats);
    EXPECT_EQ(choice.kernel, Kernel::kRows) << longest;
    EXPECT_FALSE(choice.wide_rows) << longest;
    EXPECT_EQ(choice.describe(), "csr_rows") << longest;
    EXPECT_EQ(choice, choose_csr_kernel(stats, off)) << longest;
  }
}

// Switched on: rows of 9-16 entries (one round of 16 loads, two of 8) get
// 16 loads; shorter and longer ones, and every other choice, are unchanged.
TEST(CsrAutoRule, WideRowsWhenOnTakeLongestRowsOfNineToSixteen) {
  CsrAutoRuleSettings on;
  on.small_rows_wide = true;
  for (const std::int64_t longest : {1, 5, 8, 9, 14, 16, 17, 23}) {
    const RowLengthStats stats{5300, 5300, 5300 * std::min<std::int64_t>(longest, 4), longest, 5000};
    const CsrAutoChoice choice = choose_csr_kernel(stats, on);
    EXPECT_EQ(choice.kernel, Kernel::kRows) << longest;
    EXPECT_EQ(choice.wide_rows, longest >= 9 && longest <= 16) << longest;
    EXPECT_EQ(choice.row_loads(), choice.wide_rows ? 16 : 8) << longest;
  }
  // bcspwr10 itself (rows of up to 14).
  const CsrAutoChoice bcspwr10 = choose_csr_kernel(RowLengthStats{5300, 5300, 21'842, 14, 5000}, on);
  EXPECT_EQ(bcspwr10.describe(), "csr_rows (16 loads/thread)");
  for (const RowLengthStats& stats :
       {RowLengthStats{4'194'304, 4'194'304, 20'963'328, 5, 4096},   // large: csr_scalar
        RowLengthStats{4884, 4884, 290'378, 81, 4800},               // bcsstk16: csr_vector
        RowLengthStats{2873, 2873, 27'191, 47, 2800},                // zenios: csr_vector
        RowLengthStats{1'000'000, 1'000'000, 16'000'000, 16, 5000},  // large rows of 16: csr_vector
        RowLengthStats{1000, 1000, 16'000, 16, 900}}) {              // small, mean 16: csr_vector
    EXPECT_EQ(choose_csr_kernel(stats, on), choose_csr_kernel(stats)) << stats.rows << " rows, " << stats.nnz;
  }
}

TEST(CsrAutoRule, CandidatesHoldBothWidthsOfCsrRows) {
  for (const RowLengthStats& stats :
       {RowLengthStats{5300, 5300, 21'842, 14, 5000}, RowLengthStats{4'194'304, 4'194'304, 20'963'328, 5, 4096}}) {
    const std::vector<CsrAutoChoice> candidates = reference::csr_auto_candidates(stats);
    CsrAutoChoice wide{Kernel::kRows, 1};
    wide.wide_rows = true;
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), CsrAutoChoice{Kernel::kRows, 1}), candidates.end());
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), wide), candidates.end());
  }
}

TEST(CsrAutoRule, CandidatesHoldTheRuleChoiceFirstAndNoRepeats) {
  for (const RowLengthStats& stats :
       {RowLengthStats{6833, 6833, 43'250, 1442, 6832}, RowLengthStats{4'194'304, 4'194'304, 20'963'328, 5, 4096},
        RowLengthStats{2'000'000, 2'000'000, 22'300'000, 136'849, 1'999'000}}) {
    const std::vector<CsrAutoChoice> candidates = reference::csr_auto_candidates(stats);
    ASSERT_FALSE(candidates.empty());
    EXPECT_EQ(candidates.front(), choose_csr_kernel(stats));
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      for (std::size_t j = i + 1; j < candidates.size(); ++j) EXPECT_NE(candidates[i], candidates[j]);
    }
    EXPECT_GE(candidates.size(), 8u);
  }
}

TEST(CsrAutoRule, VeryShortRowsGoToRowBlocksAsLargeAsTheStageAllows) {
  // Rows of 2: the stage of 2048 entries holds 1024 rows, above the cap.
  const CsrAutoChoice pairs = choose_csr_kernel(RowLengthStats{12'000'000, 12'000'000, 24'000'000, 2, 11'000'000});
  EXPECT_EQ(pairs.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(pairs.rows_per_block, 511);
  // Mostly single entries, a few rows of 8: the mean sets the count (by
  // the longest row, 256 rows a block, a road network of rows of 2 or 3 and
  // a few of 8 ran 25% slower on the H200: tuning.hpp).
  const CsrAutoChoice mixed = choose_csr_kernel(RowLengthStats{1'000'000, 1'000'000, 1'500'000, 8, 900'000});
  EXPECT_EQ(mixed.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(mixed.rows_per_block, 511);
  // A road network (USA-road-COL's shape): rows of 2 or 3, the longest 8.
  const CsrAutoChoice road = choose_csr_kernel(RowLengthStats{435'666, 435'666, 1'042'400, 8, 400'000});
  EXPECT_EQ(road.kernel, Kernel::kRowBlocks);
  EXPECT_EQ(road.rows_per_block, 511);
  // Empty rows with a few entries in between (a large matrix: small ones
  // get a thread per row).
  const CsrAutoChoice sparse = choose_csr_kernel(RowLengthStats{2'000'000, 2'000'000, 1000, 1, 0});
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
  EXPECT_EQ(choose_csr_kernel(RowLengthStats{3'375'000, 3'375'000, 23'490'000, 7, 45'000}).kernel, Kernel::kScalar);
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
    const CsrAutoChoice choice = choose_csr_kernel(RowLengthStats{100'000, 1'000'000, 100'000 * mean, mean, 100'000});
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
