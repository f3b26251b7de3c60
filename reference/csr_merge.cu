// Reference load-balanced CSR kernel: merge-path SpMV.
//
// SpMV over CSR is a merge of two sorted lists: the row ends (row_ptr[1..])
// and the entry indices 0 .. nnz-1. Walking the merge path, each step either
// consumes an entry (adds its product to the running sum) or consumes a row
// end (writes the sum as y[row] and starts the next row). The path has
// rows + nnz steps whatever the rows look like, so cutting it into equal
// tiles gives every block the same work: a row of millions of entries spans
// many tiles, and a million empty rows are a million cheap steps.
//
// Two kernels:
//  1. merge_partition: a thread per tile boundary makes sure scratch holds
//     where the path crosses the boundary's diagonal, the start (row,
//     entry) of a tile. Scratch keeps what the previous call found there,
//     so the thread first checks that point against row_ptr (two adjacent
//     row pointers): on a repeated call that is all it does, like cuSPARSE's
//     ALG1, whose partition is made once by cusparseSpMV_preprocess. A point
//     that fails the check (the first call, another matrix in the same
//     memory, scratch never written) is searched for by the thread's whole
//     warp: a 32-way search over row_ptr that starts around where even rows
//     would put it (a few dependent loads). A row cut by a boundary gets
//     contributions from more than one tile; the thread sets its y to 0,
//     the base those contributions are added onto.
//  2. merge_tile, launched as a programmatic dependent of the partition
//     (sm_90): its blocks become resident while the partition runs and wait
//     for its results, so no launch gap separates the two. A block stages
//     its tile in shared memory: the row ends it crosses and the products
//     values[j] * x[col_idx[j]] of its entries, loaded coalesced (the
//     entries with the evict-first hint, so that x and the row pointers stay
//     in L2). When every row of the tile is short (kMergeShortRow), a thread
//     per row sums it from shared memory. Otherwise each thread walks
//     kMergeItems steps of the path from shared memory. A thread's first row
//     may have started in an earlier thread: the partial sums of the rows
//     threads stop in are combined by a block-wide segmented scan
//     (segmented_scan.cuh), so every row that starts and ends in the tile is
//     summed in a fixed order and stored once. Only a row cut by a tile
//     boundary is added atomically (at most two atomics per tile), so
//     results are bitwise repeatable unless a row spans three or more tiles.
//
// merge_single (auto's path for small skewed matrices) runs the same tiles
// in one launch, with no partition kernel: a small matrix takes a few
// microseconds, most of it launch latency, and a second launch costs as
// much as the work. Each block checks the two ends of its tile that scratch
// holds (is_crossing) and searches for one that fails, as the partition
// would; its own start it writes back. A row cut by tile boundaries is
// summed and stored, once, by the tile in which it ends: that tile sums the
// row's head (the row's entries before the tile) itself, with the whole
// block, while its tile's entries are in flight. So no row is added to
// atomically and no tile waits for another; a tile that holds no row end
// (the middle of a long row) stores nothing. A long row costs the tile
// that ends it up to its length in extra loads, so auto uses this on small
// matrices only (tuning::kAutoSmallPath).
//
// auto's planned tiles (CsrAutoPlan's kTiles, plan_layout.hpp) run
// merge_tile's body (sum_tile) on tiles whose starts the plan made once, in
// one launch with no partition kernel; a row cut by tile boundaries has its
// parts stored in the plan's slots and added, in an order of its own, by
// the tile that brings the last one (PlannedCuts), not atomically:
// bit-for-bit repeatable, and no tile re-reads another's entries.
#include <array>
#include <climits>
#include <cub/block/block_reduce.cuh>

#include "common.cuh"
#include "plan_kernels.cuh"
#include "segmented_scan.cuh"
#include "spmv/contract/csr.h"

