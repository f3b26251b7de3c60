// COO: clear y, then every thread accumulates its entries with atomics.
// I launch at most 1024 blocks and let each thread walk the rest.
#include <cstdint>

#include "spmv/contract/coo.h"

namespace {

constexpr int kThreads = 128;

unsigned int blocks_for(std::int64_t work) {
  std::int64_t blocks = (work + kThreads - 1) / kThreads;
  if (blocks > 1024) blocks = 1024;
  return blocks < 1 ? 1u : static_cast<unsigned int>(blocks);
}

__global__ void zero_rows(std::int32_t n, float* out) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n; i += (std::int64_t)gridDim.x * blockDim.x)
    out[i] = 0.0f;
}

__global__ void scatter_products(std::int32_t count, const std::int32_t* rows_of, const std::int32_t* cols_of,
                                 const float* vals, const float* in, float* out) {
  std::int64_t step = (std::int64_t)gridDim.x * blockDim.x;
  for (std::int64_t n = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; n < count; n += step) {
    float product = vals[n] * __ldg(in + cols_of[n]);
    if (product != 0.0f) atomicAdd(out + rows_of[n], product);
  }
}

}  // namespace

spmv_status spmv_coo(const spmv_coo_view* A, const float* x, float* y, void*, cudaStream_t stream) {
  if (A->rows <= 0) return cudaSuccess;
  zero_rows<<<blocks_for(A->rows), kThreads, 0, stream>>>(A->rows, y);
  if (A->nnz > 0)
    scatter_products<<<blocks_for(A->nnz), kThreads, 0, stream>>>(A->nnz, A->row_idx, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
