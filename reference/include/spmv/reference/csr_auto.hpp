// The rule by which the "auto" reference kernel picks a CSR kernel from the
// matrix's row lengths, and what it picked for a matrix it has run on.
//
// The rule (thresholds in tuning.hpp, the measurements behind them in
// docs/performance.md), from the size of the merge path (rows + entries),
// the mean row length, the longest row and the widest row span (last column
// minus first column). "Skewed" means a longest row above kAutoSkewFactor
// times the mean plus kAutoSkewSlack; "row blocks" is csr_stream's kernel
// with as many rows a block as fit when every row is as long as the
// longest.
//
// Small matrices (a path of at most kAutoSmallPath items: a few
// microseconds, mostly launch latency) get one launch:
//  1. a longest row above kAutoSmallMergeRow: up to kAutoSmallLongRowMax,
//     row blocks of as many rows as leave room for the longest at twice
//     the mean, the long rows summed by the whole block, unless they would
//     number more than kAutoSmallLongRowBlocksMax or a block of them would
//     hold more than its stage (settle_row_blocks); then, or for a longer
//     row still,
//     csr_merge's tiles in one launch (no partition kernel; each tile
//     checks or finds its own ends, and a row is stored by the tile where
//     it ends, no atomics); a row above kAutoSmallMergeLaunchRow:
//     csr_merge itself (two launches);
//  2. skewed rows: row blocks, or csr_merge's tiles in one launch where
//     they would number more than kAutoSmallRowBlocksMax;
//  3. a mean of kAutoSmallVectorMean or more: csr_vector's own kernel (its
//     group from the mean, tuning::kCsrVectorGroups, one load a lane);
//  4. a longest row of kAutoSmallBlockRow or more: csr_vector's own kernel
//     as in 3;
//  5. otherwise csr_rows: a thread per row, its loads in flight together
//     (kRowsLoads of them; kRowsWideLoads for a longest row between the
//     two when kAutoSmallRowsWide is on, CsrAutoRuleSettings).
// Larger matrices stream from device memory:
//  6. skewed rows: csr_merge, whose merge path splits work evenly whatever
//     the rows look like.
//  7. a mean below kAutoScalarMinMean: row blocks, as many rows a block as
//     fit at the mean row length. With one or two entries a row, per-row
//     costs dominate; a block loads its rows' entries coalesced and stores
//     neighbouring rows together.
//  8. a mean up to kAutoScalarMaxMean: csr_scalar. A thread per row reads
//     neighbouring rows' entries with neighbouring threads in the same
//     steps, and no lane idles.
//  9. rows scattered over x (a span above kAutoLocalSpan of the columns)
//     with none longer than kAutoRowBlockMaxRow: row blocks, as in 7: the
//     random gathers of x are the cost, and a block has its whole stage of
//     them in flight.
// 10. otherwise (longer rows: stencils with many points, bands, long
//     rows) csr_vector's kernel with kAutoLoadsPerLane loads in flight per
//     lane and the smallest group (a power of two, 2 to kAutoMaxGroup) whose
//     lanes load the mean row in one step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spmv/contract/csr.h"

namespace spmv::reference {

struct RowLengthStats {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  std::int64_t max_row = 0;
  std::int64_t max_span = 0;  // largest last column - first column of a row
};

struct CsrAutoChoice {
  // kRows: csr_rows (a thread per row, its loads in flight); kMergeSingle:
  // csr_merge's tiles in one launch, tiles of `tile_threads` x
  // kMergeItems slots.
  enum class Kernel { kScalar, kVector, kMerge, kRowBlocks, kRows, kMergeSingle };
  Kernel kernel = Kernel::kMerge;
  int threads_per_row = 1;  // kVector only
  int rows_per_block = 1;   // kRowBlocks only
  int loads_per_lane = 1;   // kVector only: 1 is csr_vector's own kernel
  int tile_threads = 0;     // kMergeSingle only: threads a tile
  // kRowBlocks only: rows longer than tuning::kRowBlockLongRow summed by
  // the whole block (small matrices with a few long rows).
  bool block_long_rows = false;
  // kRows only: tuning::kRowsWideLoads of a row's entries loaded together
  // instead of tuning::kRowsLoads.
  bool wide_rows = false;

  // kRows only: the entries a thread loads together (8, or 16 wide).
  [[nodiscard]] int row_loads() const;

  // "csr_scalar", "csr_vector (8 threads/row, 4 loads/lane)", "csr_merge",
  // "csr_stream (75 rows/block)", "csr_stream (48 rows/block, long rows by the block)",
  // "csr_rows", "csr_rows (16 loads/thread)", "csr_merge (one launch, 256 threads/tile)"
  [[nodiscard]] std::string describe() const;
  friend bool operator==(const CsrAutoChoice&, const CsrAutoChoice&) = default;
};

// Settings of the rule that are not yet measured, as run-time values: a
// default-constructed one holds tuning.hpp's values, which is what auto
// uses; the rule's tests switch them.
struct CsrAutoRuleSettings {
  CsrAutoRuleSettings();  // tuning.hpp's values

  // Small matrices whose rows get csr_rows with a longest row of
  // tuning::kRowsLoads + 1 to kRowsWideLoads: csr_rows with kRowsWideLoads
  // loads in flight (tuning::kAutoSmallRowsWide, off).
  bool small_rows_wide;
};

CsrAutoChoice choose_csr_kernel(const RowLengthStats& stats, const CsrAutoRuleSettings& settings = {});

// Row blocks that sum long rows with the whole block are chosen from the
// longest row and the mean alone; where long rows sit together, a block's
// rows can hold more entries than its stage, and such a block takes the
// slow path (a warp per row, one load at a time). auto measures the most
// entries any block of the choice's rows holds, and this settles the
// choice: over the stage, csr_merge's tiles in one launch instead.
CsrAutoChoice settle_row_blocks(const CsrAutoChoice& choice, std::int64_t largest_block_entries);

// Every kernel the rule could give this matrix, with the parameters it would
// give it (the rule's own choice among them): what spmv-bench --candidates
// times to show the rule's choice against the others.
std::vector<CsrAutoChoice> csr_auto_candidates(const RowLengthStats& stats);

// Enqueues `choice` on A: what auto does once it has chosen. Scratch must
// hold spmv_csr_auto_scratch_size(A) bytes. Returns a cudaError_t value.
int csr_launch_choice(const CsrAutoChoice& choice, const spmv_csr_view& A, const float* x, float* y, void* scratch,
                      cudaStream_t stream);

// The choice auto made for this view (matched by its pointers and sizes), if
// auto has run on it in this process.
std::optional<CsrAutoChoice> csr_auto_choice_for(const spmv_csr_view& A);

}  // namespace spmv::reference
