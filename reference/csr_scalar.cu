// Reference CSR scalar kernel: one thread per row sums its entries and
// writes the row. Neighbouring threads read far-apart addresses and a warp
// waits for its longest row; csr_vector addresses both.
#include "common.cuh"
#include "spmv/contract/csr.h"

namespace {

using spmv::reference::grid_blocks;
using spmv::reference::grid_thread_count;
using spmv::reference::grid_thread_index;
namespace tuning = spmv::reference::tuning;

__global__ void csr_scalar_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                                  const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                  const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t stride = grid_thread_count();
  for (std::int64_t row = grid_thread_index(); row < rows; row += stride) {
    const std::int32_t end = row_ptr[row + 1];
    float sum = 0.0F;
    for (std::int32_t j = row_ptr[row]; j < end; ++j) {
      sum += values[j] * __ldg(&x[col_idx[j]]);
    }
    y[row] = sum;
  }
}

}  // namespace

cudaError_t spmv::reference::enqueue_csr_scalar(const spmv_csr_view& A, const float* x, float* y, cudaStream_t stream) {
  if (A.rows == 0) return cudaSuccess;
  csr_scalar_kernel<<<grid_blocks(A.rows), tuning::kBlockSize, 0, stream>>>(A.rows, A.row_ptr, A.col_idx, A.values, x,
                                                                            y);
  return cudaGetLastError();
}

spmv_status spmv_csr_scalar(const spmv_csr_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  return spmv::reference::enqueue_csr_scalar(*A, x, y, stream);
}
