// Textbook CSR vector: G threads per row, strided partial sums, shuffle reduction.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

template <int G>
__global__ void csr_vector_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                                  const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                  const float* __restrict__ x, float* __restrict__ y) {
  constexpr int kWarpSize = 32;
  constexpr int kRowsPerWarp = kWarpSize / G;
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t warp = thread / kWarpSize;
  const std::int64_t warps_in_grid = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  const int lane_in_warp = static_cast<int>(threadIdx.x) % kWarpSize;
  const int lane = lane_in_warp % G;
  for (std::int64_t first_row = warp * kRowsPerWarp; first_row < rows; first_row += warps_in_grid * kRowsPerWarp) {
    const std::int64_t row = first_row + lane_in_warp / G;
    float sum = 0.0f;
    if (row < rows) {
      for (std::int64_t j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += G) {
        sum += values[j] * x[col_idx[j]];
      }
    }
    for (int offset = G / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffff, sum, offset, G);
    }
    if (lane == 0 && row < rows) {
      y[row] = sum;
    }
  }
}

__global__ void csr_vector_kernel_warp(int num_rows, const int* row_ptr, const int* col_idx, const float* values,
                                       const float* x, float* y) {
  int thread_id = blockIdx.x * blockDim.x + threadIdx.x;
  int warp_id = thread_id / 32;
  int lane = thread_id & 31;
  int row = warp_id;
  if (row < num_rows) {
    float sum = 0;
    for (int jj = row_ptr[row] + lane; jj < row_ptr[row + 1]; jj += 32) {
      sum += values[jj] * x[col_idx[jj]];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffff, sum, offset);
    }
    if (lane == 0) {
      y[row] = sum;
    }
  }
}

template <int G>
cudaError_t launch(const spmv_csr_view* A, const float* x, float* y, cudaStream_t stream) {
  const int threads = 256;
  const std::int64_t blocks = (static_cast<std::int64_t>(A->rows) * G + threads - 1) / threads;
  csr_vector_kernel<G>
      <<<static_cast<unsigned int>(blocks), threads, 0, stream>>>(A->rows, A->row_ptr, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}

}  // namespace

spmv_status spmv_csr_vector(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  if (A->rows == 0) return cudaSuccess;
  const double mean = static_cast<double>(A->nnz) / A->rows;
  if (mean <= 2) return launch<2>(A, x, y, stream);
  if (mean <= 4) return launch<4>(A, x, y, stream);
  if (mean <= 8) return launch<8>(A, x, y, stream);
  if (mean <= 16) return launch<16>(A, x, y, stream);
  return launch<32>(A, x, y, stream);
}
