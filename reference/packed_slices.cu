// auto's packed slices (layout in plan_layout.hpp): a warp per slice of 32
// rows, a thread per row. The warp reads its slice's 16-byte header, then
// each thread loads kLoads slots of its row (values and column words,
// coalesced across the warp: slot k of 32 neighbouring rows side by side)
// before the x gathers that use them, and stores its row. Padding slots
// (value bits plan::kPaddingBits) gather nothing. No row pointers, no
// atomics, no shared memory: a row's sum runs in slot order, which is its
// column order, and repeats bit for bit.
//
// The kernel is built for each shape of tuning.hpp's lists (kLoads x
// resident blocks); the plan picks one at build time (plan::PlanSettings,
// plan::slice_kernel_for; tuning::kPlanSliceLoads x kPlanSliceMinBlocks and
// kPlanShortSliceLoads x kPlanShortSliceMinBlocks by default).
//
// The encoding is the slice's, so the branch on it is the warp's as a
// whole: diagonal slices read their offsets from a short list every lane
// reads alike (one broadcast, cached), narrow slices 16-bit offsets from
// the slice's base column, wide slices 32-bit columns.
#include <cstddef>
#include <utility>

#include "common.cuh"
#include "plan_kernels.cuh"

namespace spmv::reference {
namespace {

constexpr int kThreads = tuning::kBlockSize;
constexpr int kSliceRows = plan::kSliceRows;
static_assert(kSliceRows == kWarpSize, "a warp per slice");
static_assert(kThreads % kWarpSize == 0, "blocks of whole slices");

// What a slot's column is made of: a word loaded with the slot's value,
// then the column from that word. word(k) is slot k of the current batch;
// next(n) moves on by n slots (pointers step, no index grows with the
// slice's width).
struct DiagonalColumns {
  const std::int32_t* __restrict__ offsets;  // the batch's diagonals, alike in every lane
  std::int32_t row;
  __device__ std::int32_t word(int k) const { return __ldg(&offsets[k]); }
  __device__ std::int32_t column(std::int32_t word) const { return row + word; }
  __device__ void next(int slots) { offsets += slots; }
};

struct NarrowColumns {
  const std::uint16_t* __restrict__ offsets;  // the lane's slot 0 of the batch
  std::int32_t base;
  __device__ std::int32_t word(int k) const { return load_matrix<true>(&offsets[k * kSliceRows]); }
  __device__ std::int32_t column(std::int32_t word) const { return base + word; }
  __device__ void next(int slots) { offsets += static_cast<std::ptrdiff_t>(slots) * kSliceRows; }
};

struct WideColumns {
  const std::int32_t* __restrict__ columns;  // the lane's slot 0 of the batch
  __device__ std::int32_t word(int k) const { return load_matrix<true>(&columns[k * kSliceRows]); }
  __device__ std::int32_t column(std::int32_t word) const { return word; }
  __device__ void next(int slots) { columns += static_cast<std::ptrdiff_t>(slots) * kSliceRows; }
};

// The lane's row: `width` slots from `values` (the lane's slot 0), kLoads
// of them loaded before their gathers.
template <int kLoads, typename Columns>
__device__ __forceinline__ float sum_row(const float* __restrict__ values, int width, Columns columns,
                                         const float* __restrict__ x) {
  float sum = 0.0F;
  for (int first = 0; first < width; first += kLoads) {
    float value[kLoads];
    std::int32_t word[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      if (first + k < width) {
        value[k] = load_matrix<true>(&values[k * kSliceRows]);
        word[k] = columns.word(k);
      }
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      if (first + k < width && __float_as_uint(value[k]) != plan::kPaddingBits) {
        sum += value[k] * __ldg(&x[columns.column(word[k])]);
      }
    }
    values += kLoads * kSliceRows;
    columns.next(kLoads);
  }
  return sum;
}

// kLoads slots loaded together; kMinBlocks resident blocks asked of the
// compiler (the 4-slot batch, the default, holds 32 registers whatever the
// blocks asked: eight blocks of 256 a SM; the 8-slot one fits six in 40
// registers, and takes 56 when not asked for any; the 2-slot one eight in
// 30), none of these spilling.
template <int kLoads, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    packed_slices_kernel(std::int32_t rows, std::int64_t slices, const plan::SliceHeader* __restrict__ headers,
                         const float* __restrict__ values, const std::uint16_t* __restrict__ narrow,
                         const std::int32_t* __restrict__ wide, const std::int32_t* __restrict__ diagonals,
                         const float* __restrict__ x, float* __restrict__ y) {
  const std::int64_t slice = grid_thread_index() / kWarpSize;
  if (slice >= slices) return;  // a whole warp
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int4 raw = __ldg(reinterpret_cast<const int4*>(headers) + slice);
  const plan::SliceHeader header{raw.x, raw.y, raw.z, raw.w};
  const std::int64_t row = slice * kSliceRows + lane;
  const float* slots = values + static_cast<std::int64_t>(header.value_group) * kSliceRows + lane;
  const std::int64_t lane_index = static_cast<std::int64_t>(header.index) * kSliceRows + lane;
  const int width = header.width();
  float sum = 0.0F;
  switch (header.encoding()) {
    case plan::SliceEncoding::kDiagonals:
      // A lane past the last row holds only padding: its row is never used.
      sum = sum_row<kLoads>(slots, width, DiagonalColumns{diagonals + header.index, static_cast<std::int32_t>(row)}, x);
      break;
    case plan::SliceEncoding::kNarrow:
      sum = sum_row<kLoads>(slots, width, NarrowColumns{narrow + lane_index, header.base}, x);
      break;
    case plan::SliceEncoding::kWide: sum = sum_row<kLoads>(slots, width, WideColumns{wide + lane_index}, x); break;
  }
  if (row < rows) y[row] = sum;
}

using SliceKernel = void (*)(std::int32_t, std::int64_t, const plan::SliceHeader*, const float*, const std::uint16_t*,
                             const std::int32_t*, const std::int32_t*, const float*, float*);

// The kernel of `shape` among those built for kLoads x kMinBlocks (lists of
// tuning.hpp), or null: one instantiation a shape, found at run time.
template <const auto& kLoads, const auto& kMinBlocks, std::size_t... kShape>
SliceKernel find_kernel(plan::SliceKernelShape shape, std::index_sequence<kShape...> /*shapes*/) {
  constexpr std::size_t kBlockChoices = kMinBlocks.size();
  SliceKernel found = nullptr;
  ((shape.loads == kLoads[kShape / kBlockChoices] && shape.min_blocks == kMinBlocks[kShape % kBlockChoices]
        ? (found = packed_slices_kernel<kLoads[kShape / kBlockChoices], kMinBlocks[kShape % kBlockChoices]>)
        : found),
   ...);
  return found;
}

template <const auto& kLoads, const auto& kMinBlocks>
SliceKernel find_kernel(plan::SliceKernelShape shape) {
  return find_kernel<kLoads, kMinBlocks>(shape, std::make_index_sequence<kLoads.size() * kMinBlocks.size()>{});
}

constexpr bool holds(const auto& choices, int value) {
  for (const int choice : choices) {
    if (choice == value) return true;
  }
  return false;
}
static_assert(holds(tuning::kPlanSliceLoadChoices, tuning::kPlanSliceLoads) &&
                  holds(tuning::kPlanSliceMinBlockChoices, tuning::kPlanSliceMinBlocks),
              "the default long slices' kernel is one of those built");
static_assert(holds(tuning::kPlanShortSliceLoadChoices, tuning::kPlanShortSliceLoads) &&
                  holds(tuning::kPlanShortSliceMinBlockChoices, tuning::kPlanShortSliceMinBlocks),
              "the default short slices' kernel is one of those built");

}  // namespace

cudaError_t enqueue_packed_slices(const PackedSlicesView& A, const float* x, float* y, cudaStream_t stream) {
  if (A.rows == 0 || A.slices == 0) return cudaSuccess;
  constexpr std::int64_t kSlicesPerBlock = kThreads / kWarpSize;
  const auto blocks = static_cast<unsigned int>((A.slices + kSlicesPerBlock - 1) / kSlicesPerBlock);
  // The plan picked the shape (plan::slice_kernel_for): slices of at most
  // a few slots (rows of one or two entries: bound by the x gathers) take
  // the short batch, the others the long one.
  SliceKernel kernel = find_kernel<tuning::kPlanSliceLoadChoices, tuning::kPlanSliceMinBlockChoices>(A.kernel);
  if (kernel == nullptr) {
    kernel = find_kernel<tuning::kPlanShortSliceLoadChoices, tuning::kPlanShortSliceMinBlockChoices>(A.kernel);
  }
  if (kernel == nullptr) return cudaErrorInvalidValue;
  kernel<<<blocks, kThreads, 0, stream>>>(A.rows, A.slices, A.headers, A.values, A.narrow, A.wide, A.diagonals, x, y);
  return cudaGetLastError();
}

}  // namespace spmv::reference