namespace spmv::reference {
namespace {

// Where tile t starts on the merge path: `row` row ends and `entry` entries
// consumed before it (row + entry == t * kTileItems, clamped to the path's
// end).
struct PathPoint {
  std::int32_t row;
  std::int32_t entry;
};

// Merge-path items (row ends plus entries) in a tile of kThreads x kItems
// slots: a warp's worth fewer, so that however the tile's entries sit in
// their 128-byte lines, TileEntries can load them line-aligned (its `lead`
// always fits).
template <int kThreads, int kItems>
inline constexpr int kTileItems = kThreads* kItems - kWarpSize;

std::int64_t tile_count(const spmv_csr_view& A, int tile) {
  const std::int64_t path = static_cast<std::int64_t>(A.rows) + A.nnz;
  return (path + tile - 1) / tile;
}

// Where the merge path crosses `diagonal`, found by one warp: the first i
// (row ends consumed) with row_ptr[i + 1] + i + 1 > diagonal, i.e. rows
// ending at or before an entry index are consumed before it. The test is
// monotone in i and the answer lies in [low, high]. The first round probes
// 32 points at exponentially growing distances on both sides of where even
// rows would put the split, which brackets an answer d rows away within
// about d rows; every later round probes 32 evenly spaced points of what is
// left. A few dependent loads on regular matrices, log32(rows) + 1 on any.
__device__ PathPoint search_path(int lane, std::int64_t diagonal, std::int32_t rows, std::int32_t nnz,
                                 const std::int32_t* __restrict__ row_ptr) {
  constexpr unsigned int kAll = 0xffffffffU;
  std::int64_t low = max(std::int64_t{0}, diagonal - nnz);
  std::int64_t high = min(diagonal, static_cast<std::int64_t>(rows));
  const double share = static_cast<double>(diagonal) / (static_cast<double>(rows) + nnz);
  const std::int64_t guess = static_cast<std::int64_t>(share * rows);
  bool first_round = true;
  while (low < high) {
    const std::int64_t span = high - low;
    std::int64_t probe;
    if (first_round && span > kWarpSize) {
      constexpr int kHalf = kWarpSize / 2;
      const std::int64_t step = tuning::kMergeSearchStep;
      probe = guess + (lane < kHalf ? -(step << (kHalf - 1 - lane)) : lane == kHalf ? 0 : step << (lane - kHalf - 1));
    } else if (span <= kWarpSize) {
      probe = low + lane;
    } else {
      probe = low + span * lane / kWarpSize;
    }
    first_round = false;
    const bool valid = probe >= low && probe < high;
    const bool crosses = valid && row_ptr[probe + 1] + probe + 1 > diagonal;
    const unsigned int crossing = __ballot_sync(kAll, crosses);
    const unsigned int short_of = __ballot_sync(kAll, valid && !crosses);
    if (crossing != 0) high = __shfl_sync(kAll, probe, __ffs(static_cast<int>(crossing)) - 1);
    if (short_of != 0) low = __shfl_sync(kAll, probe, kWarpSize - 1 - __clz(static_cast<int>(short_of))) + 1;
  }
  return PathPoint{static_cast<std::int32_t>(low), static_cast<std::int32_t>(diagonal - low)};
}

// Whether `point` (read from scratch, so possibly anything) is where the
// path crosses `diagonal`: on the diagonal, within the rows the crossing
// can be at, with the search's test failing one row before it and holding
// at it (each side holds trivially at the ends of that range). Reads
// row_ptr[point.row] and row_ptr[point.row + 1] only for a point within
// that range.
__device__ inline bool is_crossing(PathPoint point, std::int64_t diagonal, std::int32_t rows, std::int32_t nnz,
                                   const std::int32_t* __restrict__ row_ptr) {
  const std::int64_t low = max(std::int64_t{0}, diagonal - nnz);
  const std::int64_t high = min(diagonal, static_cast<std::int64_t>(rows));
  if (point.row < low || point.row > high || static_cast<std::int64_t>(point.row) + point.entry != diagonal) {
    return false;
  }
  // Both loads issued at once (one line, usually).
  const std::int32_t row_start = row_ptr[point.row];
  const std::int32_t row_stop = row_ptr[min(point.row + 1, rows)];
  return (point.row == low || row_start <= point.entry) && (point.row == high || row_stop >= point.entry);
}

// Programmatic dependent launch (sm_90 and later): the tile kernel is
// launched while the partition kernel runs, so its blocks are resident and
// waiting when the partition ends instead of being launched then.
__device__ inline void allow_tiles_to_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}
__device__ inline void wait_for_partition() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// A thread per tile boundary t (0 .. tiles), 32 consecutive boundaries a
// warp: makes starts[t] where tile t starts on the merge path, keeping what
// is there when it checks out, and zeroes y of a row the boundary cuts
// (past the row's first entry): the base the row's parts are added onto.
// The warp searches for the boundaries that fail the check one at a time.
__global__ void merge_partition(int tile, std::int32_t rows, std::int32_t nnz, std::int64_t tiles,
                                const std::int32_t* __restrict__ row_ptr, PathPoint* __restrict__ starts,
                                float* __restrict__ y) {
  constexpr unsigned int kAll = 0xffffffffU;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const std::int64_t path = static_cast<std::int64_t>(rows) + nnz;
  // The tile kernel may be launched now: it waits for this grid's results
  // (wait_for_partition) but not for its launch.
  allow_tiles_to_launch();
  for (std::int64_t first = grid_thread_index() - lane; first <= tiles; first += grid_thread_count()) {
    const std::int64_t t = first + lane;
    const std::int64_t diagonal = min(t * tile, path);
    PathPoint start{};
    bool holds = true;
    if (t <= tiles) {
      start = starts[t];
      holds = is_crossing(start, diagonal, rows, nnz, row_ptr);
    }
    for (unsigned int lost = __ballot_sync(kAll, !holds); lost != 0; lost &= lost - 1) {
      const int owner = __ffs(static_cast<int>(lost)) - 1;
      const PathPoint found = search_path(lane, __shfl_sync(kAll, diagonal, owner), rows, nnz, row_ptr);
      if (lane == owner) {
        start = found;
        starts[t] = found;
      }
    }
    if (t > 0 && t < tiles && start.row < rows && start.entry > row_ptr[start.row]) y[start.row] = 0.0F;
  }
}

// What a thread's walk of its stretch of a tile's merge path leaves to store.
struct PathWalk {
  bool first_done;    // whether the thread ended its first row
  int first_row;      // that row, within the tile
  float first_total;  // its sum: the thread's part and what the threads before it hold
  float tile_total;   // in the last thread: the sum of the row the tile stops in, as far as the tile goes
};

// Thread tid walks kItems steps of the tile's merge path, items [diagonal,
// diagonal_end), from the staged row ends and products, starting its sum at
// start_sum. Rows after its first start and end in its stretch: it stores
// their final sums (tile row i is y[first_tile_row + i]). What it holds of
// its first row and of the row it stops in is combined across the block by
// a segmented scan; the caller stores those.
template <int kThreads, int kItems>
__device__ __forceinline__ PathWalk walk_path(int tid, int tile_rows, int tile_entries, const std::int32_t* row_end,
                                              const float* product, float start_sum, std::int32_t first_tile_row,
                                              float* y, typename RowSumScan<kThreads>::TempStorage& scan_storage) {
  const int tile_length = tile_rows + tile_entries;
  const int diagonal = min(tid * kItems, tile_length);
  const int diagonal_end = min(diagonal + kItems, tile_length);
  int low = max(0, diagonal - tile_entries);
  int high = min(diagonal, tile_rows);
  while (low < high) {
    const int middle = (low + high) / 2;
    if (row_end[middle] <= diagonal - middle - 1) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  int r = low;             // rows ended so far, within the tile
  int j = diagonal - low;  // entries consumed so far, within the tile
  const int first_row = r;
  bool first_done = false;
  float first_sum = 0.0F;  // the thread's partial sum of its first row
  float sum = start_sum;
  int current_end = row_end[r];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (r + j < diagonal_end) {
      if (j < current_end) {
        sum += product[j];
        ++j;
      } else {
        if (first_done) {
          y[first_tile_row + r] = sum;
        } else {
          first_sum = sum;
          first_done = true;
        }
        sum = 0.0F;
        ++r;
        current_end = row_end[r];
      }
    }
  }

  // What the threads before this one hold of its first row.
  RowSum carried{};
  RowSum tile_total{};
  RowSumScan<kThreads>(scan_storage).ExclusiveScan(RowSum{first_tile_row + r, sum}, carried, ContinueRow{}, tile_total);
  const float carried_in = (tid > 0 && carried.row == first_tile_row + first_row) ? carried.sum : 0.0F;
  return PathWalk{first_done, first_row, first_sum + carried_in, tile_total.sum};
}

// How a tile hands over its part of a row cut by a tile boundary: the row
// its start cuts (`first`, called only when the row ends in the tile) and
// the row its end cuts (`last`), each by the one thread that holds that
// part; then finish(), called by every thread of the tile. csr_merge adds
// the parts atomically to a y its partition zeroed; auto's planned tiles
// hand them over through the plan (PlannedCuts).
struct AtomicCuts {
  struct Storage {};  // nothing kept between the parts and finish()
  float* y;

