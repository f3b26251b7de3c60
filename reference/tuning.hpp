// Tuning constants of the reference kernels, kept apart from the kernel code.
//
// Every value below is a starting point to be measured on the course's
// H100 (sm_90, 132 SMs, 2048 resident threads per SM); when one changes,
// note here what was measured (matrix, bandwidth) and on which GPU. The
// plan's constants at the end say which of them a GPU run has checked.
#pragma once

#include <array>
#include <cstdint>

namespace spmv::reference::tuning {

// Threads per block of every reference kernel. A multiple of the warp size:
// csr_vector's thread groups must never straddle a warp.
inline constexpr int kBlockSize = 256;

// Most blocks one launch gets; work beyond grid size is covered by
// grid-stride loops. 4096 x 256 threads is about four waves of the H100's
// 132 x 2048 resident threads: enough to hide memory latency, and a loop of a
// few iterations per thread costs less than launching millions of blocks.
inline constexpr std::int64_t kMaxGridBlocks = 4096;

// csr_vector: threads per row (G) from the mean row length nnz / rows, the
// heuristic of CUSP (Bell & Garland): the first bound the mean does not
// exceed gives G; a mean above every bound gets kCsrVectorMaxGroup. G must be
// a power of two between 2 and the warp size.
struct CsrVectorGroup {
  double max_mean_row_length;
  int threads_per_row;
};
inline constexpr std::array<CsrVectorGroup, 4> kCsrVectorGroups{{{2, 2}, {4, 4}, {8, 8}, {16, 16}}};
inline constexpr int kCsrVectorMaxGroup = 32;

// csr_merge: threads per block, work items per thread and resident blocks
// asked of the compiler. A block's tile has kMergeThreads * kMergeItems
// slots for row ends plus entries along the merge path, a warp's worth fewer
// items than slots so that its entries load line-aligned (2528 items in
// 2560 slots), staged in shared memory at 4 bytes an item.
// Measured on the H100 (spmv-bench suite, speedups over cuSPARSE ALG1 on
// stencil2d, stencil27, stencil7, banded; on random, powerlaw, shortrows
// and longrows the first five shapes below stayed within 0.99-1.07x):
// - 512 x 5, four blocks (32 registers): 1.16/1.05/1.08/1.09x, geometric
//   mean over the suite 1.05x;
// - 256 x 5, eight blocks: 1.18/1.04/1.10/1.09x, but 0.99x on powerlaw;
// - 384 x 5, five blocks: 1.16/1.04/1.07/1.08x; 512 x 4: 1.11/1.04/1.03/1.08x;
// - 256 x 8, eight blocks (the earlier choice): 1.00/1.02/1.00/1.10x; with
//   eight items a thread holds 16 registers of entries, and at 32 registers
//   the compiler issues the tile's row-pointer loads and x gathers in
//   dependent batches (Nsight Compute: 30% of stall samples on the second
//   row-pointer load);
// - 256 x 16, 128 x 16, 512 x 3 and 512 x 6: 0.85-0.92x at their worst
//   regular matrix; 1024 x 2: 0.64-0.90x on all but shortrows.
inline constexpr int kMergeThreads = 512;
inline constexpr int kMergeItems = 5;
inline constexpr int kMergeMinBlocks = 4;
// csr_merge: a tile whose rows all hold at most this many of its entries is
// summed a thread per row (coalesced stores, no scan); otherwise by walking
// the merge path.
inline constexpr int kMergeShortRow = 32;
// csr_merge: the nearest of the rows a tile's search probes first on either
// side of where even rows would put the tile's ends; the others lie 2, 4, ...
// 2^15 times as far.
inline constexpr std::int64_t kMergeSearchStep = 4;
// csr_merge's tiles in one launch (auto's path for small matrices with a
// long row): threads a tile (kMergeItems slots each, as csr_merge), for the
// three shapes measured. A tile whose first row began in an earlier tile
// sums that row's head itself (the tile where a row ends stores it), so a
// long row costs the tile that ends it up to the row's length in extra
// loads: auto uses it on small matrices only (kAutoSmallPath).
inline constexpr int kMergeSingleTinyThreads = 128;
inline constexpr int kMergeSingleSmallThreads = 256;
inline constexpr int kMergeSingleLargeThreads = 512;

// csr_rows (auto's thread per row on small matrices): loads of a row's
// entries issued together before the x gathers that use them. On the large
// stencils it is slower than csr_scalar (stencil2d 0.87x against 0.97x of
// cuSPARSE's sliced ELL, stencil7 0.85x against 0.92x), so auto keeps
// csr_scalar there.
inline constexpr int kRowsLoads = 8;

// coo_segmented: threads per block and entries per thread; its tile of
// 2048 entries is staged in shared memory (8 KiB), which leaves room for
// eight resident blocks per SM.
inline constexpr int kCooThreads = 256;
inline constexpr int kCooItems = 8;

// csr_stream's row blocks (also one of auto's candidates): threads per
// block, entries a thread stages (the stage holds kRowBlockThreads *
// kRowBlockItems), most rows a block takes, and resident blocks asked of the
// compiler. The earlier shape of csr_merge's tiles (256 x 8; 512 x 5 is not
// measured here); on the H100, 256 x 16 with four blocks per SM was 0-15%
// slower on every suite matrix.
inline constexpr int kRowBlockThreads = 256;
inline constexpr int kRowBlockItems = 8;
inline constexpr int kRowBlockMaxRows = 2 * kRowBlockThreads - 1;
inline constexpr int kRowBlockMinBlocks = 8;
// Row blocks for small matrices with a few long rows (auto): rows longer
// than this are summed by the whole block, not by their group.
inline constexpr int kRowBlockLongRow = 64;
// csr_stream on its own (no row statistics): a block takes as many rows as
// fit in the stage when rows are up to this many times the mean length.
inline constexpr double kStreamRowSlack = 1.25;

// sell: threads per block (a thread per sorted row).
inline constexpr int kSellBlockSize = 256;

// auto: the rule of csr_auto.hpp, from spmv-bench runs of the suite on the
// H100 (speedups over cuSPARSE CSR ALG1):
// - csr_scalar is the best CSR kernel on stencil rows of 5 and 7 (1.28x,
//   1.18x);
// - row blocks (csr_stream's kernel, rows per block from the longest row)
//   beat every other candidate on rows of 2 (1.05-1.09x against 1.04x for
//   csr_merge) and on random rows of 16 (1.02x against 0.97x for
//   csr_vector with 16 threads);
// - csr_vector's kernel with 4 loads in flight per lane and 8 threads per
//   row beat csr_vector's own (one load at a time) on the 27-point stencil
//   (1.07x against 0.94x with 4 threads), the band of 25 (1.09x against
//   1.00x for csr_merge) and rows of 2000 (1.20x against 1.15x with 32
//   threads); 4 threads with 4 loads, which takes two steps for a row of
//   27, measured 0.82x there.
// Small matrices: a merge path (rows + entries) of at most kAutoSmallPath
// items. Launch latency, not bandwidth, sets their time (4-7 us on the
// H100 against 3-6 us for a copy of the same bytes), so every candidate is
// a single launch, and the fewer dependent loads a block waits for, the
// better. From spmv-bench --suite real --candidates on the H100 (speedups
// over the fastest cuSPARSE algorithm, docs/performance.md has the table):
// - a longest row above kAutoSmallMergeRow (a quarter of the row-block
//   stage; rajat01 1442, adder_dcop_05 1310, EVA 552, hangGlider_2 1463):
//   csr_merge's tiles in one launch, 256-thread tiles: 0.98/0.98/0.92/0.89x
//   against 0.89/0.92/0.82/0.86x for csr_merge's two launches and
//   0.30/0.68/0.58/0.77x for row blocks of 1-3 rows;
// - other skewed rows (watt_2, rajat19, G51, lp_e226, mbeacxc): row
//   blocks sized by the longest row, 1.47/1.40/1.29/1.18/1.08x against
//   1.15/1.07/0.95/0.90/0.87x for the one-launch merge;
// - a mean of kAutoSmallVectorMean or more (bcsstk16, bcsstk13, dwt_992):
//   csr_vector's kernel, 8 lanes of 4 loads, 1.37/1.40/1.26x (row blocks
//   1.28/1.35/0.96x);
// - otherwise a longest row of kAutoSmallBlockRow or more (Erdos971,
//   zenios, bayer10): row blocks by the longest row, 1.27/1.23/1.01x
//   against 1.08/0.90/0.93x for a thread per row;
// - the rest (rows of at most 17: jagmesh7, 3elt, Pd, delaunay_n16,
//   bcspwr10, luxembourg_osm, cryg2500): csr_rows, 1.06/1.16/1.06/1.12/
//   1.05/1.19/1.06x (row blocks 0.77/1.01/0.86/0.99/0.95/1.03/0.79x).
inline constexpr std::int64_t kAutoSmallPath = std::int64_t{1} << 20;
inline constexpr std::int64_t kAutoSmallMergeRow = 512;
// Row blocks whose long rows the whole block sums (kRowBlockLongRow), for
// a longest row above kAutoSmallMergeRow up to this: not yet measured when
// written; the measurement is in docs/performance.md.
inline constexpr std::int64_t kAutoSmallLongRowMax = 1536;
inline constexpr double kAutoSmallVectorMean = 16.0;
inline constexpr std::int64_t kAutoSmallBlockRow = 24;
inline constexpr int kAutoSmallTileThreads = kMergeSingleSmallThreads;
inline constexpr double kAutoSkewFactor = 4.0;
inline constexpr double kAutoSkewSlack = 32.0;
inline constexpr double kAutoScalarMinMean = 4.0;
inline constexpr double kAutoScalarMaxMean = 12.0;
inline constexpr double kAutoLocalSpan = 0.125;
inline constexpr std::int64_t kAutoRowBlockMaxRow = 64;
inline constexpr int kAutoLoadsPerLane = 4;
inline constexpr int kAutoMaxGroup = 8;

// auto's plan (csr_auto_plan.hpp; the choice is plan::choose_plan in
// plan_layout.hpp). Set from the byte counts and the rule's measurements
// above, then checked on the H100 (NVIDIA H100 80GB HBM3, CUDA 13.0,
// release build, spmv-bench --suite real --suite all through
// tools/bench-plan-check). The first run (--steps build,tests,bench;
// 770/770 GPU and unit tests passed, 0 WRONG of 480 kernel runs), with
// kPlanTilesForLargeSkewed still on and small tiles of 256 x 5: against the
// fastest cuSPARSE algorithm on each matrix, auto (the plan) was real
// suite gm 1.178x, min 0.910x (rajat01), 1 behind; synthetic gm 1.262x,
// min 0.939x (powerlaw), 1 behind; all 30 gm 1.200x, 2 behind (auto_csr,
// the rule: gm 1.134x, 4 behind). The run of the plan as it is now
// (--steps build,bench,small-tiles; powerlaw on the rule, kPlanSmallTiles
// 128 x 3; 0 WRONG of 480 kernel runs): real gm 1.187x, min 1.045x;
// synthetic gm 1.265x, min 1.002x (shortrows); all 30 gm 1.207x, 0 behind
// (auto_csr gm 1.129x, 4 behind). The choices these runs measured are
// recorded at each constant below; the thresholds themselves were not
// varied (spmv-bench --candidates, whose rows auto=plan-slices,
// auto=plan-tiles and auto=plan-rule time each kind of plan, forced, is
// what would set them; docs/performance.md).
//
// The thresholds of the choice and the packed slices' kernel shapes are
// plan::PlanSettings' defaults (plan_layout.hpp): spmv-bench
// --sweep-thresholds (tools/bench-plan-check --steps thresholds) times
// auto's plan at other values of each on generated matrices on either side
// of it (docs/performance.md, "The threshold sweep"). Not yet run on a GPU.
//
// Packed slices, where the plan now puts them (speedup over the fastest
// cuSPARSE algorithm, the run of the plan as it is now; the first run
// within 0.006x of these): stencil2d 1.293x, stencil27 1.756x, stencil7
// 1.460x, banded 1.683x (100% diagonal slices; 131.7-176.3% of a
// same-size copy's bandwidth), shortrows 440.93 us against sell_alg1's
// 441.86 us, 1.002x (100% 32-bit slices, 8.25 bytes an entry; auto_csr
// 0.956x). random keeps the rule's row blocks (kPlanSlicesMaxBytes),
// 1.019x, and longrows the rule's csr_vector kernel, 1.144x (1.194x in the
// first run). Every other real matrix keeps the rule, unchanged,
// 1.045x-1.476x (bayer10 1.045x, bcspwr10 1.051x, Pd 1.057x).
//
// Packed slices only past the small matrices: below kAutoSmallPath the
// rule's single launches are 1.04-1.47x the fastest cuSPARSE algorithm
// (all but rajat01 and EVA), and a plan of slices moves fewer bytes where
// bytes matter little (4-7 us, mostly launch latency). To be set by
// auto=plan-slices against auto=plan-rule on the real suite's small
// regular matrices (jagmesh7, 3elt, Pd, delaunay_n16, luxembourg_osm), and
// by the sweep's slices_min_path (2D and 3D stencils of merge paths from
// 0.4M to 6.3M items).
inline constexpr std::int64_t kPlanSlicesMinPath = kAutoSmallPath;
// Packed slices for a mean row of at most this: a thread per row walks its
// slots kPlanSliceLoads at a time, which suits rows of 2-27 (stencils,
// bands, short rows); longer rows keep the rule's groups of lanes
// (longrows, rows of 2000: csr_vector's kernel, 8 lanes a row, 1.18x). To
// be set by auto=plan-slices on banded matrices of growing half-bandwidth
// (the sweep's slices_max_mean: means of 17 to 65).
inline constexpr double kPlanSlicesMaxMean = 32.0;
// Packed slices when a sliced ELL of the rows (slices of 32, unsorted)
// pads the entries by at most this fraction, the bound sell_params_for
// uses for sigma = 1 (every regular suite matrix is within 2%). To be set
// by auto=plan-slices on matrices of growing row-length spread (the sweep's
// slices_max_padding: bands of rows of 16 +- 0..12 entries, and bands with
// a share of their rows emptied).
inline constexpr double kPlanSlicesMaxPadding = 0.10;
// Packed slices, once laid out, only where a product through them moves at
// most this share of the bytes a CSR product moves (x and y counted in
// both; spmv-bench --plans computes both): where they save little, the
// rule's measured kernel stays. random's 32-bit slices save 2.5% (0.975:
// it keeps row blocks, 1.017x), shortrows' 12.5% (0.875), the stencils'
// and the band's 45-49% (0.51-0.55). To be set by auto=plan-slices against
// auto=plan-rule on random and shortrows (the sweep's slices_max_bytes:
// random rows of 1-16 entries, and rows of 16 with a share of slices
// within a 16-bit column window; ratios of 0.80 to 0.98).
inline constexpr double kPlanSlicesMaxBytes = 0.90;
// Slots a thread loads together (values and column words) before the x
// gathers that use them, as csr_rows' kRowsLoads: a stencil row of 5 or 7
// is one round trip of loads and one of gathers. To be set with
// auto=plan-slices on stencil27 (rows of 27: four batches of 8), and by the
// sweep's slice_kernel (every shape of kPlanSliceLoadChoices x
// kPlanSliceMinBlockChoices on the stencils, a band, a spread band and
// random rows of 8).
inline constexpr int kPlanSliceLoads = 8;
// Resident blocks of 256 asked for the kPlanSliceLoads kernel: six fit in
// 40 registers without spilling (ptxas, sm_90); asked for none, the
// compiler takes 56 (four blocks). Not measured on a GPU.
inline constexpr int kPlanSliceMinBlocks = 6;
// Slices of at most kPlanShortSliceLoads slots (shortrows: rows of 2 random
// columns, bound by the x gathers, where resident warps are what keeps
// gathers in flight) take a kernel loading that many slots together, asked
// for kPlanShortSliceMinBlocks resident blocks of 256: 32 registers without
// spilling (ptxas, sm_90), every thread of an SM resident, where the 8-slot
// kernel holds 40 registers (six blocks, 75%). To be set by auto=plan-slices
// on shortrows against cuSPARSE's SELL ALG1, and by the sweep's
// short_slice_kernel (every shape of kPlanShortSliceLoadChoices x
// kPlanShortSliceMinBlockChoices on random rows of 1-4 entries).
inline constexpr int kPlanShortSliceLoads = 2;
inline constexpr int kPlanShortSliceMinBlocks = 8;
// The packed slices' kernel is built for these shapes (slots a batch x
// resident blocks of 256), any of which plan::PlanSettings may pick at run
// time: the long slices' kernel from the first two lists, the short
// slices' from the last two (loads 4 and 8 blocks is one kernel in both).
// The defaults above are among them (static_asserts in packed_slices.cu).
// ptxas (CUDA 13.0, sm_90), registers and spilled bytes: 4 loads 32 in
// each block count; 8 loads 55/40/32 for 4/6/8 blocks, 8 blocks spilling
// 168 bytes; 16 loads 64/40/32, 6 and 8 blocks spilling 208 and 372
// bytes; 1 load 40/32 for 6/8 blocks (8 bytes spilled at 8); 2 loads 30.
// Not measured on a GPU (the sweep's slice_kernel and short_slice_kernel).
inline constexpr std::array<int, 3> kPlanSliceLoadChoices{4, 8, 16};
inline constexpr std::array<int, 3> kPlanSliceMinBlockChoices{4, 6, 8};
inline constexpr std::array<int, 3> kPlanShortSliceLoadChoices{1, 2, 4};
inline constexpr std::array<int, 2> kPlanShortSliceMinBlockChoices{6, 8};
// Large skewed matrices (the rule's csr_merge): planned tiles of
// csr_merge's shape (kMergeThreads x kMergeItems) in one launch, or the
// rule's csr_merge (a partition kernel, then the tiles). Off: measured on
// the H100 (NVIDIA H100 80GB HBM3, CUDA 13.0, release build, one run of
// tools/bench-plan-check --steps build,tests,bench), powerlaw: planned
// tiles (9863 tiles of 512 threads, 2970 cut rows) 205.98 us, 0.939x the
// fastest cuSPARSE algorithm (csr_alg1, 193.47 us), where the rule's
// csr_merge (auto_csr) was 1.006x. Handing 2970 cut rows over through the
// plan's slots costs more than the partition kernel it saves (4.5-5.4 us,
// Nsight Compute, docs/performance.md).
inline constexpr bool kPlanTilesForLargeSkewed = false;
// Planned tiles: a tile boundary that would cut a row within this many
// entries of either end moves to that end, so only rows of more than twice
// this are cut and handed over through the plan's slots (a store, a fence
// and an atomic each, on the critical path of a small matrix); the tiles
// are spaced 2 x this + 1 items closer to stay within the kernel's tile.
// A warp's worth, and at most an eighth of a tile's items (tiles of 64 x 1
// have 32: shifts of 4), so that the spacing keeps three quarters of the
// tile (plan::planned_tile_shift). Counted on the host (spmv-bench
// --plans): rajat01's tiles cut 4 rows (31 with even tiles), EVA's 1 (3),
// powerlaw's 2970 (6675). Not measured against other shifts.
inline constexpr int kPlanTileShift = 32;
// The planned tiles' shape on small matrices with a long row (the rule's
// one-launch merge, planned): threads a tile and merge-path items a thread
// walks; the tile holds threads x items - 32 items (csr_merge's tiles, a
// warp's worth short for line-aligned loads). The shapes the tile kernel
// is built for are kPlanTileThreadChoices x kPlanTileItemChoices (and
// csr_merge's own, kMergeThreads x kMergeItems); spmv-bench --candidates
// times each on small matrices with a long row (auto=plan-tiles<T>x<I>).
// 256 x 5 (the one-launch merge's shape, the first default): on the H100 (the
// first run above), rajat01 43 tiles, 4 cut rows, 7.49 us, 0.910x cuSPARSE's
// COO ALG1 (6.82 us), auto_csr (the rule's one-launch merge, 256 threads)
// 1.000x; EVA 13 tiles, 1 cut row, 6.85 us, 1.023x COO ALG1 (7.01 us), auto_csr
// 0.965x. spmv-bench --candidates --min-time 0.1 later on the same H100 (ms;
// the timer's steps are about 0.0002 ms here): rajat01 plan-tiles 0.0075
// against cusparse_coo_alg1 0.0066 and merge1L256 0.0068; EVA 0.0068 against
// 0.0068; adder_dcop_05 0.0068 against 0.0066 (its rule, stream52L, 0.0057);
// hangGlider_2 0.0068 against 0.0066 (stream32L 0.0053). rajat01 is
// launch-latency bound (43 tiles on 132 SMs, each thread walking about 5
// items): smaller tiles of fewer items are the shapes to time. Set from
// auto=plan-tiles<T>x<I> on those four matrices (tools/bench-plan-check --steps
// small-tiles, one run on the H100, ms): 128 threads x 3 items was the fastest
// shape on both matrices that take tiles, rajat01 0.0065 (175 tiles, 8 cut
// rows) and EVA 0.0065 (54 tiles, 4 cut rows), against cusparse_coo_alg1 0.0067
// on both; 256 x 5 took 0.0076 and 0.0069, 64 x 1 0.0082 on both, the other
// shapes 0.0066-0.0080. In the run of the plan as it is now (above): rajat01
// 6.53 us against COO ALG1's 6.98 (1.069x), EVA 6.37 us against 7.01 (1.101x);
// its small-tiles step had 128 x 3 the fastest again on rajat01 (0.0065 against
// 0.0069) and level with 256 x 2 and 256 x 3 on EVA (0.0065 against 0.0071).
struct PlanTileShape {
  int threads;
  int items;
};
inline constexpr PlanTileShape kPlanSmallTiles{128, 3};
inline constexpr std::array<int, 3> kPlanTileThreadChoices{64, 128, 256};
inline constexpr std::array<int, 4> kPlanTileItemChoices{1, 2, 3, 5};

}  // namespace spmv::reference::tuning
