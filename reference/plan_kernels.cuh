// The kernels of auto's plan (csr_auto_plan.hpp) and the device views of
// a plan's arrays (plan_layout.hpp), shared by the files that launch them.
// Apart from common.cuh: the student kit's reference kernels build with
// common.cuh alone.
#pragma once

#include "common.cuh"
#include "spmv/reference/plan_layout.hpp"

namespace spmv::reference {

// auto's planned tiles (csr_merge.cu; plan_layout.hpp): csr_merge's tile
// kernel on tiles whose starts and seams a plan made on the host, in one
// launch. The plan's arrays in device memory; `arrivals` (one count per cut
// row) must hold zeros before the first call, and each call leaves them so.
// One call at a time: parts and counts are the plan's, not the call's.
struct PlannedTiles {
  int tile_threads = 0;  // a shape plan::is_planned_tile_shape accepts, with thread_items
  int thread_items = 0;  // merge-path items a thread walks
  std::int64_t tiles = 0;
  const plan::TileStart* starts = nullptr;  // tiles + 1
  const plan::TileSeam* seams = nullptr;    // tiles
  const plan::CutRow* cut_rows = nullptr;
  float* parts = nullptr;
  unsigned int* arrivals = nullptr;
};
cudaError_t enqueue_merge_planned(const spmv_csr_view& A, const PlannedTiles& tiles, const float* x, float* y,
                                  cudaStream_t stream);

// auto's packed slices (packed_slices.cu; plan_layout.hpp): a warp per
// slice, a thread per row. The plan's arrays in device memory, and the
// kernel shape that runs them (one of plan::slice_kernel_shapes() or
// plan::short_slice_kernel_shapes(); another makes the call return
// cudaErrorInvalidValue).
struct PackedSlicesView {
  std::int32_t rows = 0;
  std::int64_t slices = 0;
  std::int32_t max_width = 0;  // the widest slice's slots
  plan::SliceKernelShape kernel;
  const plan::SliceHeader* headers = nullptr;
  const float* values = nullptr;
  const std::uint16_t* narrow = nullptr;
  const std::int32_t* wide = nullptr;
  const std::int32_t* diagonals = nullptr;
};
cudaError_t enqueue_packed_slices(const PackedSlicesView& A, const float* x, float* y, cudaStream_t stream);

}  // namespace spmv::reference
