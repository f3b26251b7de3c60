// JDS: each thread takes a sorted row and steps down the diagonals; the
// loop ends at the first diagonal that is too short for it.
#include <cstdint>

#include "spmv/contract/jds.h"

namespace {

__global__ void jagged(std::int32_t n_rows, std::int32_t n_diag, const std::int32_t* perm,
                       const std::int32_t* starts, const std::int32_t* cols, const float* vals, const float* in,
                       float* out) {
  std::int64_t step = (std::int64_t)gridDim.x * blockDim.x;
  for (std::int64_t s = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; s < n_rows; s += step) {
    float acc = 0.0f;
    int d = 0;
    std::int32_t here = starts[0];
    std::int32_t next = n_diag > 0 ? starts[1] : 0;
    while (d < n_diag && here + s < next) {
      const std::int32_t at = here + (std::int32_t)s;
      acc += vals[at] * __ldg(in + cols[at]);
      ++d;
      here = next;
      if (d < n_diag) next = starts[d + 1];
    }
    out[perm[s]] = acc;
  }
}

}  // namespace

spmv_status spmv_jds(const spmv_jds_view* A, const float* x, float* y, void*, cudaStream_t stream) {
  if (A->rows <= 0) return cudaSuccess;
  std::int64_t blocks = (A->rows + 127) / 128;
  if (blocks > 2048) blocks = 2048;
  jagged<<<(unsigned int)blocks, 128, 0, stream>>>(A->rows, A->num_diagonals, A->row_perm, A->jd_ptr, A->col_idx,
                                                   A->values, x, y);
  return cudaGetLastError();
}
