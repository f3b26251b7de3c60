// Kernel "csr_vector": y = A * x with A in compressed sparse row format
// (CSR), a group of G threads per row.
//
// Layout (docs/handout.md#csr, contract/include/spmv/contract/csr.h): row r
// holds entries row_ptr[r] .. row_ptr[r+1]-1 of col_idx and values;
// row_ptr[r] == row_ptr[r+1] means row r is empty.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

// G threads (a power of two, 2 .. 32) share a row: lane t of the group sums
// entries row_ptr[r] + t, + t + G, ..., then the group adds its G partial
// sums with __shfl_down_sync (offsets G/2, G/4, ..., 1, width G) and lane 0
// writes y[r]. Thread counts rows * G can pass 2^31: indices are 64-bit.
template <int G>
[[maybe_unused]] __global__ void csr_vector_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                                                   const std::int32_t* __restrict__ col_idx,
                                                   const float* __restrict__ values, const float* __restrict__ x,
                                                   float* __restrict__ y) {
  constexpr int kWarpSize = 32;
  static_assert(G >= 2 && G <= kWarpSize && (G & (G - 1)) == 0, "G: a power of two up to the warp size");
  constexpr int kRowsPerWarp = kWarpSize / G;
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t warp = thread / kWarpSize;
  const std::int64_t warps_in_grid = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  const int lane_in_warp = static_cast<int>(threadIdx.x) % kWarpSize;
  [[maybe_unused]] const int lane = lane_in_warp % G;  // this thread's place in its row's group
  // Rows are handed out a warp (kRowsPerWarp rows) at a time, so the 32
  // lanes of a warp run the same iterations and all reach every shuffle.
  for (std::int64_t first_row = warp * kRowsPerWarp; first_row < rows; first_row += warps_in_grid * kRowsPerWarp) {
    [[maybe_unused]] const std::int64_t row = first_row + lane_in_warp / G;  // may be >= rows
    // TODO: this lane's partial sum over the row's entries (0 when
    // row >= rows), the reduction within the group (__shfl_down_sync with
    // the full mask 0xffffffff: every lane of the warp is here), and the
    // write of y[row] by lane 0 when row < rows, with = (y holds garbage).
  }
}

}  // namespace

spmv_status spmv_csr_vector([[maybe_unused]] const spmv_csr_view* A, [[maybe_unused]] const float* x,
                            [[maybe_unused]] float* y, [[maybe_unused]] void* scratch,
                            [[maybe_unused]] cudaStream_t stream) {
  // TODO: replace the return below with the launch.
  //   - choose G from the mean row length A->nnz / A->rows (e.g. 2 up to a
  //     mean of 2, 4 up to 4, 8 up to 8, 16 up to 16, else 32) and launch
  //     csr_vector_kernel<G> on `stream` with enough blocks (of e.g. 256
  //     threads, a multiple of 32) for A->rows * G threads, computed in 64
  //     bits; with A->rows == 0 launch nothing.
  //   - every row of y must be written, empty rows too.
  //   - return cudaGetLastError() after the launch.
  //   - no cudaMalloc and no synchronization: the grader times the launch.
  return SPMV_NOT_IMPLEMENTED;
}
