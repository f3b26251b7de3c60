// Launch geometry and helpers shared by the reference kernel files.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "spmv/contract/coo.h"
#include "spmv/contract/csr.h"
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

// A load of matrix data each SpMV reads exactly once. With kStreaming it
// carries the evict-first hint (ld.global.cs), so the matrix streaming
// through L2 does not push out the lines of x that later gathers reuse.
template <bool kStreaming, typename T>
__device__ inline T load_matrix(const T* address) {
  if constexpr (kStreaming) {
    return __ldcs(address);
  } else {
    return *address;
  }
}

// A block's tile of entries held kItems a thread, loaded coalesced with the
// evict-first hint. load() issues all of a thread's loads before any is
// used, so an SM has enough bytes in flight to keep the memory system busy;
// stage_products() then gathers x and writes each entry's product to shared
// memory. csr_merge's tiles and csr_stream's row blocks stage their entries
// with it (coo_segmented loads a row index with each entry, interleaved,
// which keeps its registers low).
//
// A tile rarely starts on a 128-byte line, and a warp's 32 loads of a
// misaligned stretch touch two lines: two L2 requests instead of one, on a
// path where L2 requests are the limit once x is gathered at random. So
// when the tile leaves room, its entries go to slots shifted by `lead`
// (the first entry's offset in its line): slot i holds entry
// first - lead + i, and every warp's loads fall on one line.
template <int kThreads, int kItems>
struct TileEntries {
  static constexpr int kSlots = kThreads * kItems;
  std::int32_t col[kItems];
  float value[kItems];
  int lead;

  // `Index` is the type of the tile's first entry index: int32 where it
  // fits (fewer registers than 64-bit address arithmetic), int64 otherwise.
  template <typename Index>
  __device__ void load(const std::int32_t* __restrict__ col_idx, const float* __restrict__ values, Index first,
                       int count) {
    constexpr int kLine = 32;  // entries of 4 bytes in a 128-byte line
    lead = static_cast<int>(first % kLine);
    if (count + lead > kSlots) lead = 0;
    const Index base = first - lead;
    const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int i = tid + k * kThreads;
      if (static_cast<unsigned int>(i - lead) < static_cast<unsigned int>(count)) {
        col[k] = load_matrix<true>(&col_idx[base + i]);
        value[k] = load_matrix<true>(&values[base + i]);
      }
    }
  }

  // product[j] = the tile's entry j times its x, for j < count.
  __device__ void stage_products(const float* __restrict__ x, float* product, int count) const {
    const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int j = tid + k * kThreads - lead;
      if (static_cast<unsigned int>(j) < static_cast<unsigned int>(count)) product[j] = value[k] * __ldg(&x[col[k]]);
    }
  }
};

// Enqueues y[row_idx[e]] += values[e] * x[col_idx[e]] for every COO entry
// (atomically); y must already hold values. coo zeroes y first, hyb runs it
// after its ELL pass. Defined in coo.cu.
cudaError_t enqueue_coo_accumulate(const spmv_coo_view& A, const float* x, float* y, cudaStream_t stream);

// The CSR kernels auto picks from, with the choice made by the caller:
// csr_scalar's kernel, and csr_vector's with `threads_per_row` threads
// (2, 4, 8, 16 or 32) per row, each lane loading `loads_per_lane` entries
// (1, csr_vector's own, or tuning::kAutoLoadsPerLane) before using them.
// Defined in csr_scalar.cu, csr_vector.cu.
cudaError_t enqueue_csr_scalar(const spmv_csr_view& A, const float* x, float* y, cudaStream_t stream);
cudaError_t enqueue_csr_vector(const spmv_csr_view& A, int threads_per_row, int loads_per_lane, const float* x,
                               float* y, cudaStream_t stream);

// Row blocks (csr_row_blocks.cu): `rows_per_block` consecutive rows a block,
// their entries staged in shared memory (see choose_csr_kernel for the
// number). With `long_rows`, rows longer than tuning::kRowBlockLongRow are
// summed by the whole block.
cudaError_t enqueue_csr_row_blocks(const spmv_csr_view& A, int rows_per_block, const float* x, float* y,
                                   cudaStream_t stream, bool long_rows = false);

// csr_rows (csr_rows.cu): a thread per row, `loads` of its entries loaded
// together (tuning::kRowsLoads or tuning::kRowsWideLoads; any other count is
// cudaErrorInvalidValue), no grid-stride loop (a row a thread).
cudaError_t enqueue_csr_rows(const spmv_csr_view& A, int loads, const float* x, float* y, cudaStream_t stream);

// csr_merge's tiles in one launch (csr_merge.cu): tiles of `tile_threads`
// (tuning::kMergeSingleTinyThreads, kMergeSingleSmallThreads or
// kMergeSingleLargeThreads) x
// tuning::kMergeItems slots, each finding its own ends (kept in scratch
// like csr_merge's and checked before use). merge_single_scratch_size is
// the scratch that needs.
cudaError_t enqueue_csr_merge_single(const spmv_csr_view& A, int tile_threads, const float* x, float* y, void* scratch,
                                     cudaStream_t stream);
std::size_t merge_single_scratch_size(const spmv_csr_view& A, int tile_threads);

}  // namespace spmv::reference
