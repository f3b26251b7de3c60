// HYB = my ELL kernel for the regular part, then atomics for the overflow.
#include <cstdint>

#include "spmv/contract/hyb.h"

namespace {

__global__ void overflow_entries(std::int32_t count, const std::int32_t* rows_of, const std::int32_t* cols_of,
                                 const float* vals, const float* in, float* out) {
  std::int64_t step = (std::int64_t)gridDim.x * blockDim.x;
  for (std::int64_t n = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; n < count; n += step)
    atomicAdd(out + rows_of[n], vals[n] * __ldg(in + cols_of[n]));
}

}  // namespace

spmv_status spmv_hyb(const spmv_hyb_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  spmv_status first = spmv_ell(&A->ell, x, y, scratch, stream);
  if (first != SPMV_SUCCESS || A->coo.nnz <= 0) return first;
  std::int64_t blocks = (A->coo.nnz + 127) / 128;
  if (blocks > 1024) blocks = 1024;
  overflow_entries<<<(unsigned int)blocks, 128, 0, stream>>>(A->coo.nnz, A->coo.row_idx, A->coo.col_idx,
                                                              A->coo.values, x, y);
  return cudaGetLastError();
}
