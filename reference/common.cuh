// Launch geometry and helpers shared by the reference kernel files.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "spmv/contract/coo.h"
#include "tuning.hpp"

namespace spmv::reference {

inline constexpr int kWarpSize = 32;
static_assert(tuning::kBlockSize % kWarpSize == 0, "blocks must hold whole warps");

// Blocks of tuning::kBlockSize threads for `threads` threads (64-bit: rows
// times threads per row exceeds int32), capped at tuning::kMaxGridBlocks
// (kernels loop over the rest) and never 0, which is an invalid launch.
inline unsigned int grid_blocks(std::int64_t threads) {
  const std::int64_t wanted = (threads + tuning::kBlockSize - 1) / tuning::kBlockSize;
  return static_cast<unsigned int>(std::clamp<std::int64_t>(wanted, 1, tuning::kMaxGridBlocks));
}

// This thread's index in the grid, and the grid's size, for grid-stride loops.
__device__ inline std::int64_t grid_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_thread_count() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

// Enqueues y[row_idx[e]] += values[e] * x[col_idx[e]] for every COO entry
// (atomically); y must already hold values. coo zeroes y first, hyb runs it
// after its ELL pass. Defined in coo.cu.
cudaError_t enqueue_coo_accumulate(const spmv_coo_view& A, const float* x, float* y, cudaStream_t stream);

}  // namespace spmv::reference
