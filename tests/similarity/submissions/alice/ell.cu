// ELL: thread per row, walking its slots until row_length.
#include <cstdint>

#include "spmv/contract/ell.h"

namespace {

__global__ void ell_rows(std::int32_t n_rows, const std::int32_t* lengths, const std::int32_t* cols,
                         const float* vals, const float* in, float* out) {
  std::int64_t step = (std::int64_t)gridDim.x * blockDim.x;
  for (std::int64_t r = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; r < n_rows; r += step) {
    const int len = lengths[r];
    const float* v = vals + r;
    const std::int32_t* c = cols + r;
    float acc = 0.0f;
    for (int s = 0; s < len; ++s) {
      acc += *v * __ldg(in + *c);
      v += n_rows;
      c += n_rows;
    }
    out[r] = acc;
  }
}

}  // namespace

spmv_status spmv_ell(const spmv_ell_view* A, const float* x, float* y, void*, cudaStream_t stream) {
  if (A->rows <= 0) return cudaSuccess;
  std::int64_t blocks = (A->rows + 127) / 128;
  if (blocks > 2048) blocks = 2048;
  ell_rows<<<(unsigned int)blocks, 128, 0, stream>>>(A->rows, A->row_length, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
