// csr_rows: auto's thread per row for short, even rows (stencils of 5 and 7
// points, rows up to tuning::kAutoScalarMaxMean). It is csr_scalar's mapping
// (neighbouring threads, neighbouring rows: the lines one thread leaves
// half read are read by the next threads in the same steps), with what the
// textbook kernel leaves out: kLoads of a row's entries are loaded
// together, with the evict-first hint, before the x gathers that use them,
// so a row of up to kLoads entries is one round trip of entries and one of
// gathers; and a thread takes one row (no grid-stride loop), so the last
// wave of a launch is no longer than one row. The sum runs in the row's
// order, as csr_scalar's. kLoads is tuning::kRowsLoads (auto's) or
// tuning::kRowsWideLoads (one round for rows of 9-16; auto's rule picks it
// only with tuning::kAutoSmallRowsWide on).
#include "common.cuh"
#include "spmv/contract/csr.h"

namespace spmv::reference {
namespace {

constexpr int kThreads = tuning::kBlockSize;

template <int kLoads>
__global__ void __launch_bounds__(kThreads)
    rows_kernel(std::int32_t rows, const std::int32_t* __restrict__ row_ptr, const std::int32_t* __restrict__ col_idx,
                const float* __restrict__ values, const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t row = grid_thread_index();
  if (row >= rows) return;
  const std::int32_t begin = __ldg(&row_ptr[row]);
  const std::int32_t end = __ldg(&row_ptr[row + 1]);
  float sum = 0.0F;
  for (std::int32_t first = begin; first < end; first += kLoads) {
    std::int32_t col[kLoads];
    float value[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      if (first + k < end) {
        col[k] = load_matrix<true>(&col_idx[first + k]);
        value[k] = load_matrix<true>(&values[first + k]);
      }
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      if (first + k < end) sum += value[k] * __ldg(&x[col[k]]);
    }
  }
  y[row] = sum;
}

template <int kLoads>
cudaError_t launch_rows(const spmv_csr_view& A, const float* x, float* y, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned int>((static_cast<std::int64_t>(A.rows) + kThreads - 1) / kThreads);
  rows_kernel<kLoads><<<blocks, kThreads, 0, stream>>>(A.rows, A.row_ptr, A.col_idx, A.values, x, y);
  return cudaGetLastError();
}

}  // namespace

cudaError_t enqueue_csr_rows(const spmv_csr_view& A, int loads, const float* x, float* y, cudaStream_t stream) {
  if (loads != tuning::kRowsLoads && loads != tuning::kRowsWideLoads) return cudaErrorInvalidValue;
  if (A.rows == 0) return cudaSuccess;
  return loads == tuning::kRowsWideLoads ? launch_rows<tuning::kRowsWideLoads>(A, x, y, stream)
                                         : launch_rows<tuning::kRowsLoads>(A, x, y, stream);
}

}  // namespace spmv::reference
