// Textbook ELL (ELLPACK-R): one thread per row over its column-major slots.
#include <cstdint>

#include "spmv/contract/ell.h"

namespace {

__global__ void ell_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_length,
                           const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                           const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = first; row < rows; row += stride) {
    float sum = 0.0f;
    for (std::int32_t k = 0; k < row_length[row]; ++k) {
      const std::size_t slot = static_cast<std::size_t>(k) * rows + row;
      sum += values[slot] * x[col_idx[slot]];
    }
    y[row] = sum;
  }
}

__global__ void ell_kernel_simple(int num_rows, int num_elem, const int* row_length, const int* col_idx,
                                  const float* values, const float* x, float* y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < num_rows) {
    float dot = 0;
    for (int i = 0; i < row_length[row]; i++) {
      dot += values[row + i * num_rows] * x[col_idx[row + i * num_rows]];
    }
    y[row] = dot;
  }
}

}  // namespace

spmv_status spmv_ell(const spmv_ell_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  if (A->rows == 0) return cudaSuccess;
  const int threads = 256;
  const int blocks = (A->rows + threads - 1) / threads;
  ell_kernel<<<blocks, threads, 0, stream>>>(A->rows, A->row_length, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
