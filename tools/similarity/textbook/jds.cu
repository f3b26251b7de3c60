// Textbook JDS: one thread per sorted row walks the jagged diagonals.
#include <cstdint>

#include "spmv/contract/jds.h"

namespace {

__global__ void jds_kernel(std::int32_t rows, std::int32_t num_diagonals, const std::int32_t* __restrict__ row_perm,
                           const std::int32_t* __restrict__ jd_ptr, const std::int32_t* __restrict__ col_idx,
                           const float* __restrict__ values, const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = first; k < rows; k += stride) {
    float sum = 0.0f;
    for (std::int32_t d = 0; d < num_diagonals; ++d) {
      if (k >= jd_ptr[d + 1] - jd_ptr[d]) break;
      const std::int32_t e = jd_ptr[d] + static_cast<std::int32_t>(k);
      sum += values[e] * x[col_idx[e]];
    }
    y[row_perm[k]] = sum;
  }
}

__global__ void jds_kernel_simple(int num_rows, int num_diagonals, const int* row_perm, const int* jd_ptr,
                                  const int* col_idx, const float* values, const float* x, float* y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < num_rows) {
    float dot = 0;
    for (int d = 0; d < num_diagonals && row < jd_ptr[d + 1] - jd_ptr[d]; d++) {
      dot += values[jd_ptr[d] + row] * x[col_idx[jd_ptr[d] + row]];
    }
    y[row_perm[row]] = dot;
  }
}

}  // namespace

spmv_status spmv_jds(const spmv_jds_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  if (A->rows == 0) return cudaSuccess;
  const int threads = 256;
  const int blocks = (A->rows + threads - 1) / threads;
  jds_kernel<<<blocks, threads, 0, stream>>>(A->rows, A->num_diagonals, A->row_perm, A->jd_ptr, A->col_idx, A->values,
                                             x, y);
  return cudaGetLastError();
}