  // Whether the tile's start cuts its first row: it begins past the row's
  // first entry (thread 0 reads the row's start while the tile loads).
  __device__ bool first_row_cut(PathPoint begin, std::int32_t rows, const std::int32_t* __restrict__ row_ptr) const {
    return begin.row < rows && begin.entry > row_ptr[begin.row];
  }
  __device__ bool last_row_cut(bool holds_entries_of_last_row) const { return holds_entries_of_last_row; }
  __device__ void first(Storage&, std::int32_t row, float part) const { atomicAdd(&y[row], part); }
  __device__ void last(Storage&, std::int32_t row, float part) const { atomicAdd(&y[row], part); }
  __device__ void finish(Storage&) const {}
};

// The planned tiles' hand-over (plan_layout.hpp): the tile's seam, made on
// the host from the same row pointers by the same tests as AtomicCuts'
// (the last row is cut exactly when the tile kernel finds it cut, so that
// test is not read from the seam), says which parts it hands over and
// where each goes. The parts wait in shared memory until the tile is done;
// then its first warp stores each in its slot and counts it in, and where
// that completes the row, adds the row's parts (a lane's share each, in
// slot order, then a shuffle reduction of fixed shape: the same sum every
// run, whichever tile comes last), stores the row and sets the count back
// to 0 for the next call. No atomics on y. The seam is read where it is
// needed, not held: the 512-thread tile kernel has no register to spare.
struct PlannedCuts {
  struct Storage {
    float first;
    float last;
  };
  const plan::TileSeam* __restrict__ seams;
  const plan::CutRow* __restrict__ cut_rows;
  float* __restrict__ parts;
  unsigned int* __restrict__ arrivals;
  float* __restrict__ y;

