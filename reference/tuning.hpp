// Tuning constants of the reference kernels, kept apart from the kernel code.
//
// Every value below is a starting point to be measured on the course's
// H100 (sm_90, 132 SMs, 2048 resident threads per SM); when one changes,
// note here what was measured (matrix, bandwidth) and on which GPU.
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
inline constexpr double kAutoSkewFactor = 4.0;
inline constexpr double kAutoSkewSlack = 32.0;
inline constexpr double kAutoScalarMinMean = 4.0;
inline constexpr double kAutoScalarMaxMean = 12.0;
inline constexpr double kAutoLocalSpan = 0.125;
inline constexpr std::int64_t kAutoRowBlockMaxRow = 64;
inline constexpr int kAutoLoadsPerLane = 4;
inline constexpr int kAutoMaxGroup = 8;

}  // namespace spmv::reference::tuning
