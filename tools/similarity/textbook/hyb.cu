// Textbook HYB: the ELL pass writes y, then the COO pass adds atomically.
#include <cstdint>

#include "spmv/contract/hyb.h"

namespace {

__global__ void hyb_coo_kernel(std::int32_t nnz, const std::int32_t* __restrict__ row_idx,
                               const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                               const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = first; e < nnz; e += stride) {
    atomicAdd(&y[row_idx[e]], values[e] * x[col_idx[e]]);
  }
}

}  // namespace

spmv_status spmv_hyb(const spmv_hyb_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  const spmv_status status = spmv_ell(&A->ell, x, y, scratch, stream);
  if (status != SPMV_SUCCESS) return status;
  if (A->coo.nnz == 0) return cudaGetLastError();
  const int threads = 256;
  const int blocks = (A->coo.nnz + threads - 1) / threads;
  hyb_coo_kernel<<<blocks, threads, 0, stream>>>(A->coo.nnz, A->coo.row_idx, A->coo.col_idx, A->coo.values, x, y);
  return cudaGetLastError();
}
