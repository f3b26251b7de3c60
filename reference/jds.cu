// Reference JDS kernel: one thread per sorted row k walks the jagged
// diagonals; row k's d-th entry sits at jd_ptr[d] + k, so the threads of a
// warp read consecutive addresses of each diagonal. Diagonals only get
// shorter, so a row stops at the first diagonal too short to reach it. The
// sum goes to the row's original position, row_perm[k].
#include "common.cuh"
#include "spmv/contract/jds.h"

namespace {

using spmv::reference::grid_thread_count;
using spmv::reference::grid_thread_index;

__global__ void jds_kernel(std::int32_t rows, std::int32_t num_diagonals, const std::int32_t* __restrict__ row_perm,
                           const std::int32_t* __restrict__ jd_ptr, const std::int32_t* __restrict__ col_idx,
                           const float* __restrict__ values, const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t stride = grid_thread_count();
  for (std::int64_t k = grid_thread_index(); k < rows; k += stride) {
    float sum = 0.0F;
    std::int32_t diagonal_start = jd_ptr[0];
    for (std::int32_t d = 0; d < num_diagonals; ++d) {
      const std::int32_t diagonal_end = jd_ptr[d + 1];
      if (k >= diagonal_end - diagonal_start) break;
      const std::int64_t e = diagonal_start + k;
      sum += values[e] * __ldg(&x[col_idx[e]]);
      diagonal_start = diagonal_end;
    }
    y[row_perm[k]] = sum;
  }
}

}  // namespace

spmv_status spmv_jds(const spmv_jds_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  if (A->rows == 0) return SPMV_SUCCESS;
  jds_kernel<<<spmv::reference::grid_blocks(A->rows), spmv::reference::tuning::kBlockSize, 0, stream>>>(
      A->rows, A->num_diagonals, A->row_perm, A->jd_ptr, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
