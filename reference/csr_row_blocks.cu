// CSR by row blocks (CSR-stream): a block takes a fixed number of
// consecutive rows, chosen so that their entries fit in shared memory (auto:
// stage / longest row, which it has measured; csr_stream on its own: from
// the mean row length), loads those entries coalesced,
// stages their products and sums each row from shared memory with a group of
// threads. Unlike csr_merge it needs no partition kernel (a block's rows
// follow from its index) and no atomics (every row lies in one block), so it
// is deterministic; unlike csr_vector its loads are coalesced whatever the
// row lengths. It is one of auto's candidates, for matrices without long
// rows. A block whose entries do not fit (a row longer than the block's share
// of the stage) sums its rows from global memory instead: a warp per row,
// and the whole block for a row longer than the stage.
#include <cub/block/block_reduce.cuh>

#include "common.cuh"
#include "spmv/contract/csr.h"

namespace spmv::reference {
namespace {

constexpr int kThreads = tuning::kRowBlockThreads;
constexpr int kItems = tuning::kRowBlockItems;
constexpr int kStage = kThreads * kItems;
using BlockSum = cub::BlockReduce<float, kThreads>;
static_assert(tuning::kRowBlockMaxRows < 2 * kThreads, "row_start holds 2 * kThreads row pointers");

// kLongRows (auto's row blocks for small matrices with a few long rows):
// in a block whose entries fit the stage, rows longer than
// tuning::kRowBlockLongRow are summed by the whole block from the stage
// (one at a time, a block reduction each) instead of by the row's group,
// which would add them up serially.
template <bool kLongRows>
__global__ void __launch_bounds__(kThreads, tuning::kRowBlockMinBlocks)
    row_block_kernel(std::int32_t rows, int rows_per_block, int group, const std::int32_t* __restrict__ row_ptr,
                     const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                     const float* __restrict__ x, float* __restrict__ y) {
  constexpr unsigned int kAll = 0xffffffffU;
  __shared__ std::int32_t row_start[2 * kThreads];
  __shared__ float product[kStage];
  __shared__ typename BlockSum::TempStorage reduce_storage;
  // Long rows (kLongRows): at most a stage's worth, each longer than
  // kRowBlockLongRow.
  constexpr int kMaxLongRows = kStage / (tuning::kRowBlockLongRow + 1) + 1;
  __shared__ int long_rows[kLongRows ? kMaxLongRows : 1];
  __shared__ int long_count;
  const int tid = static_cast<int>(threadIdx.x);
  if (kLongRows && tid == 0) long_count = 0;
  const int lane = tid % kWarpSize;
  const std::int64_t first_row = static_cast<std::int64_t>(blockIdx.x) * rows_per_block;
  const auto block_rows = static_cast<int>(min(static_cast<std::int64_t>(rows_per_block), rows - first_row));
  for (int i = tid; i <= block_rows; i += kThreads) row_start[i] = load_matrix<true>(&row_ptr[first_row + i]);
  __syncthreads();
  const std::int32_t first_entry = row_start[0];
  const int entries = row_start[block_rows] - first_entry;

  if (entries > kStage) {
    // The entries do not fit. Rows of up to kStage entries: a warp per row.
    for (int i = tid / kWarpSize; i < block_rows; i += kThreads / kWarpSize) {
      if (row_start[i + 1] - row_start[i] > kStage) continue;
      float sum = 0.0F;
      for (std::int64_t j = std::int64_t{row_start[i]} + lane; j < row_start[i + 1]; j += kWarpSize) {
        sum += load_matrix<true>(&values[j]) * __ldg(&x[load_matrix<true>(&col_idx[j])]);
      }
      for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(kAll, sum, offset);
      if (lane == 0) y[first_row + i] = sum;
    }
    // Longer rows: the whole block per row.
    for (int i = 0; i < block_rows; ++i) {
      if (row_start[i + 1] - row_start[i] <= kStage) continue;
      float sum = 0.0F;
      for (std::int64_t j = std::int64_t{row_start[i]} + tid; j < row_start[i + 1]; j += kThreads) {
        sum += load_matrix<true>(&values[j]) * __ldg(&x[load_matrix<true>(&col_idx[j])]);
      }
      sum = BlockSum(reduce_storage).Sum(sum);
      if (tid == 0) y[first_row + i] = sum;
      __syncthreads();
    }
    return;
  }

  TileEntries<kThreads, kItems> staged;
  staged.load(col_idx, values, first_entry, entries);
  staged.stage_products(x, product, entries);
  __syncthreads();

  // `group` threads (a power of two up to the warp size) per row; every lane
  // of a warp runs the same iterations, so the group's shuffles are whole.
  const int member = tid % group;
  const int rows_per_pass = kThreads / group;
  for (int base = 0; base < block_rows; base += rows_per_pass) {
    const int i = base + tid / group;
    float sum = 0.0F;
    bool mine = i < block_rows;
    if (mine) {
      const int start = row_start[i] - first_entry;
      const int stop = row_start[i + 1] - first_entry;
      if (kLongRows && stop - start > tuning::kRowBlockLongRow) {
        mine = false;
        if (member == 0) long_rows[atomicAdd(&long_count, 1)] = i;
      } else {
        for (int e = start + member; e < stop; e += group) sum += product[e];
      }
    }
    for (int offset = group / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(kAll, sum, offset);
    if (mine && member == 0) y[first_row + i] = sum;
  }
  if constexpr (kLongRows) {
    __syncthreads();
    const int count = long_count;
    for (int k = 0; k < count; ++k) {
      const int i = long_rows[k];
      const int stop = row_start[i + 1] - first_entry;
      float sum = 0.0F;
      for (int e = row_start[i] - first_entry + tid; e < stop; e += kThreads) sum += product[e];
      sum = BlockSum(reduce_storage).Sum(sum);
      if (tid == 0) y[first_row + i] = sum;
      __syncthreads();
    }
  }
}

}  // namespace

cudaError_t enqueue_csr_row_blocks(const spmv_csr_view& A, int rows_per_block, const float* x, float* y,
                                   cudaStream_t stream, bool long_rows) {
  if (A.rows == 0) return cudaSuccess;
  rows_per_block = std::clamp(rows_per_block, 1, tuning::kRowBlockMaxRows);
  // The largest group that keeps a pass over the block's rows within the
  // block's threads.
  int group = 1;
  while (group < kWarpSize && 2 * group * rows_per_block <= kThreads) group *= 2;
  const std::int64_t row_blocks = (static_cast<std::int64_t>(A.rows) + rows_per_block - 1) / rows_per_block;
  const auto blocks = static_cast<unsigned int>(row_blocks);
  if (long_rows) {
    row_block_kernel<true>
        <<<blocks, kThreads, 0, stream>>>(A.rows, rows_per_block, group, A.row_ptr, A.col_idx, A.values, x, y);
  } else {
    row_block_kernel<false>
        <<<blocks, kThreads, 0, stream>>>(A.rows, rows_per_block, group, A.row_ptr, A.col_idx, A.values, x, y);
  }
  return cudaGetLastError();
}

}  // namespace spmv::reference

spmv_status spmv_csr_stream(const spmv_csr_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  using namespace spmv::reference;
  if (A->rows == 0) return SPMV_SUCCESS;
  // As many rows a block as fit when rows are up to kStreamRowSlack times
  // the mean length; a block with longer rows takes the slower path.
  const double mean = static_cast<double>(A->nnz) / static_cast<double>(A->rows);
  const double room = kStage / std::max(1.0, std::ceil(tuning::kStreamRowSlack * mean));
  return enqueue_csr_row_blocks(*A, static_cast<int>(std::min<double>(room, tuning::kRowBlockMaxRows)), x, y, stream);
}
