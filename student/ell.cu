// Kernel "ell": y = A * x with A in ELLPACK-R format (ELL).
//
// Layout (docs/handout.md#ell, contract/include/spmv/contract/ell.h): every
// row is padded to `width` slots, stored column-major: slot k of row r is at
// index (size_t)k * rows + r. Slots 0 .. row_length[r]-1 of row r are real
// entries; the padding has column -1 and value 0.
#include <cstdint>

#include "spmv/contract/ell.h"

namespace {

// One thread per row, in a grid-stride loop over rows.
[[maybe_unused]] __global__ void ell_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_length,
                                            const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                            const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = first; row < rows; row += stride) {
    // TODO: for k < row_length[row], add values[slot] * x[col_idx[slot]]
    // with slot = (size_t)k * rows + row (in 64 bits: rows * width may pass
    // 2^31), and store the sum in y[row] with = (y holds garbage).
  }
}

}  // namespace

spmv_status spmv_ell([[maybe_unused]] const spmv_ell_view* A, [[maybe_unused]] const float* x,
                     [[maybe_unused]] float* y, [[maybe_unused]] void* scratch, [[maybe_unused]] cudaStream_t stream) {
  // TODO: replace the return below with the launch.
  //   - launch ell_kernel on `stream` with enough blocks (of e.g. 256
  //     threads) for A->rows rows; with A->rows == 0 launch nothing.
  //   - every row of y must be written, rows of length 0 too.
  //   - return cudaGetLastError() after the launch.
  //   - no cudaMalloc and no synchronization: the grader times the launch.
  return SPMV_NOT_IMPLEMENTED;
}