  __device__ bool first_row_cut(PathPoint, std::int32_t, const std::int32_t* __restrict__) const {
    return seams[blockIdx.x].first_cut >= 0;
  }
  __device__ bool last_row_cut(bool holds_entries_of_last_row) const { return holds_entries_of_last_row; }
  __device__ void first(Storage& storage, std::int32_t, float part) const { storage.first = part; }
  __device__ void last(Storage& storage, std::int32_t, float part) const { storage.last = part; }

  __device__ void finish(Storage& storage) const {
    __syncthreads();  // the parts are in `storage`
    if (threadIdx.x >= kWarpSize) return;
    const plan::TileSeam seam = seams[blockIdx.x];
    if (seam.first_cut >= 0) hand_over(seam.first_cut, seam.first_slot, storage.first);
    if (seam.last_cut >= 0) hand_over(seam.last_cut, seam.last_slot, storage.last);
  }

  // By the tile's first warp, all of it.
  __device__ void hand_over(std::int32_t cut, std::int32_t slot, float part) const {
    constexpr unsigned int kAll = 0xffffffffU;
    const int lane = static_cast<int>(threadIdx.x);
    unsigned int arrived = 0;
    if (lane == 0) {
      parts[slot] = part;
      // The part is visible device-wide before it is counted (the fence
      // pattern of CUDA's threadFenceReduction sample).
      __threadfence();
      arrived = atomicAdd(&arrivals[cut], 1U);
    }
    arrived = __shfl_sync(kAll, arrived, 0);
    const plan::CutRow row = cut_rows[cut];
    if (arrived != static_cast<unsigned int>(row.parts - 1)) return;
    __threadfence();
    float total = 0.0F;
    // From L2: other SMs wrote them, and L1 is not coherent.
    for (std::int32_t p = lane; p < row.parts; p += kWarpSize) total += __ldcg(&parts[row.first_slot + p]);
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) total += __shfl_down_sync(kAll, total, offset);
    if (lane == 0) {
      y[row.row] = total;
      arrivals[cut] = 0U;
    }
  }
};

