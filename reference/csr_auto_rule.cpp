// The host side of the "auto" kernel's rule (csr_auto.hpp): no CUDA, so the
// rule is unit-tested without a GPU and shown by spmv-bench.
#include <algorithm>
#include <cstdio>
#include <string>

#include "spmv/reference/csr_auto.hpp"
#include "tuning.hpp"

namespace spmv::reference {

int CsrAutoChoice::row_loads() const { return wide_rows ? tuning::kRowsWideLoads : tuning::kRowsLoads; }

std::string CsrAutoChoice::describe() const {
  switch (kernel) {
    case Kernel::kScalar: return "csr_scalar";
    case Kernel::kVector: {
      // snprintf, not std::to_string: the latter's digit table is a symbol
      // the plugin module would export.
      char text[48];
      if (loads_per_lane == 1) {
        std::snprintf(text, sizeof text, "csr_vector (%d threads/row)", threads_per_row);
      } else {
        std::snprintf(text, sizeof text, "csr_vector (%d threads/row, %d loads/lane)", threads_per_row, loads_per_lane);
      }
      return text;
    }
    case Kernel::kMerge: return "csr_merge";
    case Kernel::kRows: {
      if (!wide_rows) return "csr_rows";
      char text[40];
      std::snprintf(text, sizeof text, "csr_rows (%d loads/thread)", row_loads());
      return text;
    }
    case Kernel::kMergeSingle: {
      char text[64];
      std::snprintf(text, sizeof text, "csr_merge (one launch, %d threads/tile)", tile_threads);
      return text;
    }
    case Kernel::kRowBlocks: {
      char text[64];
      std::snprintf(
          text, sizeof text,
          block_long_rows ? "csr_stream (%d rows/block, long rows by the block)" : "csr_stream (%d rows/block)",
          rows_per_block);
      return text;
    }
  }
  return "?";
}

namespace {

// Row blocks of as many rows as the stage holds when every row is as long
// as the longest.
CsrAutoChoice row_blocks(const RowLengthStats& stats) {
  const std::int64_t stage = static_cast<std::int64_t>(tuning::kRowBlockThreads) * tuning::kRowBlockItems;
  const std::int64_t fit = stage / std::max<std::int64_t>(stats.max_row, 1);
  return {CsrAutoChoice::Kernel::kRowBlocks, 1,
          static_cast<int>(std::clamp<std::int64_t>(fit, 1, tuning::kRowBlockMaxRows))};
}

// Row blocks of as many rows as fit at the mean row length (csr_stream's
// own count, without its slack): rows longer than that take the block's
// slower path.
CsrAutoChoice row_blocks_by_mean(const RowLengthStats& stats) {
  const std::int64_t stage = static_cast<std::int64_t>(tuning::kRowBlockThreads) * tuning::kRowBlockItems;
  const std::int64_t mean =
      std::max<std::int64_t>(1, (stats.nnz + stats.rows - 1) / std::max<std::int64_t>(stats.rows, 1));
  return {CsrAutoChoice::Kernel::kRowBlocks, 1,
          static_cast<int>(std::clamp<std::int64_t>(stage / mean, 1, tuning::kRowBlockMaxRows))};
}

// csr_vector's own kernel: one load a lane, its group from the mean
// (tuning::kCsrVectorGroups), as csr_vector run on its own.
CsrAutoChoice vector_own(double mean) {
  int threads = tuning::kCsrVectorMaxGroup;
  for (const tuning::CsrVectorGroup& group : tuning::kCsrVectorGroups) {
    if (mean <= group.max_mean_row_length) {
      threads = group.threads_per_row;
      break;
    }
  }
  return {CsrAutoChoice::Kernel::kVector, threads, 1, 1};
}

CsrAutoChoice vector_group(double mean, int loads_per_lane) {
  int threads = 2;
  while (threads < tuning::kAutoMaxGroup && threads * loads_per_lane < mean) threads *= 2;
  return {CsrAutoChoice::Kernel::kVector, threads, 1, loads_per_lane};
}

CsrAutoChoice rows(bool wide) {
  CsrAutoChoice choice{CsrAutoChoice::Kernel::kRows, 1};
  choice.wide_rows = wide;
  return choice;
}

CsrAutoChoice merge_single(int tile_threads) {
  CsrAutoChoice choice{CsrAutoChoice::Kernel::kMergeSingle, 1};
  choice.tile_threads = tile_threads;
  return choice;
}

bool is_small(const RowLengthStats& stats) { return stats.rows + stats.nnz <= tuning::kAutoSmallPath; }

// Row blocks for a few long rows: as many rows a block as leave room in the
// stage for the longest row beside the others at twice the mean length;
// the long rows are summed by the whole block.
CsrAutoChoice row_blocks_with_long_rows(const RowLengthStats& stats) {
  const std::int64_t stage = static_cast<std::int64_t>(tuning::kRowBlockThreads) * tuning::kRowBlockItems;
  const std::int64_t mean =
      std::max<std::int64_t>(1, (stats.nnz + stats.rows - 1) / std::max<std::int64_t>(stats.rows, 1));
  const std::int64_t room = std::max<std::int64_t>(stage - stats.max_row, 0);
  CsrAutoChoice choice{CsrAutoChoice::Kernel::kRowBlocks, 1,
                       static_cast<int>(std::clamp<std::int64_t>(room / (2 * mean), 1, tuning::kRowBlockMaxRows))};
  choice.block_long_rows = true;
  return choice;
}

// Blocks a row-block choice launches for the matrix's rows.
std::int64_t block_count(const RowLengthStats& stats, const CsrAutoChoice& blocks) {
  return (stats.rows + blocks.rows_per_block - 1) / blocks.rows_per_block;
}

// Small matrices (tuning.hpp, kAutoSmallPath): one launch, picked by the
// longest row and the mean.
CsrAutoChoice choose_small(const RowLengthStats& stats, double mean, bool skewed, const CsrAutoRuleSettings& settings) {
  if (stats.max_row > tuning::kAutoSmallMergeRow) {
    if (stats.max_row > tuning::kAutoSmallMergeLaunchRow) return {CsrAutoChoice::Kernel::kMerge, 1};
    if (stats.max_row <= tuning::kAutoSmallLongRowMax) {
      const CsrAutoChoice blocks = row_blocks_with_long_rows(stats);
      if (block_count(stats, blocks) <= tuning::kAutoSmallLongRowBlocksMax) return blocks;
    }
    return merge_single(tuning::kAutoSmallTileThreads);
  }
  if (skewed) {
    const CsrAutoChoice blocks = row_blocks(stats);
    if (block_count(stats, blocks) > tuning::kAutoSmallRowBlocksMax) return merge_single(tuning::kAutoSmallTileThreads);
    return blocks;
  }
  if (mean >= tuning::kAutoSmallVectorMean || stats.max_row >= tuning::kAutoSmallBlockRow) return vector_own(mean);
  return rows(settings.small_rows_wide && stats.max_row > tuning::kRowsLoads &&
              stats.max_row <= tuning::kRowsWideLoads);
}

}  // namespace

CsrAutoRuleSettings::CsrAutoRuleSettings() : small_rows_wide(tuning::kAutoSmallRowsWide) {}

CsrAutoChoice choose_csr_kernel(const RowLengthStats& stats, const CsrAutoRuleSettings& settings) {
  if (stats.rows <= 0 || stats.nnz <= 0) return {CsrAutoChoice::Kernel::kScalar, 1};
  const double mean = static_cast<double>(stats.nnz) / static_cast<double>(stats.rows);
  const bool skewed = static_cast<double>(stats.max_row) > tuning::kAutoSkewFactor * mean + tuning::kAutoSkewSlack;
  if (is_small(stats)) return choose_small(stats, mean, skewed, settings);
  if (skewed) return {CsrAutoChoice::Kernel::kMerge, 1};
  if (mean < tuning::kAutoScalarMinMean) return row_blocks_by_mean(stats);
  if (mean <= tuning::kAutoScalarMaxMean) return {CsrAutoChoice::Kernel::kScalar, 1};
  const bool local = static_cast<double>(stats.max_span) <=
                     tuning::kAutoLocalSpan * static_cast<double>(std::max<std::int64_t>(stats.cols, 1));
  if (!local && stats.max_row <= tuning::kAutoRowBlockMaxRow) return row_blocks(stats);
  return vector_group(mean, tuning::kAutoLoadsPerLane);
}

CsrAutoChoice settle_row_blocks(const CsrAutoChoice& choice, std::int64_t largest_block_entries) {
  const std::int64_t stage = static_cast<std::int64_t>(tuning::kRowBlockThreads) * tuning::kRowBlockItems;
  if (choice.kernel != CsrAutoChoice::Kernel::kRowBlocks || !choice.block_long_rows) return choice;
  return largest_block_entries > stage ? merge_single(tuning::kAutoSmallTileThreads) : choice;
}

std::vector<CsrAutoChoice> csr_auto_candidates(const RowLengthStats& stats) {
  std::vector<CsrAutoChoice> candidates;
  const auto add = [&candidates](const CsrAutoChoice& choice) {
    if (std::find(candidates.begin(), candidates.end(), choice) == candidates.end()) candidates.push_back(choice);
  };
  add(choose_csr_kernel(stats));
  if (stats.rows <= 0 || stats.nnz <= 0) return candidates;
  const double mean = static_cast<double>(stats.nnz) / static_cast<double>(stats.rows);
  add({CsrAutoChoice::Kernel::kScalar, 1});
  add(rows(false));
  add(rows(true));
  add(vector_group(mean, tuning::kAutoLoadsPerLane));
  add(vector_own(mean));
  add(row_blocks(stats));
  add(row_blocks_by_mean(stats));
  add(row_blocks_with_long_rows(stats));
  add({CsrAutoChoice::Kernel::kMerge, 1});
  add(merge_single(tuning::kMergeSingleTinyThreads));
  add(merge_single(tuning::kMergeSingleSmallThreads));
  add(merge_single(tuning::kMergeSingleLargeThreads));
  return candidates;
}

}  // namespace spmv::reference
