// Textbook COO: y zeroed, then one thread per entry adds its product atomically.
#include <cstdint>

#include "spmv/contract/coo.h"

namespace {

__global__ void coo_kernel(std::int32_t nnz, const std::int32_t* __restrict__ row_idx,
                           const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                           const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = first; e < nnz; e += stride) {
    atomicAdd(&y[row_idx[e]], values[e] * x[col_idx[e]]);
  }
}

__global__ void coo_kernel_simple(int nnz, const int* row_idx, const int* col_idx, const float* values, const float* x,
                                  float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nnz) {
    atomicAdd(&y[row_idx[i]], values[i] * x[col_idx[i]]);
  }
}

}  // namespace

spmv_status spmv_coo(const spmv_coo_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  if (A->rows == 0) return cudaSuccess;
  cudaMemsetAsync(y, 0, sizeof(float) * A->rows, stream);
  if (A->nnz == 0) return cudaGetLastError();
  const int threads = 256;
  const int blocks = (A->nnz + threads - 1) / threads;
  coo_kernel<<<blocks, threads, 0, stream>>>(A->nnz, A->row_idx, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