// One tile of the merge path, [begin, end): staged, summed and stored, a
// cut row's part handed over by `cuts`.
template <int kThreads, int kItems, typename Cuts>
__device__ __forceinline__ void sum_tile(PathPoint begin, PathPoint end, std::int32_t rows,
                                         const std::int32_t* __restrict__ row_ptr,
                                         const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                                         const float* __restrict__ x, float* __restrict__ y, const Cuts& cuts) {
  // Row ends (relative to the tile's first entry) first, then the products:
  // tile_rows + 1 + tile_entries <= kTileItems + 1 words.
  __shared__ std::int32_t staged[kTileItems<kThreads, kItems> + 1];
  __shared__ typename RowSumScan<kThreads>::TempStorage scan_storage;
  __shared__ bool first_row_cut;
  __shared__ typename Cuts::Storage cut_storage;

  const int tile_rows = end.row - begin.row;
  const int tile_entries = end.entry - begin.entry;
  const int tid = static_cast<int>(threadIdx.x);

  std::int32_t* row_end = staged;
  float* product = reinterpret_cast<float*>(staged + tile_rows + 1);
  // The row ends are loaded while the entries are in flight.
  TileEntries<kThreads, kItems> entries;
  entries.load(col_idx, values, begin.entry, tile_entries);
#pragma unroll
  for (int k = 0; k <= kItems; ++k) {
    const int i = tid + k * kThreads;
    if (i <= tile_rows) {
      const std::int32_t row = begin.row + i;
      // An ordinary load, not evict-first: the row pointers the next call's
      // partition probes are then often still in L2 (measured 2-5% faster
      // on stencil27, stencil7 and banded, 2% slower on shortrows, whose
      // 48 MB of row pointers do not fit).
      row_end[i] = row < rows ? row_ptr[row + 1] - begin.entry : INT_MAX;
    }
  }
  entries.stage_products(x, product, tile_entries);
  if (tid == 0) first_row_cut = cuts.first_row_cut(begin, rows, row_ptr);
  __syncthreads();

  // The part of tile row i inside the tile: products [row_begin(i), row_stop(i)).
  const auto row_begin = [&](int i) { return i == 0 ? 0 : row_end[i - 1]; };
  const auto row_stop = [&](int i) { return min(row_end[i], tile_entries); };
  // The tile's last row goes on in the next tile unless the tile stopped
  // before its first entry.
  const bool last_row_cut =
      cuts.last_row_cut(end.row < rows && (tile_rows == 0 || tile_entries > row_end[tile_rows - 1]));

  // Short rows only (the usual case): a thread per row sums its products
  // from shared memory, and neighbouring threads store neighbouring rows.
  bool my_rows_short = true;
  for (int i = tid; i <= tile_rows; i += kThreads) {
    my_rows_short = my_rows_short && row_stop(i) - row_begin(i) <= tuning::kMergeShortRow;
  }
  if (__syncthreads_and(my_rows_short) != 0) {
    for (int i = tid; i <= tile_rows; i += kThreads) {
      float row_sum = 0.0F;
      for (int k = row_begin(i); k < row_stop(i); ++k) row_sum += product[k];
      if (i == tile_rows) {
        if (last_row_cut) cuts.last(cut_storage, end.row, row_sum);
      } else if (i == 0 && first_row_cut) {
        cuts.first(cut_storage, begin.row, row_sum);
      } else {
        y[begin.row + i] = row_sum;
      }
    }
    cuts.finish(cut_storage);
    return;
  }

  // Some row is long: each thread walks kMergeItems steps of the merge
  // path, so a long row is shared by many threads.
  const PathWalk walk =
      walk_path<kThreads, kItems>(tid, tile_rows, tile_entries, row_end, product, 0.0F, begin.row, y, scan_storage);
  if (walk.first_done) {
    if (walk.first_row == 0 && first_row_cut) {
      cuts.first(cut_storage, begin.row, walk.first_total);
    } else {
      y[begin.row + walk.first_row] = walk.first_total;
    }
  }
  if (tid == kThreads - 1 && last_row_cut) cuts.last(cut_storage, end.row, walk.tile_total);
  cuts.finish(cut_storage);
}

