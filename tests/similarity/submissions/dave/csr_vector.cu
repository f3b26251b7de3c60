// csr_vector: a team of TEAM threads works on one row at a time. The team
// combines its lanes' sums with butterfly shuffles; its first member
// writes the result.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

template <int TEAM>
__device__ float combine(float part) {
#pragma unroll
  for (int bit = TEAM >> 1; bit >= 1; bit >>= 1) part += __shfl_xor_sync(0xffffffffu, part, bit, TEAM);
  return part;
}

template <int TEAM>
__global__ void team_kernel(std::int32_t count, const std::int32_t* starts, const std::int32_t* columns,
                            const float* coeffs, const float* vec, float* result) {
  const std::int64_t me = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x;
  const std::int64_t everyone = (std::int64_t)gridDim.x * blockDim.x;
  const int seat = threadIdx.x & (TEAM - 1);
  const std::int64_t teams_per_sweep = everyone / TEAM;
  const std::int64_t first_team = (me / 32) * (32 / TEAM);
  for (std::int64_t origin = first_team; origin < count; origin += teams_per_sweep) {
    const std::int64_t which = origin + (threadIdx.x & 31) / TEAM;
    float total = 0.0f;
    if (which < count) {
      const std::int32_t last = starts[which + 1];
      for (std::int32_t q = starts[which] + seat; q < last; q += TEAM) total += coeffs[q] * __ldg(vec + columns[q]);
    }
    total = combine<TEAM>(total);
    if (seat == 0 && which < count) result[which] = total;
  }
}

template <int TEAM>
cudaError_t fire(const spmv_csr_view* M, const float* in, float* out, cudaStream_t s) {
  std::int64_t lanes = (std::int64_t)M->rows * TEAM;
  std::int64_t grid = (lanes + 255) / 256;
  if (grid > 4096) grid = 4096;
  team_kernel<TEAM><<<(unsigned int)grid, 256, 0, s>>>(M->rows, M->row_ptr, M->col_idx, M->values, in, out);
  return cudaGetLastError();
}

}  // namespace

spmv_status spmv_csr_vector(const spmv_csr_view* A, const float* x, float* y, void*, cudaStream_t stream) {
  if (A->rows <= 0) return cudaSuccess;
  const std::int64_t mean = (A->nnz + A->rows - 1) / A->rows;
  if (mean > 16) return fire<32>(A, x, y, stream);
  if (mean > 8) return fire<16>(A, x, y, stream);
  if (mean > 4) return fire<8>(A, x, y, stream);
  if (mean > 2) return fire<4>(A, x, y, stream);
  return fire<2>(A, x, y, stream);
}
