// auto's row classes (plan_layout.hpp): the rows grouped by length, a
// thread, a warp or a block a row, in one launch. The table of classes is
// the kernel's argument (__grid_constant__: read in place from the
// launch's parameters, never copied), so the first loads a thread issues
// are its row's entries and its row's index, together; then the gathers
// of x; then the store. Two dependent round trips to memory where csr_rows
// takes three (row pointers first), and no hand-over of cut rows: a long
// row is summed by one block, all its loads in flight, and stored by it.
// A thread sums its row in slot order (the row's column order), a warp and
// a block by a reduction of fixed shape: the same bits every run.
#include "plan_kernels.cuh"

namespace spmv::reference {
namespace {

constexpr int kThreads = plan::kClassBlockThreads;
constexpr int kWarpsPerBlock = kThreads / kWarpSize;
constexpr int kThreadLoads = tuning::kClassThreadLoads;
constexpr int kWarpItems = plan::kClassWarpRowMax / kWarpSize;  // slots a lane loads, at most
constexpr int kBlockItems = plan::kClassLongRowMax / kThreads;  // slots a thread of a block loads, at most
static_assert(plan::kClassWarpLanes == kWarpSize, "a warp class's row is summed by one warp");
static_assert(kThreads % kWarpSize == 0 && kThreads <= kWarpSize * kWarpSize, "a block's partial sums fit a warp");

__device__ __forceinline__ float warp_sum(float sum) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffU, sum, offset);
  return sum;
}

// The class of this warp: the last with first_warp <= warp. Every entry is
// compared, independently of the others: no chain of dependent reads.
__device__ __forceinline__ int class_of(const plan::RowClassTable& table, std::int32_t warp) {
  int index = 0;
#pragma unroll
  for (int c = 1; c < plan::kMaxRowClasses; ++c) {
    index += (c < table.count && table.classes[c].first_warp <= warp) ? 1 : 0;
  }
  return index;
}

// A thread a row: its slots column-major, loaded kThreadLoads at a time
// before their gathers (rows of the class are all `width` long).
__device__ __forceinline__ void sum_thread_row(const plan::RowClass& c, std::int32_t warp, int lane,
                                               const std::int32_t* __restrict__ row_of,
                                               const float* __restrict__ values, const std::int32_t* __restrict__ col,
                                               const float* __restrict__ x, float* __restrict__ y) {
  const std::int32_t i = (warp - c.first_warp) * kWarpSize + lane;
  if (i >= c.rows) return;
  const std::int32_t row = load_matrix<true>(&row_of[c.first_row + i]);
  float sum = 0.0F;
  for (std::int32_t first = 0; first < c.width; first += kThreadLoads) {
    std::int32_t column[kThreadLoads];
    float value[kThreadLoads];
#pragma unroll
    for (int k = 0; k < kThreadLoads; ++k) {
      if (first + k < c.width) {
        const std::int32_t slot = c.first_slot + (first + k) * c.rows + i;
        column[k] = load_matrix<true>(&col[slot]);
        value[k] = load_matrix<true>(&values[slot]);
      }
    }
#pragma unroll
    for (int k = 0; k < kThreadLoads; ++k) {
      if (first + k < c.width) sum += value[k] * __ldg(&x[column[k]]);
    }
  }
  y[row] = sum;
}

// A row's share for one lane of `kLanes` (a warp or a block): slots lane,
// lane + kLanes, ... of the row's `width`, all loaded before any gather;
// padding (column -1) gathers nothing.
template <int kLanes, int kItems>
__device__ __forceinline__ float lane_share(const plan::RowClass& c, std::int32_t base, int lane,
                                            const float* __restrict__ values, const std::int32_t* __restrict__ col,
                                            const float* __restrict__ x) {
  std::int32_t column[kItems];
  float value[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (k * kLanes < c.width) {
      column[k] = load_matrix<true>(&col[base + k * kLanes + lane]);
      value[k] = load_matrix<true>(&values[base + k * kLanes + lane]);
    }
  }
  float sum = 0.0F;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (k * kLanes < c.width && column[k] >= 0) sum += value[k] * __ldg(&x[column[k]]);
  }
  return sum;
}

__global__ void __launch_bounds__(kThreads)
    row_classes_kernel(const __grid_constant__ plan::RowClassTable table, const std::int32_t* __restrict__ row_of,
                       const float* __restrict__ values, const std::int32_t* __restrict__ col,
                       const float* __restrict__ x, float* __restrict__ y) {
  __shared__ float warp_sums[kWarpsPerBlock];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp_in_block = static_cast<int>(threadIdx.x) / kWarpSize;
  const auto warp = static_cast<std::int32_t>(blockIdx.x) * kWarpsPerBlock + warp_in_block;
  const plan::RowClass& c = table.classes[class_of(table, warp)];
  if (c.lanes == 1) {
    sum_thread_row(c, warp, lane, row_of, values, col, x, y);
    return;
  }
  if (c.lanes == kWarpSize) {
    const std::int32_t r = warp - c.first_warp;
    if (r >= c.rows) return;
    const std::int32_t row = row_of[c.first_row + r];
    const float sum = warp_sum(lane_share<kWarpSize, kWarpItems>(c, c.first_slot + r * c.width, lane, values, col, x));
    if (lane == 0) y[row] = sum;
    return;
  }
  // A block a row: block classes start on a block, so the whole block is
  // of one class and one row, and leaves or stays together.
  const std::int32_t r = (warp - c.first_warp) / kWarpsPerBlock;
  if (r >= c.rows) return;
  const std::int32_t row = row_of[c.first_row + r];
  const float sum = warp_sum(
      lane_share<kThreads, kBlockItems>(c, c.first_slot + r * c.width, static_cast<int>(threadIdx.x), values, col, x));
  if (lane == 0) warp_sums[warp_in_block] = sum;
  __syncthreads();
  if (warp_in_block == 0) {
    const float total = warp_sum(lane < kWarpsPerBlock ? warp_sums[lane] : 0.0F);
    if (lane == 0) y[row] = total;
  }
}

}  // namespace

cudaError_t enqueue_row_classes(const RowClassesView& A, const float* x, float* y, cudaStream_t stream) {
  if (A.blocks == 0 || A.table.count == 0) return cudaSuccess;
  row_classes_kernel<<<static_cast<unsigned int>(A.blocks), kThreads, 0, stream>>>(A.table, A.row_of, A.values, A.col,
                                                                                   x, y);
  return cudaGetLastError();
}

}  // namespace spmv::reference