template <int kThreads, int kItems, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    merge_tile(std::int32_t rows, const std::int32_t* __restrict__ row_ptr, const std::int32_t* __restrict__ col_idx,
               const float* __restrict__ values, const float* __restrict__ x, const PathPoint* __restrict__ starts,
               float* __restrict__ y) {
  wait_for_partition();
  sum_tile<kThreads, kItems>(starts[blockIdx.x], starts[blockIdx.x + 1], rows, row_ptr, col_idx, values, x, y,
                             AtomicCuts{y});
}

// auto's planned tiles: the partition is the plan's, made once on the host,
// so a tile reads its ends and starts loading.
template <int kThreads, int kItems, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    merge_tile_planned(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                       const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                       const float* __restrict__ x, const plan::TileStart* __restrict__ starts,
                       const plan::TileSeam* __restrict__ seams, const plan::CutRow* __restrict__ cut_rows,
                       float* __restrict__ parts, unsigned int* __restrict__ arrivals, float* __restrict__ y) {
  const plan::TileStart begin = starts[blockIdx.x];
  const plan::TileStart end = starts[blockIdx.x + 1];
  sum_tile<kThreads, kItems>(PathPoint{begin.row, begin.entry}, PathPoint{end.row, end.entry}, rows, row_ptr, col_idx,
                             values, x, y, PlannedCuts{seams, cut_rows, parts, arrivals, y});
}

template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads)
    merge_single(std::int32_t rows, std::int32_t nnz, std::int64_t tiles, const std::int32_t* __restrict__ row_ptr,
                 const std::int32_t* __restrict__ col_idx, const float* __restrict__ values,
                 const float* __restrict__ x, PathPoint* __restrict__ starts, float* __restrict__ y) {
  constexpr int kTile = kTileItems<kThreads, kItems>;
  static_assert(kThreads >= 2 * kWarpSize, "two warps find the tile's ends");
  __shared__ std::int32_t staged[kTile + 1];
  __shared__ typename RowSumScan<kThreads>::TempStorage scan_storage;
  __shared__ typename cub::BlockReduce<float, kThreads>::TempStorage reduce_storage;
  __shared__ PathPoint ends[2];
  __shared__ std::int32_t first_row_start;  // row_ptr[begin.row]
  __shared__ float head_total;
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const std::int64_t path = static_cast<std::int64_t>(rows) + nnz;

  // Warp 0 finds the tile's start, warp 1 its end (the next tile's start).
  if (warp < 2) {
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) + warp;
    const std::int64_t diagonal = min(t * kTile, path);
    PathPoint point = starts[t];
    // The same point and the same loads in every lane: the branch is the
    // warp's as a whole.
    if (!is_crossing(point, diagonal, rows, nnz, row_ptr)) {
      point = search_path(lane, diagonal, rows, nnz, row_ptr);
      // Each tile keeps its own start; the last tile also the path's end.
      // Another block may read the point meanwhile: a torn read fails
      // is_crossing and is searched for, never used.
      if (lane == 0 && (warp == 0 || t == tiles)) starts[t] = point;
    }
    if (lane == 0) {
      ends[warp] = point;
      if (warp == 0) first_row_start = point.row < rows ? row_ptr[point.row] : nnz;
    }
  }
  __syncthreads();
  const PathPoint begin = ends[0];
  const PathPoint end = ends[1];
  const int tile_rows = end.row - begin.row;
  // No row ends in this tile (the middle of a long row): it stores nothing.
  if (tile_rows == 0) return;
  const int tile_entries = end.entry - begin.entry;
  const std::int32_t head_begin = first_row_start;
  const bool first_row_cut = begin.entry > head_begin;

  std::int32_t* row_end = staged;
  float* product = reinterpret_cast<float*>(staged + tile_rows + 1);
  TileEntries<kThreads, kItems> entries;
  entries.load(col_idx, values, begin.entry, tile_entries);
