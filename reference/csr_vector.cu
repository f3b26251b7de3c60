// Reference CSR vector kernel: a group of G threads shares each row. Lane t
// of the group reads entries t, t + G, ... of the row, so a group's reads are
// contiguous; the G partial sums meet through __shfl_down_sync and lane 0
// writes the row. G comes from the mean row length (tuning.hpp), chosen on
// the host, and is a template parameter so the reduction unrolls.
//
// auto runs the same kernel with kLoads = tuning::kAutoLoadsPerLane: each
// lane loads that many of its entries before using any (more loads in
// flight per warp), so a group covers G * kLoads entries of its row a step.
#include "common.cuh"
#include "spmv/contract/csr.h"

namespace {

using spmv::reference::grid_thread_count;
using spmv::reference::grid_thread_index;
using spmv::reference::kWarpSize;
namespace tuning = spmv::reference::tuning;

template <int G, int kLoads>
__global__ void csr_vector_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                                  const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                  const float* __restrict__ x, float* __restrict__ y) {
  static_assert(G >= 2 && G <= kWarpSize && (G & (G - 1)) == 0, "G: a power of two up to the warp size");
  constexpr int kRowsPerWarp = kWarpSize / G;
  const int lane_in_warp = static_cast<int>(threadIdx.x) % kWarpSize;
  const int lane = lane_in_warp % G;
  const std::int64_t warp = grid_thread_index() / kWarpSize;
  const std::int64_t rows_per_grid_step = grid_thread_count() / kWarpSize * kRowsPerWarp;
  // The loop advances a whole warp at a time, so all 32 lanes take every
  // iteration and reach every shuffle, even lanes past the last row.
  for (std::int64_t first_row = warp * kRowsPerWarp; first_row < rows; first_row += rows_per_grid_step) {
    const std::int64_t row = first_row + lane_in_warp / G;
    float sum = 0.0F;
    if (row < rows) {
      if constexpr (kLoads == 1) {
        const std::int64_t end = row_ptr[row + 1];
        for (std::int64_t j = static_cast<std::int64_t>(row_ptr[row]) + lane; j < end; j += G) {
          sum += values[j] * __ldg(&x[col_idx[j]]);
        }
      } else {
        // Unsigned: step + G * kLoads stays below 2^32 for any int32 row end.
        const auto end = static_cast<std::uint32_t>(row_ptr[row + 1]);
        for (std::uint32_t step = static_cast<std::uint32_t>(row_ptr[row]) + lane; step < end; step += G * kLoads) {
          std::int32_t col[kLoads];
          float value[kLoads];
#pragma unroll
          for (int k = 0; k < kLoads; ++k) {
            const std::uint32_t j = step + k * G;
            if (j < end) {
              col[k] = spmv::reference::load_matrix<true>(&col_idx[j]);
              value[k] = spmv::reference::load_matrix<true>(&values[j]);
            }
          }
#pragma unroll
          for (int k = 0; k < kLoads; ++k) {
            if (step + k * G < end) sum += value[k] * __ldg(&x[col[k]]);
          }
        }
      }
    }
    for (int offset = G / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffU, sum, offset, G);
    }
    if (lane == 0 && row < rows) y[row] = sum;
  }
}

int threads_per_row(const spmv_csr_view& A) {
  const double mean_row_length = static_cast<double>(A.nnz) / static_cast<double>(A.rows);
  for (const tuning::CsrVectorGroup& group : tuning::kCsrVectorGroups) {
    if (mean_row_length <= group.max_mean_row_length) return group.threads_per_row;
  }
  return tuning::kCsrVectorMaxGroup;
}

template <int G, int kLoads>
cudaError_t launch(const spmv_csr_view& A, const float* x, float* y, cudaStream_t stream) {
  const auto blocks = spmv::reference::grid_blocks(static_cast<std::int64_t>(A.rows) * G);
  csr_vector_kernel<G, kLoads><<<blocks, tuning::kBlockSize, 0, stream>>>(A.rows, A.row_ptr, A.col_idx, A.values, x, y);
  return cudaGetLastError();
}

template <int kLoads>
cudaError_t launch_group(const spmv_csr_view& A, int threads_per_row, const float* x, float* y, cudaStream_t stream) {
  switch (threads_per_row) {
    case 2: return launch<2, kLoads>(A, x, y, stream);
    case 4: return launch<4, kLoads>(A, x, y, stream);
    case 8: return launch<8, kLoads>(A, x, y, stream);
    case 16: return launch<16, kLoads>(A, x, y, stream);
    case 32: return launch<32, kLoads>(A, x, y, stream);
    default: return cudaErrorInvalidConfiguration;  // a group size with no kernel
  }
}

}  // namespace

namespace spmv::reference {

cudaError_t enqueue_csr_vector(const spmv_csr_view& A, int threads_per_row, int loads_per_lane, const float* x,
                               float* y, cudaStream_t stream) {
  if (A.rows == 0) return cudaSuccess;
  switch (loads_per_lane) {
    case 1: return launch_group<1>(A, threads_per_row, x, y, stream);
    case tuning::kAutoLoadsPerLane: return launch_group<tuning::kAutoLoadsPerLane>(A, threads_per_row, x, y, stream);
    default: return cudaErrorInvalidConfiguration;
  }
}

}  // namespace spmv::reference

spmv_status spmv_csr_vector(const spmv_csr_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  if (A->rows == 0) return SPMV_SUCCESS;
  return spmv::reference::enqueue_csr_vector(*A, threads_per_row(*A), 1, x, y, stream);
}
