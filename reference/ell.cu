// Reference ELL (ELLPACK-R) kernel: one thread per row walks the row's real
// slots. Slots are stored column-major, so at each step the threads of a
// warp read consecutive addresses; row_length stops each row at its real
// entries instead of scanning the padding.
#include "common.cuh"
#include "spmv/contract/ell.h"

namespace {

using spmv::reference::grid_thread_count;
using spmv::reference::grid_thread_index;

__global__ void ell_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_length,
                           const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                           const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t stride = grid_thread_count();
  for (std::int64_t row = grid_thread_index(); row < rows; row += stride) {
    const std::int32_t length = row_length[row];
    float sum = 0.0F;
    for (std::int32_t k = 0; k < length; ++k) {
      const std::size_t slot =
          static_cast<std::size_t>(k) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(row);
      sum += values[slot] * __ldg(&x[col_idx[slot]]);
    }
    y[row] = sum;
  }
}

}  // namespace

spmv_status spmv_ell(const spmv_ell_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  if (A->rows == 0) return SPMV_SUCCESS;
  ell_kernel<<<spmv::reference::grid_blocks(A->rows), spmv::reference::tuning::kBlockSize, 0, stream>>>(
      A->rows, A->row_length, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
