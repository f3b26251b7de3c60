// Kernel "coo": y = A * x with A in coordinate format (COO).
//
// Layout (docs/handout.md#coo, contract/include/spmv/contract/coo.h): entry
// e, 0 <= e < nnz, is the triple (row_idx[e], col_idx[e], values[e]); the
// entries are sorted by row. A row may have no entry at all.
#include <cstdint>

#include "spmv/contract/coo.h"

namespace {

// One thread per entry, in a grid-stride loop: a thread takes entries
// first, first + stride, ... so a grid of bounded size covers any nnz.
[[maybe_unused]] __global__ void coo_kernel(std::int32_t nnz, const std::int32_t* __restrict__ row_idx,
                                            const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                            const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = first; e < nnz; e += stride) {
    // TODO: add values[e] * x[col_idx[e]] to y[row_idx[e]]. Threads of other
    // entries of the same row add to the same y at the same time: the
    // addition must be atomic (atomicAdd).
  }
}

}  // namespace

spmv_status spmv_coo([[maybe_unused]] const spmv_coo_view* A, [[maybe_unused]] const float* x,
                     [[maybe_unused]] float* y, [[maybe_unused]] void* scratch, [[maybe_unused]] cudaStream_t stream) {
  // TODO: replace the return below with the launch.
  //   - y holds garbage (the grader fills it with NaN) and the kernel only
  //     adds, so first set y[0 .. A->rows) to 0 on `stream`
  //     (cudaMemsetAsync, or a kernel); rows without entries stay 0.
  //   - then launch coo_kernel on `stream`, enough blocks (of e.g. 256
  //     threads) for A->nnz entries; with no entries launch nothing (a grid
  //     of 0 blocks is an error); with A->rows == 0 there is nothing to do.
  //   - return cudaGetLastError() after the launches.
  //   - no cudaMalloc and no synchronization (cudaDeviceSynchronize, ...):
  //     the grader enqueues and times the launch, then waits itself.
  return SPMV_NOT_IMPLEMENTED;
}
