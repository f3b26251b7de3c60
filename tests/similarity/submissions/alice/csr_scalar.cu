// CSR scalar with a small twist: the row bounds are read once into
// registers and the inner loop is unrolled by two.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

__device__ float row_dot(std::int32_t begin, std::int32_t end, const std::int32_t* cols, const float* vals,
                         const float* in) {
  float even = 0.0f, odd = 0.0f;
  std::int32_t p = begin;
  for (; p + 1 < end; p += 2) {
    even += vals[p] * __ldg(in + cols[p]);
    odd += vals[p + 1] * __ldg(in + cols[p + 1]);
  }
  if (p < end) even += vals[p] * __ldg(in + cols[p]);
  return even + odd;
}

__global__ void scalar_rows(std::int32_t n_rows, const std::int32_t* ptr, const std::int32_t* cols,
                            const float* vals, const float* in, float* out) {
  std::int64_t step = (std::int64_t)gridDim.x * blockDim.x;
  for (std::int64_t r = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; r < n_rows; r += step)
    out[r] = row_dot(ptr[r], ptr[r + 1], cols, vals, in);
}

}  // namespace

spmv_status spmv_csr_scalar(const spmv_csr_view* A, const float* x, float* y, void*, cudaStream_t stream) {
  if (A->rows <= 0) return cudaSuccess;
  std::int64_t blocks = (A->rows + 127) / 128;
  if (blocks > 2048) blocks = 2048;
  scalar_rows<<<(unsigned int)blocks, 128, 0, stream>>>(A->rows, A->row_ptr, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
