// Reference COO kernel by segmented reduction: the entries are cut into
// equal tiles of kCooThreads * kCooItems; a block stages its tile's row
// indices and products (values[e] * x[col_idx[e]], loaded coalesced) in
// shared memory, and each thread sums a contiguous stretch of kCooItems
// entries. Entries are sorted by row, so a row is a run of entries: a thread
// stores a row that starts and ends in its stretch, and the partial sums of
// rows that cross threads meet in a block-wide segmented scan
// (segmented_scan.cuh). Only the first and last rows of a tile may continue
// in a neighbouring tile; they are added atomically onto a zeroed y, two
// atomics per tile instead of one per entry.
//
// A row whose entries fall in two tiles gets 0 + a + b in either order, the
// same bits; only a row spanning three or more tiles (longer than a tile)
// can differ in the last bit between runs.
#include "common.cuh"
#include "segmented_scan.cuh"
#include "spmv/contract/coo.h"

namespace spmv::reference {
namespace {

constexpr int kThreads = tuning::kCooThreads;
constexpr int kItems = tuning::kCooItems;
constexpr int kTile = kThreads * kItems;

__global__ void __launch_bounds__(kThreads)
    coo_tile(std::int32_t nnz, const std::int32_t* __restrict__ row_idx, const std::int32_t* __restrict__ col_idx,
             const float* __restrict__ values, const float* __restrict__ x, float* __restrict__ y) {
  __shared__ std::int32_t staged_row[kTile];
  __shared__ float staged_product[kTile];
  __shared__ typename RowSumScan<kThreads>::TempStorage scan_storage;

  const std::int64_t tile_begin = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const std::int64_t remaining = nnz - tile_begin;
  const int count = remaining < kTile ? static_cast<int>(remaining) : kTile;
  const int tid = static_cast<int>(threadIdx.x);
  // All of a thread's loads are issued before any is used: enough bytes in
  // flight per SM to keep the memory system busy.
  std::int32_t tile_row[kItems];
  std::int32_t tile_col[kItems];
  float tile_value[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = tid + k * kThreads;
    if (i < count) {
      tile_row[k] = load_matrix<true>(&row_idx[tile_begin + i]);
      tile_col[k] = load_matrix<true>(&col_idx[tile_begin + i]);
      tile_value[k] = load_matrix<true>(&values[tile_begin + i]);
    }
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = tid + k * kThreads;
    if (i < count) {
      staged_row[i] = tile_row[k];
      staged_product[i] = tile_value[k] * __ldg(&x[tile_col[k]]);
    }
  }
  __syncthreads();

  // A thread past the tile's entries holds nothing of the tile's last row,
  // which keeps the rows handed to the scan non-decreasing.
  const int first = min(tid * kItems, count - 1);
  const int stop = min(tid * kItems + kItems, count);
  const std::int32_t first_row = staged_row[first];
  std::int32_t row = first_row;
  bool first_done = false;
  float first_sum = 0.0F;
  float sum = 0.0F;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = tid * kItems + k;
    if (i < stop) {
      const std::int32_t next = staged_row[i];
      if (next != row) {
        if (first_done) {
          y[row] = sum;
        } else {
          first_sum = sum;
          first_done = true;
        }
        row = next;
        sum = 0.0F;
      }
      sum += staged_product[i];
    }
  }

  RowSum carried{};
  RowSum tile_total{};
  RowSumScan<kThreads>(scan_storage).ExclusiveScan(RowSum{row, sum}, carried, ContinueRow{}, tile_total);
  // The tile's first row may have begun in the tile before: it is added,
  // every other row stored.
  const std::int32_t tile_first_row = staged_row[0];
  const auto write = [&](std::int32_t r, float value) {
    if (r == tile_first_row) {
      atomicAdd(&y[r], value);
    } else {
      y[r] = value;
    }
  };
  // A row that ended exactly where this thread's stretch begins: the threads
  // before hold all of it, and nobody else writes it.
  if (tid > 0 && tid * kItems < count && carried.row != first_row) write(carried.row, carried.sum);
  if (first_done) write(first_row, first_sum + (tid > 0 && carried.row == first_row ? carried.sum : 0.0F));
  // The tile's last row may go on in the tile after.
  if (tid == kThreads - 1) atomicAdd(&y[tile_total.row], tile_total.sum);
}

}  // namespace
}  // namespace spmv::reference

spmv_status spmv_coo_segmented(const spmv_coo_view* A, const float* x, float* y, void* /*scratch*/,
                               cudaStream_t stream) {
  using namespace spmv::reference;
  if (A->rows == 0) return SPMV_SUCCESS;
  // Rows without entries keep this zero; the atomics add onto it.
  const cudaError_t zeroed = cudaMemsetAsync(y, 0, sizeof(float) * static_cast<size_t>(A->rows), stream);
  if (zeroed != cudaSuccess) return zeroed;
  if (A->nnz == 0) return SPMV_SUCCESS;
  const std::int64_t tiles = (static_cast<std::int64_t>(A->nnz) + kTile - 1) / kTile;
  coo_tile<<<static_cast<unsigned int>(tiles), kThreads, 0, stream>>>(A->nnz, A->row_idx, A->col_idx, A->values, x, y);
  return cudaGetLastError();
}
