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

}  // namespace spmv::reference::tuning