#pragma unroll
  for (int k = 0; k <= kItems; ++k) {
    const int i = tid + k * kThreads;
    if (i <= tile_rows) {
      const std::int32_t row = begin.row + i;
      row_end[i] = row < rows ? row_ptr[row + 1] - begin.entry : INT_MAX;
    }
  }
  // The head of the tile's first row, while the tile's entries are in
  // flight: the row ends in this tile (tile_rows > 0), so it is stored here.
  if (first_row_cut) {
    float head = 0.0F;
    for (std::int32_t j = head_begin + tid; j < begin.entry; j += kThreads) {
      head += load_matrix<true>(&values[j]) * __ldg(&x[load_matrix<true>(&col_idx[j])]);
    }
    head = cub::BlockReduce<float, kThreads>(reduce_storage).Sum(head);
    if (tid == 0) head_total = head;
  }
  entries.stage_products(x, product, tile_entries);
  __syncthreads();
  const float head = first_row_cut ? head_total : 0.0F;

  const auto row_begin = [&](int i) { return i == 0 ? 0 : row_end[i - 1]; };
  const auto row_stop = [&](int i) { return min(row_end[i], tile_entries); };

  // Short rows only: a thread per row. Tile row tile_rows is the part of a
  // row that ends in a later tile (or nothing): that tile stores it.
  bool my_rows_short = true;
  for (int i = tid; i < tile_rows; i += kThreads) {
    my_rows_short = my_rows_short && row_stop(i) - row_begin(i) <= tuning::kMergeShortRow;
  }
  if (__syncthreads_and(my_rows_short) != 0) {
    for (int i = tid; i < tile_rows; i += kThreads) {
      float row_sum = i == 0 ? head : 0.0F;
      for (int k = row_begin(i); k < row_stop(i); ++k) row_sum += product[k];
      y[begin.row + i] = row_sum;
    }
    return;
  }

  // Some row is long: the merge-path walk of merge_tile, with the head
  // carried in by thread 0 as the start of the first row's sum.
  const PathWalk walk = walk_path<kThreads, kItems>(tid, tile_rows, tile_entries, row_end, product,
                                                    tid == 0 ? head : 0.0F, begin.row, y, scan_storage);
  if (walk.first_done) y[begin.row + walk.first_row] = walk.first_total;
}
}  // namespace
}  // namespace spmv::reference

