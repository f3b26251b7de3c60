// Kernel "csr_scalar": y = A * x with A in compressed sparse row format
// (CSR), one thread per row.
//
// Layout (docs/handout.md#csr, contract/include/spmv/contract/csr.h): row r
// holds entries row_ptr[r] .. row_ptr[r+1]-1 of col_idx and values;
// row_ptr[r] == row_ptr[r+1] means row r is empty.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

// One thread per row, in a grid-stride loop: a thread takes rows first,
// first + stride, ... so a grid of bounded size covers any row count.
[[maybe_unused]] __global__ void csr_scalar_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                                                   const std::int32_t* __restrict__ col_idx,
                                                   const float* __restrict__ values, const float* __restrict__ x,
                                                   float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = first; row < rows; row += stride) {
    // TODO: sum values[j] * x[col_idx[j]] over the row's entries and store
    // the sum in y[row] with = (not +=: y holds garbage). An empty row
    // stores 0.
  }
}

}  // namespace

spmv_status spmv_csr_scalar([[maybe_unused]] const spmv_csr_view* A, [[maybe_unused]] const float* x,
                            [[maybe_unused]] float* y, [[maybe_unused]] void* scratch,
                            [[maybe_unused]] cudaStream_t stream) {
  // TODO: replace the return below with the launch.
  //   - launch csr_scalar_kernel on `stream` with enough blocks (of e.g. 256
  //     threads) for A->rows rows; with A->rows == 0 launch nothing (a grid
  //     of 0 blocks is an error).
  //   - every row of y must be written, empty rows too.
  //   - return cudaGetLastError() after the launch.
  //   - no cudaMalloc and no synchronization: the grader times the launch.
  return SPMV_NOT_IMPLEMENTED;
}
