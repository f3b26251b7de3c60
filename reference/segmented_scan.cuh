// A block-wide segmented scan over (row, partial sum) pairs, shared by the
// load-balanced kernels (csr_merge, coo_segmented).
//
// Each thread of a block walks a contiguous stretch of work and ends holding
// the partial sum of the row it stopped in. Rows are non-decreasing across
// threads, so the threads that stopped in the same row form one run, and the
// row's total over the block is the sum over that run. RowSum's operator
// below keeps the running sum while the row stays the same and restarts it
// when the row changes; on non-decreasing rows it is associative, which is
// all cub::BlockScan asks of it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_scan.cuh>

namespace spmv::reference {

struct RowSum {
  std::int32_t row;
  float sum;
};

struct ContinueRow {
  __device__ RowSum operator()(const RowSum& earlier, const RowSum& later) const {
    return later.row == earlier.row ? RowSum{later.row, earlier.sum + later.sum} : later;
  }
};

template <int kThreads>
using RowSumScan = cub::BlockScan<RowSum, kThreads>;

}  // namespace spmv::reference
