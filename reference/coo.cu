// Reference COO kernel: y set to zero, then one thread per entry adds its
// product to its row with atomicAdd (the textbook kernel, grid-stride so any
// nnz fits one launch). Many entries of a row add to the same word, so the
// summation order varies between runs: results are not bitwise repeatable.
#include "common.cuh"
#include "spmv/contract/coo.h"

namespace spmv::reference {
namespace {

__global__ void coo_kernel(std::int32_t nnz, const std::int32_t* __restrict__ row_idx,
                           const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                           const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t stride = grid_thread_count();
  for (std::int64_t e = grid_thread_index(); e < nnz; e += stride) {
    atomicAdd(&y[row_idx[e]], values[e] * __ldg(&x[col_idx[e]]));
  }
}

}  // namespace

cudaError_t enqueue_coo_accumulate(const spmv_coo_view& A, const float* x, float* y, cudaStream_t stream) {
  if (A.nnz == 0) return cudaSuccess;
  coo_kernel<<<grid_blocks(A.nnz), tuning::kBlockSize, 0, stream>>>(A.nnz, A.row_idx, A.col_idx, A.values, x, y);
  return cudaGetLastError();
}

}  // namespace spmv::reference

spmv_status spmv_coo(const spmv_coo_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  if (A->rows == 0) return SPMV_SUCCESS;
  // The kernel only adds, and y arrives holding garbage; rows without
  // entries keep this zero.
  const cudaError_t zeroed = cudaMemsetAsync(y, 0, sizeof(float) * static_cast<size_t>(A->rows), stream);
  if (zeroed != cudaSuccess) return zeroed;
  return spmv::reference::enqueue_coo_accumulate(*A, x, y, stream);
}
