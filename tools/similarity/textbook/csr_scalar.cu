// Textbook CSR scalar: one thread per row sums its entries.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

__global__ void csr_scalar_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                                  const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                  const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = first; row < rows; row += stride) {
    float sum = 0.0f;
    for (std::int32_t j = row_ptr[row]; j < row_ptr[row + 1]; ++j) {
      sum += values[j] * x[col_idx[j]];
    }
    y[row] = sum;
  }
}

__global__ void csr_scalar_kernel_simple(int num_rows, const int* row_ptr, const int* col_idx, const float* values,
                                         const float* x, float* y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < num_rows) {
    float dot = 0;
    int row_start = row_ptr[row];
    int row_end = row_ptr[row + 1];
    for (int elem = row_start; elem < row_end; elem++) {
      dot += values[elem] * x[col_idx[elem]];
    }
    y[row] = dot;
  }
}

}  // namespace

spmv_status spmv_csr_scalar(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  if (A->rows == 0) return cudaSuccess;
  const int threads = 256;
  const int blocks = (A->rows + threads - 1) / threads;
  csr_scalar_kernel<<<blocks, threads, 0, stream>>>(A->rows, A->row_ptr, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
