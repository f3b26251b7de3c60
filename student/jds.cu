// Kernel "jds": y = A * x with A in jagged diagonal storage (JDS).
//
// Layout (docs/handout.md#jds, contract/include/spmv/contract/jds.h): rows
// sorted by decreasing length; row_perm[k] is the original row of the k-th
// longest. Jagged diagonal d holds the d-th entry of every sorted row that
// has one: entries jd_ptr[d] .. jd_ptr[d+1]-1, so sorted row k's d-th entry
// is at jd_ptr[d] + k, and exists iff k < jd_ptr[d+1] - jd_ptr[d].
// Diagonal lengths never increase; empty rows come last.
#include <cstdint>

#include "spmv/contract/jds.h"

namespace {

// One thread per sorted row k, in a grid-stride loop over sorted rows.
[[maybe_unused]] __global__ void jds_kernel(std::int32_t rows, std::int32_t num_diagonals,
                                            const std::int32_t* __restrict__ row_perm,
                                            const std::int32_t* __restrict__ jd_ptr,
                                            const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                            const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = first; k < rows; k += stride) {
    // TODO: walk the diagonals d = 0, 1, ... while sorted row k has an entry
    // on d (the first diagonal too short ends the row: later ones are no
    // longer), add values[e] * x[col_idx[e]] with e = jd_ptr[d] + k, and
    // store the sum in y[row_perm[k]] (not y[k]) with =. Empty rows store 0.
  }
}

}  // namespace

spmv_status spmv_jds([[maybe_unused]] const spmv_jds_view* A, [[maybe_unused]] const float* x,
                     [[maybe_unused]] float* y, [[maybe_unused]] void* scratch, [[maybe_unused]] cudaStream_t stream) {
  // TODO: replace the return below with the launch.
  //   - launch jds_kernel on `stream` with enough blocks (of e.g. 256
  //     threads) for A->rows sorted rows; with A->rows == 0 launch nothing.
  //   - every row of y must be written, empty rows too.
  //   - return cudaGetLastError() after the launch.
  //   - no cudaMalloc and no synchronization: the grader times the launch.
  return SPMV_NOT_IMPLEMENTED;
}
