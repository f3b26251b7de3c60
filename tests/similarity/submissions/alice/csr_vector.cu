// CSR vector. Each group of W lanes owns a row; partial sums are folded
// with xor shuffles so that every lane ends with the total, and the lane
// whose index in the group is 0 stores it. W follows the average row
// length, rounded up to a power of two.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

template <int W>
__device__ float fold_group(float value) {
#pragma unroll
  for (int mask = W >> 1; mask >= 1; mask >>= 1) value += __shfl_xor_sync(0xffffffffu, value, mask, W);
  return value;
}

template <int W>
__global__ void grouped_rows(std::int32_t n_rows, const std::int32_t* ptr, const std::int32_t* cols,
                             const float* vals, const float* in, float* out) {
  const std::int64_t tid = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x;
  const std::int64_t nthreads = (std::int64_t)gridDim.x * blockDim.x;
  const int member = threadIdx.x & (W - 1);
  // Whole warps iterate together: the group index is rounded so that all
  // 32 lanes leave the loop at the same time.
  const std::int64_t groups_per_pass = nthreads / W;
  const std::int64_t warp_base = (tid / 32) * (32 / W);
  for (std::int64_t base = warp_base; base < n_rows; base += groups_per_pass) {
    const std::int64_t r = base + (threadIdx.x & 31) / W;
    float acc = 0.0f;
    if (r < n_rows) {
      const std::int32_t stop = ptr[r + 1];
      for (std::int32_t p = ptr[r] + member; p < stop; p += W) acc += vals[p] * __ldg(in + cols[p]);
    }
    acc = fold_group<W>(acc);
    if (member == 0 && r < n_rows) out[r] = acc;
  }
}

template <int W>
cudaError_t start(const spmv_csr_view* A, const float* x, float* y, cudaStream_t stream) {
  std::int64_t threads = (std::int64_t)A->rows * W;
  std::int64_t blocks = (threads + 255) / 256;
  if (blocks > 4096) blocks = 4096;
  grouped_rows<W><<<(unsigned int)blocks, 256, 0, stream>>>(A->rows, A->row_ptr, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}

}  // namespace

spmv_status spmv_csr_vector(const spmv_csr_view* A, const float* x, float* y, void*, cudaStream_t stream) {
  if (A->rows <= 0) return cudaSuccess;
  const std::int64_t average = (A->nnz + A->rows - 1) / A->rows;
  if (average > 16) return start<32>(A, x, y, stream);
  if (average > 8) return start<16>(A, x, y, stream);
  if (average > 4) return start<8>(A, x, y, stream);
  if (average > 2) return start<4>(A, x, y, stream);
  return start<2>(A, x, y, stream);
}
