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
// csr_rows with this many loads in flight: rows of 9-16 entries in one round
// of loads and one of gathers, where kRowsLoads takes two of each (bcspwr10,
// rows of up to 14: 4.38 us on the H100 with kRowsLoads, level with
// cuSPARSE's sliced ELL). Timed by spmv-bench --candidates as auto=rows16;
// not yet measured.
inline constexpr int kRowsWideLoads = 16;

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
//
// Changed from the first H200 run of the 52-matrix real suite
// (docs/performance.md, "H200: the 52-matrix suite"; spmv-bench --suite real
// --min-time 0.1, us, speedups over the fastest cuSPARSE algorithm), from
// the tuning half's matrices only:
// - a mean of kAutoSmallVectorMean or more, or a longest row of
//   kAutoSmallBlockRow or more (cases 3 and 4 above): csr_vector's own
//   kernel (its group from kCsrVectorGroups, one load a lane) instead of 8
//   lanes of 4 loads or row blocks by the longest row. A small matrix has
//   few rows; more lanes a row are more threads in flight. csr_vector
//   against the rule's choice then (auto's time): bcsstk13 4.22 against
//   4.61 (1.477x, 1.354x), crystk01 4.45 against 4.83 (1.482x, 1.364x),
//   dwt_992 3.71 both, vibrobox 5.86 against 5.79 (1.158x, 1.171x); zenios
//   4.06 against 4.45 (1.386x, 1.266x), bayer10 4.61 both (1.076x), ibm13
//   6.91 against 8.00 (1.032x, 0.892x), finan512 6.69 against 9.50 (1.043x,
//   0.734x), fe_body 5.66 against 5.82 (0.944x, 0.918x; csr_stream by the
//   mean 5.31, 1.006x).
// - skewed rows whose row blocks (by the longest row) number more than
//   kAutoSmallRowBlocksMax: csr_merge (kAutoSmallRowBlocksMax below); since
//   the 57-matrix run, its tiles in one launch.
// - a longest row above kAutoSmallMergeLaunchRow: csr_merge (below).
// - row blocks that sum long rows with the whole block: only while they
//   number at most kAutoSmallLongRowBlocksMax (below).
inline constexpr std::int64_t kAutoSmallPath = std::int64_t{1} << 20;
inline constexpr std::int64_t kAutoSmallMergeRow = 512;
// Small matrices with a row longer than this: csr_merge (a partition kernel,
// then the tiles), not the one-launch merge's planned tiles. H200, tuning
// half (us, planned tiles of 128 x 3 against csr_merge): BOYD2, longest
// row 10,992, 7.58 against 8.19 (0.966x, 0.895x); mult_dcop_01, 22,767,
// 8.80 against 7.65 (0.767x, 0.883x); BOYD1, 93,261, 10.75 against 8.42
// (0.866x, 1.106x). 2^14 lies between 10,992 and 22,767 (31 and 65 tiles'
// items of a row).
inline constexpr std::int64_t kAutoSmallMergeLaunchRow = std::int64_t{1} << 14;
// Skewed small matrices (case 2 above): row blocks by the longest row while
// they number at most this (one wave: 132 SMs x kRowBlockMinBlocks resident
// blocks); beyond, their stages run nearly empty in waves, and csr_merge
// takes them. H200, tuning half: polblogs, 298 blocks of 5 rows, 4.93 us
// (1.227x, the fastest there); lp_e226, 13 blocks, 4.42 (1.181x; csr_vector
// 4.26, 1.226x); astro-ph, 3,342 blocks of 5 rows, 13.15 us (0.528x)
// against csr_merge's 8.16 (0.851x) and csr_vector's 8.77 (0.792x).
// Beyond it, csr_merge's tiles in one launch (kAutoSmallTileThreads), not
// its two launches: in the 57-matrix run (spmv-bench --suite real
// --candidates --min-time 0.05 --iterations 20 --max-time 1), astro-ph, the
// tuning half's one matrix here, 7.26 us against 8.19 (csr_vector 8.80).
inline constexpr std::int64_t kAutoSmallRowBlocksMax = 132 * kRowBlockMinBlocks;
// Row blocks whose long rows the whole block sums (kRowBlockLongRow), for
// a longest row above kAutoSmallMergeRow up to this: not yet measured when
// written; the measurement is in docs/performance.md.
inline constexpr std::int64_t kAutoSmallLongRowMax = 1536;
// Such row blocks while they number at most this, one block an SM of an
// H100 or H200; more, and csr_merge's tiles in one launch take the matrix.
// The stream's time grows with its blocks here, the merge's stays near one
// launch. H200, the 57-matrix run (above), tuning half, us (the stream's
// blocks; the one-launch merge of kAutoSmallTileThreads): adder_dcop_05,
// 35 blocks of 52 rows, 5.34 against 6.37; wiki-Vote, 189 of 44, 14.43
// against 6.72; Groebner_id2003_aug, 293 of 17, 17.63 against 6.72 (EVA,
// 17 blocks of 511, holds more than a stage in a block: settle_row_blocks
// sends it to the merge either way). 132 lies between 35 and 189.
inline constexpr std::int64_t kAutoSmallLongRowBlocksMax = 132;
inline constexpr double kAutoSmallVectorMean = 16.0;
inline constexpr std::int64_t kAutoSmallBlockRow = 24;
// Small matrices that get csr_rows (the last case above) with a longest row
// of kRowsLoads + 1 to kRowsWideLoads: csr_rows with kRowsWideLoads loads in
// flight when on. Off until auto=rows16 is measured against auto=rows and
// cuSPARSE on the real suite (docs/performance.md); not yet measured.
inline constexpr bool kAutoSmallRowsWide = false;
inline constexpr int kAutoSmallTileThreads = kMergeSingleSmallThreads;
inline constexpr double kAutoSkewFactor = 4.0;
inline constexpr double kAutoSkewSlack = 32.0;
// Below this mean (large matrices, rows not skewed): row blocks of as many
// rows as fit at the mean row length, not at the longest row. H200, tuning
// half: USA-road-COL (mean 2.39, longest row 8), by the longest row 256
// rows a block, 8.93 us (1.029x the fastest cuSPARSE algorithm), by the
// mean 511 rows, 7.17 us (1.281x), in one run of spmv-bench --candidates
// (its csr_scalar 7.36, 1.248x). The synthetic shortrows (mean 2, longest
// row 4) gets 511 rows either way.
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
// the rule: gm 1.134x, 4 behind). The run of the plan with the first
// thresholds (--steps build,bench,small-tiles; powerlaw on the rule,
// kPlanSmallTiles 128 x 3; 0 WRONG of 480 kernel runs): real gm 1.187x,
// min 1.045x; synthetic gm 1.265x, min 1.002x (shortrows); all 30 gm
// 1.207x, 0 behind (auto_csr gm 1.129x, 4 behind). The choices these runs
// measured are recorded at each constant below. The first thresholds:
// packed slices past 2^20 merge-path items, for a mean row of at most 32,
// padding of at most 10% and at most 0.90 of CSR's bytes, the long slices'
// kernel 8 loads x 6 blocks.
//
// The thresholds of the choice and the packed slices' kernel shapes are
// plan::PlanSettings' defaults (plan_layout.hpp): spmv-bench
// --sweep-thresholds times auto's plan at several values of each on
// generated matrices on either side of its default, both kinds of plan
// timed on each matrix (docs/performance.md, "The threshold sweep"). Its
// first run, on the H100 (tools/bench-plan-check --steps build,thresholds:
// 180 s with the build, 317 kernel runs, 0 WRONG, every plan the one
// expected), set the values below. At each value: its time over the
// fastest plan of each matrix of the series and its speedup over the
// fastest cuSPARSE algorithm, geometric means over the series' matrices.
// Where packed slices were faster on every matrix tried, a bound stops at
// the last matrix measured, not at the largest value tried; the sweep now
// has matrices past each new bound (noted at each). The new values have
// not yet been run through the suites (tools/bench-plan-check --steps
// bench).
//
// Packed slices, where the first thresholds put them (speedup over the
// fastest cuSPARSE algorithm, the second run above; the first within
// 0.006x of these): stencil2d 1.293x, stencil27 1.756x, stencil7 1.460x,
// banded 1.683x (100% diagonal slices; 131.7-176.3% of a same-size copy's
// bandwidth), shortrows 440.93 us against sell_alg1's 441.86 us, 1.002x
// (100% 32-bit slices, 8.25 bytes an entry; auto_csr 0.956x). random kept
// the rule's row blocks (0.975 of CSR's bytes, past 0.90), 1.019x, and
// longrows the rule's csr_vector kernel, 1.144x (1.194x in the first run).
// Every other real matrix keeps the rule, unchanged, 1.045x-1.476x
// (bayer10 1.045x, bcspwr10 1.051x, Pd 1.057x). With the values below
// (spmv-bench --plans): random takes 32-bit slices, the four regular
// matrices the 4 x 4 kernel instead of 8 x 6, shortrows keeps the 2 x 8
// one; every real matrix keeps its plan (none has slices: all lie under
// kPlanSlicesMinPath).
//
// Packed slices past a merge path (rows + entries) of this many items.
// First kAutoSmallPath (2^20): the rule's single launches are 1.04-1.47x
// the fastest cuSPARSE algorithm there (all but rajat01 and EVA), and a
// plan of slices moves fewer bytes where bytes matter little. The sweep's
// slices_min_path (2D 5-point and 3D 7-point stencils, merge paths of
// 0.39M-6.3M items; ms, packed slices against the rule): the rule faster
// on s2d-256 (392,192 items, 0.0043 against 0.0044) and s2d-362 (784,816,
// 0.0048 against 0.0049), packed slices on the other nine, from s3d7-40
// (502,400, 0.0044 against 0.0045) up; at these sizes (4-6 us, launch
// latency mostly) the timer's steps are about 0.0002 ms, so the change
// lies around 2^19, within them. Fastest value 2^19: 1.0031x the fastest,
// 1.150x cuSPARSE; 2^20 1.0113x, 1.141x; 0 and 2^18 1.0064x; 2^21-2^23
// 1.051-1.102x. So packed slices now reach into the upper half of the
// rule's small matrices (2^19 to kAutoSmallPath, single launches in the
// rule; the slices are one launch too). The real suite's small regular
// matrices (jagmesh7, 3elt, Pd, delaunay_n16, luxembourg_osm) stay below
// it (delaunay_n16, the largest, 458,686 items). The sweep now has
// stencils on either side of 2^19 (s2d-295 520,970 and s2d-296 524,512
// items; s3d7-40 502,400 and s3d7-41 541,282).
inline constexpr std::int64_t kPlanSlicesMinPath = std::int64_t{1} << 19;
// Packed slices for a mean row of at most this: a thread per row walks its
// slots kPlanSliceLoads at a time, where the rule gives long rows groups
// of lanes (longrows, rows of 2000: csr_vector's kernel, 8 lanes a row,
// 1.18x). First 32. The sweep's slices_max_mean (bands of 24M entries,
// half-bandwidth 8-32, mean rows 17-65; the rule's csr_vector kernel, 8
// lanes of 4 loads, on each): packed slices faster on every band, 1.59-1.83x
// the rule (band-h32, mean 65: 0.0415 against 0.0758 ms). Fastest value
// 128, the largest tried (every band on slices): 1.0000x the fastest,
// 1.628x cuSPARSE; 64 (all but band-h32) 1.0783x, 1.510x; 32 1.3220x,
// 1.231x. Then 64, under the widest band measured. The second sweep
// (bands of half-bandwidth 8-128, means 17-257; H100, the run below
// kPlanSlicesMaxPadding's) found packed slices faster on every band again,
// and the rule behind cuSPARSE from mean 97 on: band-h48 (mean 97) slices
// 0.0384 ms, rule 0.0792, cuSPARSE SELL 0.0693; band-h128 (mean 256.8)
// 0.0476, 0.0825, 0.0708. Set to 260, just past the widest band measured
// (at 256, band-h128 itself would keep the rule, behind cuSPARSE).
inline constexpr double kPlanSlicesMaxMean = 260.0;
// On small matrices (a merge path of at most kAutoSmallPath items), packed
// slices only for a mean row below this: the mean from which the rule gives
// a row lanes of csr_vector (kAutoSmallVectorMean), where the slices' thread
// per row walks the row alone. kPlanSlicesMaxMean was set on bands of 24M
// entries, hundreds of thousands of rows; a small matrix has a few
// thousand, a few warps an SM. H200, tuning half (us): bcsstk33 (8,738
// rows, mean 67.7, 16-bit slices) 14.53 (0.507x) against the rule's 5.89
// (8 lanes of 4 loads, 1.250x) and csr_vector's 5.86 (1.257x); atco_enc1
// (mean 4.2, 16-bit slices) 5.15 (1.236x) against the rule's csr_rows 4.99
// (1.276x), one step of the timer apart, keeps its slices.
inline constexpr double kPlanSmallSlicesMaxMean = kAutoSmallVectorMean;
// Packed slices when a sliced ELL of the rows (slices of 32, unsorted)
// pads the entries by at most this fraction. First 0.10, the bound
// sell_params_for uses for sigma = 1 (every regular suite matrix is within
// 2%). The sweep's slices_max_padding (bands of rows of 16 +- 0..12
// entries, padding 0-72.8%, and bands of 17 with 5, 10, 20% of their rows
// emptied, 5.3-25.0%; the rule's csr_vector kernel on each): packed slices
// faster on every matrix, by less as the padding grows (spread-s0 1.62x,
// s4 1.37x, s8 1.22x, s12 at 72.8% 1.07x: 0.0683 against 0.0730 ms).
// Fastest value 1, the largest tried (every matrix on slices): 1.0000x the
// fastest, 1.497x cuSPARSE; 0.6 (all but spread-s12) 1.0061x, 1.488x; 0.10
// 1.2238x, 1.224x. Then 0.75, just past the most padded matrix measured.
// Diagonal slices (4 bytes a slot) padded beyond about 100% move more
// bytes than CSR (8 an entry, 4 a row), 32-bit ones (8 a slot) on rows of
// 16 beyond 3%: there kPlanSlicesMaxBytes turns them down whatever this
// bound. The second sweep (tools/bench-plan-check --steps thresholds on
// the H100; cut short by the call's time limit after these thresholds,
// its rows in the CSV) added spread bands of +- 14 and 16 (84.6%, 96.4%)
// and bands with 40-65% of their rows emptied (66.7-186%): packed slices
// faster wherever the bytes bound let them be built, up to 100% (spread-s16
// 0.0675 against 0.0757 ms; band-e0.5, 100%, 0.0381 against 0.0491, where
// the rule is behind cuSPARSE's 0.0466); band-e0.6 and e0.65 (150%, 186%)
// keep the rule by the bytes bound. Set to 1.05, just past the most padded
// matrix measured with slices built (band-e0.5: 100.002%, its edge rows
// pad a little more than half its rows emptied; at 1.0 it would keep the
// rule, behind cuSPARSE).
inline constexpr double kPlanSlicesMaxPadding = 1.05;
// Packed slices, once laid out, only where a product through them moves
// at most this share of the bytes a CSR product moves (x and y counted in
// both; spmv-bench --plans computes both): where they would move more, the
// rule's measured kernel stays. First 0.90. The sweep's slices_max_bytes
// (random rows of 1, 2, 3, 4, 8, 16 entries, 32-bit slices at 0.825-0.975
// of CSR's bytes; rows of 16 with 25, 50, 75% of the slices in a
// 30,000-column window, 16-bit there, 0.918-0.804): packed slices faster on
// every matrix, up to rand-k16 at 0.975 (0.2014 against the rule's row
// blocks' 0.2053 ms, 1.02x). Fastest value 1, the largest tried (every
// matrix on slices): 1.0000x the fastest, 1.043x cuSPARSE; 0.96 1.0021x;
// 0.90 1.0346x, 1.008x. Set to 1: packed slices wherever they move no more
// bytes than CSR. The sweep now adds random rows of 32 +- 1, 16 +- 1 and
// 16 +- 2 entries, whose padding costs more than the row pointers save
// (1.017, 1.032, 1.089 of CSR's bytes), and values up to 1.10.
inline constexpr double kPlanSlicesMaxBytes = 1.0;
// Slots a thread loads together (values and column words) before the x
// gathers that use them, and resident blocks of 256 asked of the compiler
// for that kernel. First 8 x 6 (a stencil row of 5 or 7 in one round trip
// of loads and one of gathers; six blocks in 40 registers). The sweep's
// slice_kernel (the 9 shapes of kPlanSliceLoadChoices x
// kPlanSliceMinBlockChoices, packed slices forced, on the suite's
// stencil2d, stencil27 and stencil7, band-h12, spread-s4 and rand-k8:
// slices 5-27 slots wide): 4 loads the fastest on all but rand-k8, 4 x 4
// 1.0011x the fastest shape of each matrix and 1.583x cuSPARSE, 4 x 6
// 1.0018x, 4 x 8 1.0027x, 8 x 6 1.1111x and 1.426x (ms, 4 x 4 against 8 x
// 6: stencil2d 0.0539/0.0598, stencil27 0.0408/0.0462, stencil7
// 0.0469/0.0520, band-h12 0.0374/0.0423, spread-s4 0.0440/0.0520, rand-k8
// 0.2043/0.2052, where 16 x 4 took 0.2033); 8 x 4 1.24x, 16 x 4 1.20x, 16 x
// 6 1.51x, 8 x 8 1.71x, 16 x 8 2.60x. The 4-load kernel holds 32 registers
// whatever the blocks asked (ptxas, sm_90): every thread of an SM
// resident, where 8 x 6 leaves 75%. 4 x 4, 4 x 6 and 4 x 8 build alike and
// differ by under 0.2%, the timer's noise; 4 x 4, the fastest measured.
inline constexpr int kPlanSliceLoads = 4;
inline constexpr int kPlanSliceMinBlocks = 4;
// Slices of at most kPlanShortSliceLoads slots (shortrows: rows of 2 random
// columns, bound by the x gathers, where resident warps are what keeps
// gathers in flight) take a kernel loading that many slots together,
// asked for kPlanShortSliceMinBlocks resident blocks of 256: 30 registers
// without spilling (ptxas, sm_90), every thread of an SM resident. The
// sweep's short_slice_kernel (the 6 shapes of kPlanShortSliceLoadChoices x
// kPlanShortSliceMinBlockChoices, packed slices forced, on random rows of
// 1, 2, 3 and 4 entries; slices wider than a shape's loads ran on the long
// kernel, then 8 x 6): every shape within 0.15% (1 x 6 1.0001x the
// fastest, 2 x 8 1.0011x, 4 x 8 1.0015x; 1.006-1.008x cuSPARSE), the
// timer's noise, so 2 x 8 stays. With the long kernel now 4 x 4, at full
// occupancy too, slices of 3 and 4 slots (and of 2 under a 1-load short
// kernel) run on it: the next sweep times them so.
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
// Timed on the H100 by the sweep's slice_kernel and short_slice_kernel
// (above).
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
// The rule's one-launch merge is planned into tiles only for a longest row
// above kAutoSmallMergeRow: the tiles' gain is cutting long rows evenly.
// Without such a row (skewed rows whose row blocks would be too many,
// kAutoSmallRowBlocksMax) the rule's merge runs as it is. H200, the
// 57-matrix run (kAutoSmallRowBlocksMax), tuning half: astro-ph (longest
// row 360), planned tiles 8.48 us against the one-launch merge's 7.26.
// Planned tiles, once laid out, only where at most this share of the tiles'
// count are cut rows (handed over through the plan's slots); otherwise the
// rule's one-launch merge (kAutoSmallTileThreads). H200, tuning half (us,
// planned tiles of 128 x 3 against the rule's one-launch merge of 256):
// EVA 4 cut rows in 54 tiles (7.4%), 5.86 against 6.91 (1.071x, 0.907x);
// BOYD2 9 in 2,777 (0.3%), 7.58 against 9.66; wiki-Vote 107 in 391 (27.4%),
// 8.29 against 6.82 (0.772x, 0.939x); Groebner_id2003_aug 269 in 623 (43.2%), 8.29
// against 6.69 (0.772x, 0.957x). 1/8 lies between 7.4% and 27.4%.
inline constexpr double kPlanTilesMaxCutShare = 0.125;
inline constexpr std::array<int, 3> kPlanTileThreadChoices{64, 128, 256};
inline constexpr std::array<int, 4> kPlanTileItemChoices{1, 2, 3, 5};

}  // namespace spmv::reference::tuning