namespace spmv::reference {
namespace {

// Programmatic dependent launch needs compute capability 9.0; older GPUs
// get an ordinary launch (the device code's wait is compiled out for them).
bool supports_dependent_launch() {
  int device = 0;
  int major = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
}

template <int kThreads, int kItems, int kMinBlocks>
cudaError_t enqueue_merge(const spmv_csr_view& A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  if (A.rows == 0) return cudaSuccess;
  constexpr int kTile = kTileItems<kThreads, kItems>;
  const std::int64_t tiles = tile_count(A, kTile);
  auto* starts = static_cast<PathPoint*>(scratch);
  merge_partition<<<grid_blocks(tiles + 1), tuning::kBlockSize, 0, stream>>>(kTile, A.rows, A.nnz, tiles, A.row_ptr,
                                                                             starts, y);
  const cudaError_t partitioned = cudaGetLastError();
  if (partitioned != cudaSuccess) return partitioned;

  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(tiles));
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &overlap;
  config.numAttrs = supports_dependent_launch() ? 1 : 0;
  return cudaLaunchKernelEx(&config, merge_tile<kThreads, kItems, kMinBlocks>, A.rows, A.row_ptr, A.col_idx, A.values,
                            x, static_cast<const PathPoint*>(starts), y);
}

template <int kThreads>
cudaError_t enqueue_single(const spmv_csr_view& A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  constexpr int kTile = kTileItems<kThreads, tuning::kMergeItems>;
  const std::int64_t tiles = tile_count(A, kTile);
  merge_single<kThreads, tuning::kMergeItems><<<static_cast<unsigned int>(tiles), kThreads, 0, stream>>>(
      A.rows, A.nnz, tiles, A.row_ptr, A.col_idx, A.values, x, static_cast<PathPoint*>(scratch), y);
  return cudaGetLastError();
}

template <int kThreads, int kItems, int kMinBlocks>
cudaError_t enqueue_planned(const spmv_csr_view& A, const PlannedTiles& tiles, const float* x, float* y,
                            cudaStream_t stream) {
  merge_tile_planned<kThreads, kItems, kMinBlocks><<<static_cast<unsigned int>(tiles.tiles), kThreads, 0, stream>>>(
      A.rows, A.row_ptr, A.col_idx, A.values, x, tiles.starts, tiles.seams, tiles.cut_rows, tiles.parts, tiles.arrivals,
      y);
  return cudaGetLastError();
}

// The planned tiles of kThreads threads, for the items a thread walks
// (tuning::kPlanTileItemChoices).
template <int kThreads>
cudaError_t enqueue_planned_items(const spmv_csr_view& A, const PlannedTiles& tiles, const float* x, float* y,
                                  cudaStream_t stream) {
  static_assert(tuning::kPlanTileItemChoices == std::array<int, 4>{1, 2, 3, 5}, "the items built below");
  switch (tiles.thread_items) {
    case 1: return enqueue_planned<kThreads, 1, 1>(A, tiles, x, y, stream);
    case 2: return enqueue_planned<kThreads, 2, 1>(A, tiles, x, y, stream);
    case 3: return enqueue_planned<kThreads, 3, 1>(A, tiles, x, y, stream);
    case 5: return enqueue_planned<kThreads, 5, 1>(A, tiles, x, y, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t enqueue_csr_merge_single(const spmv_csr_view& A, int tile_threads, const float* x, float* y, void* scratch,
                                     cudaStream_t stream) {
  if (A.rows == 0) return cudaSuccess;
  if (tile_threads == tuning::kMergeSingleLargeThreads) {
    return enqueue_single<tuning::kMergeSingleLargeThreads>(A, x, y, scratch, stream);
  }
  if (tile_threads == tuning::kMergeSingleTinyThreads) {
    return enqueue_single<tuning::kMergeSingleTinyThreads>(A, x, y, scratch, stream);
  }
  return enqueue_single<tuning::kMergeSingleSmallThreads>(A, x, y, scratch, stream);
}

cudaError_t enqueue_merge_planned(const spmv_csr_view& A, const PlannedTiles& tiles, const float* x, float* y,
                                  cudaStream_t stream) {
  if (A.rows == 0 || tiles.tiles == 0) return cudaSuccess;
  // The tile kernel of csr_merge (kMergeThreads x kMergeItems, four
  // resident blocks, 32 registers), or a small-matrix shape.
  static_assert(tuning::kPlanTileThreadChoices == std::array<int, 3>{64, 128, 256}, "the threads built below");
  if (tiles.tile_threads == tuning::kMergeThreads && tiles.thread_items == tuning::kMergeItems) {
    return enqueue_planned<tuning::kMergeThreads, tuning::kMergeItems, tuning::kMergeMinBlocks>(A, tiles, x, y, stream);
  }
  switch (tiles.tile_threads) {
    case 64: return enqueue_planned_items<64>(A, tiles, x, y, stream);
    case 128: return enqueue_planned_items<128>(A, tiles, x, y, stream);
    case 256: return enqueue_planned_items<256>(A, tiles, x, y, stream);
    default: return cudaErrorInvalidValue;
  }
}

std::size_t merge_single_scratch_size(const spmv_csr_view& A, int tile_threads) {
  const int tile = tile_threads * tuning::kMergeItems - kWarpSize;
  return sizeof(PathPoint) * static_cast<std::size_t>(tile_count(A, tile) + 1);
}

}  // namespace spmv::reference

namespace spmv::reference::plan {

// kTileItems<tile_threads, thread_items>, for a shape known at run time.
int merge_tile_items(int tile_threads, int thread_items) { return tile_threads * thread_items - kWarpSize; }
int merge_tile_items(int tile_threads) { return merge_tile_items(tile_threads, tuning::kMergeItems); }

}  // namespace spmv::reference::plan

size_t spmv_csr_merge_scratch_size(const spmv_csr_view* A) {
  using namespace spmv::reference;
  constexpr int kTile = kTileItems<tuning::kMergeThreads, tuning::kMergeItems>;
  return sizeof(PathPoint) * static_cast<size_t>(tile_count(*A, kTile) + 1);
}

spmv_status spmv_csr_merge(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  using namespace spmv::reference;
  return enqueue_merge<tuning::kMergeThreads, tuning::kMergeItems, tuning::kMergeMinBlocks>(*A, x, y, scratch, stream);
}
