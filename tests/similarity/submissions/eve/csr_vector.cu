// My csr_vector. Width-W teams per row, shuffle sum at the end.
#include <cstdint>

#include "spmv/contract/csr.h"

namespace {

constexpr int kBlock = 256;
constexpr std::int64_t kGridCap = 4096;
constexpr int kWarp = 32;

unsigned int num_blocks(std::int64_t work) {
  const std::int64_t need = (work + kBlock - 1) / kBlock;
  return static_cast<unsigned int>(need < 1 ? 1 : (need > kGridCap ? kGridCap : need));
}

__device__ inline std::int64_t my_index() { return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline std::int64_t all_threads() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

// The body of the kernel, kept in one place.
#define TEAM_BODY(W, LOADS)                                                                                          \
  constexpr int kTeamsPerWarp = kWarp / W;                                                                           \
  const int warp_lane = static_cast<int>(threadIdx.x) % kWarp;                                                       \
  const int seat = warp_lane % W;                                                                                    \
  const std::int64_t wid = my_index() / kWarp;                                                                       \
  const std::int64_t advance = all_threads() / kWarp * kTeamsPerWarp;                                                \
  for (std::int64_t base = wid * kTeamsPerWarp; base < n; base += advance) {                                         \
    const std::int64_t r = base + warp_lane / W;                                                                     \
    float acc = 0.0F;                                                                                                \
    if (r < n) {                                                                                                     \
      if constexpr (LOADS == 1) {                                                                                    \
        const std::int64_t stop = offsets[r + 1];                                                                    \
        for (std::int64_t q = static_cast<std::int64_t>(offsets[r]) + seat; q < stop; q += W) {                      \
          acc += coeff[q] * __ldg(&vec[cols[q]]);                                                                    \
        }                                                                                                            \
      }                                                                                                              \
    }                                                                                                                \
    for (int d = W / 2; d > 0; d /= 2) {                                                                             \
      acc += __shfl_down_sync(0xffffffffU, acc, d, W);                                                               \
    }                                                                                                                \
    if (seat == 0 && r < n) out[r] = acc;                                                                            \
  }

template <int W, int LOADS>
cudaError_t run_team(const spmv_csr_view& M, const float* vec, float* out, cudaStream_t s);

cudaError_t pick_team(const spmv_csr_view& M, int w, const float* vec, float* out, cudaStream_t s) {
  switch (w) {
    case 2: return run_team<2, 1>(M, vec, out, s);
    case 4: return run_team<4, 1>(M, vec, out, s);
    case 8: return run_team<8, 1>(M, vec, out, s);
    case 16: return run_team<16, 1>(M, vec, out, s);
    case 32: return run_team<32, 1>(M, vec, out, s);
    default: return cudaErrorInvalidConfiguration;
  }
}

int team_width(const spmv_csr_view& M) {
  const double avg = static_cast<double>(M.nnz) / static_cast<double>(M.rows);
  if (avg <= 2) return 2;
  if (avg <= 4) return 4;
  if (avg <= 8) return 8;
  if (avg <= 16) return 16;
  return 32;
}

template <int W, int LOADS>
__global__ void team_kernel(std::int32_t n, const std::int32_t* __restrict__ offsets,
                            const std::int32_t* __restrict__ cols, const float* __restrict__ coeff,
                            const float* __restrict__ vec, float* __restrict__ out) {
  static_assert(W >= 2 && W <= kWarp && (W & (W - 1)) == 0, "W must be a power of two up to 32");
  TEAM_BODY(W, LOADS)
}

template <int W, int LOADS>
cudaError_t run_team(const spmv_csr_view& M, const float* vec, float* out, cudaStream_t s) {
  const auto grid = num_blocks(static_cast<std::int64_t>(M.rows) * W);
  team_kernel<W, LOADS><<<grid, kBlock, 0, s>>>(M.rows, M.row_ptr, M.col_idx, M.values, vec, out);
  return cudaGetLastError();
}

}  // namespace

spmv_status spmv_csr_vector(const spmv_csr_view* A, const float* x, float* y, void* /*unused*/, cudaStream_t stream) {
  if (A->rows == 0) return SPMV_SUCCESS;
  return pick_team(*A, team_width(*A), x, y, stream);
}
