// Reference sliced ELL (SELL-C-sigma) kernel: one thread per sorted row
// (position). The C threads of a slice read slot k of their rows at
// consecutive addresses, and a slice is only as wide as its own longest row,
// so padding is what sorting within sigma-row windows left over: little on
// regular matrices, where this kernel streams nearly nothing but the
// entries.
#include "common.cuh"
#include "spmv/contract/sell.h"

namespace spmv::reference {
namespace {

constexpr int kThreads = tuning::kSellBlockSize;

__global__ void __launch_bounds__(kThreads)
    sell_kernel(std::int32_t rows, std::int32_t slice_height, const std::int64_t* __restrict__ slice_ptr,
                const std::int32_t* __restrict__ row_perm, const std::int32_t* __restrict__ col_idx,
                const float* __restrict__ values, const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t stride = grid_thread_count();
  for (std::int64_t position = grid_thread_index(); position < rows; position += stride) {
    const std::int64_t slice = position / slice_height;
    const std::int64_t lane = position - slice * slice_height;
    const std::int64_t begin = slice_ptr[slice];
    const auto width = static_cast<std::int32_t>((slice_ptr[slice + 1] - begin) / slice_height);
    const std::int32_t* col = col_idx + begin + lane;
    const float* value = values + begin + lane;
    float sum = 0.0F;
    // Every slot of the slice is read, padding included (there is little
    // after sorting): with no early exit, the unrolled loads of several
    // slots are in flight together; only the x gather is skipped on padding.
    // The pointers step by the slice height: no 64-bit multiply per load,
    // which measured 6% faster on the 27-point stencil (H100).
#pragma unroll 4
    for (std::int32_t k = 0; k < width; ++k) {
      const std::int32_t c = load_matrix<true>(col);
      const float v = load_matrix<true>(value);
      col += slice_height;
      value += slice_height;
      if (c >= 0) sum += v * __ldg(&x[c]);
    }
    y[row_perm != nullptr ? row_perm[position] : position] = sum;
  }
}

}  // namespace
}  // namespace spmv::reference

spmv_status spmv_sell(const spmv_sell_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  using namespace spmv::reference;
  if (A->rows == 0) return SPMV_SUCCESS;
  sell_kernel<<<grid_blocks(A->rows), kThreads, 0, stream>>>(A->rows, A->slice_height, A->slice_ptr, A->row_perm,
                                                             A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
