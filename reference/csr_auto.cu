// Reference "auto" kernel over CSR: picks csr_rows, csr_vector's kernel
// (with its own group size and loads in flight), csr_merge (in one launch
// on small matrices) or csr_stream's row blocks by the rule of csr_auto.hpp.
//
// The rule needs the longest row and the widest row span, which only the
// device arrays hold. The first call on a matrix measures them (a
// max-reduction over the rows into scratch, then a synchronous 8-byte copy;
// for row blocks that sum long rows together, a second one: the most
// entries a block of them holds, settle_row_blocks); the choice is remembered by the
// view's pointers and sizes, so later calls enqueue the chosen kernel and
// return at once, like every other kernel. The choice only affects speed:
// every candidate is correct on every CSR matrix, so a stale entry (the
// same arrays refilled with another matrix of the same size) costs time,
// never correctness.
#include <array>
#include <mutex>

#include "common.cuh"
#include "spmv/contract/csr.h"
#include "spmv/reference/csr_auto.hpp"

namespace spmv::reference {
namespace {

// The longest row and the widest row span (columns are sorted in a row).
struct RowExtremes {
  std::int32_t longest;
  std::int32_t widest;
};

__global__ void row_extremes(std::int32_t rows, const std::int32_t* __restrict__ row_ptr,
                             const std::int32_t* __restrict__ col_idx, RowExtremes* __restrict__ out) {
  std::int32_t longest = 0;
  std::int32_t widest = 0;
  const std::int64_t stride = grid_thread_count();
  for (std::int64_t row = grid_thread_index(); row < rows; row += stride) {
    const std::int32_t begin = row_ptr[row];
    const std::int32_t end = row_ptr[row + 1];
    longest = max(longest, end - begin);
    if (end > begin) widest = max(widest, col_idx[end - 1] - col_idx[begin]);
  }
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    longest = max(longest, __shfl_down_sync(0xffffffffU, longest, offset));
    widest = max(widest, __shfl_down_sync(0xffffffffU, widest, offset));
  }
  if (threadIdx.x % kWarpSize == 0) {
    atomicMax(&out->longest, longest);
    atomicMax(&out->widest, widest);
  }
}

// The most entries any block of `rows_per_block` consecutive rows holds.
__global__ void largest_block(std::int32_t rows, int rows_per_block, const std::int32_t* __restrict__ row_ptr,
                              std::int32_t* __restrict__ out) {
  const std::int64_t blocks = (static_cast<std::int64_t>(rows) + rows_per_block - 1) / rows_per_block;
  std::int32_t largest = 0;
  for (std::int64_t b = grid_thread_index(); b < blocks; b += grid_thread_count()) {
    const std::int64_t first = b * rows_per_block;
    const std::int64_t last = min(first + rows_per_block, static_cast<std::int64_t>(rows));
    largest = max(largest, row_ptr[last] - row_ptr[first]);
  }
  atomicMax(out, largest);
}

struct Remembered {
  spmv_csr_view view{};
  CsrAutoChoice choice;
};

bool same_matrix(const spmv_csr_view& a, const spmv_csr_view& b) {
  return a.rows == b.rows && a.cols == b.cols && a.nnz == b.nnz && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values == b.values;
}

// The last few matrices auto has seen, most recent first.
class ChoiceCache {
 public:
  std::optional<CsrAutoChoice> find(const spmv_csr_view& A) {
    const std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < used_; ++i) {
      if (same_matrix(entries_[i].view, A)) return entries_[i].choice;
    }
    return std::nullopt;
  }

  void remember(const spmv_csr_view& A, const CsrAutoChoice& choice) {
    const std::lock_guard lock(mutex_);
    used_ = std::min(used_ + 1, entries_.size());
    for (std::size_t i = used_ - 1; i > 0; --i) entries_[i] = entries_[i - 1];
    entries_[0] = Remembered{A, choice};
  }

 private:
  std::mutex mutex_;
  std::array<Remembered, 16> entries_{};
  std::size_t used_ = 0;
};

ChoiceCache& choice_cache() {
  static ChoiceCache cache;
  return cache;
}

cudaError_t analyse(const spmv_csr_view& A, void* scratch, cudaStream_t stream, CsrAutoChoice& choice) {
  auto* extremes = static_cast<RowExtremes*>(scratch);
  cudaError_t status = cudaMemsetAsync(extremes, 0, sizeof(RowExtremes), stream);
  if (status != cudaSuccess) return status;
  row_extremes<<<grid_blocks(A.rows), tuning::kBlockSize, 0, stream>>>(A.rows, A.row_ptr, A.col_idx, extremes);
  status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  RowExtremes host{};
  status = cudaMemcpyAsync(&host, extremes, sizeof host, cudaMemcpyDeviceToHost, stream);
  if (status != cudaSuccess) return status;
  status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess) return status;
  choice = choose_csr_kernel(RowLengthStats{A.rows, A.cols, A.nnz, host.longest, host.widest});
  if (choice.kernel != CsrAutoChoice::Kernel::kRowBlocks || !choice.block_long_rows) return cudaSuccess;
  // Row blocks with long rows: settled by their fullest block.
  auto* largest = static_cast<std::int32_t*>(scratch);
  status = cudaMemsetAsync(largest, 0, sizeof(std::int32_t), stream);
  if (status != cudaSuccess) return status;
  const std::int64_t blocks = (static_cast<std::int64_t>(A.rows) + choice.rows_per_block - 1) / choice.rows_per_block;
  largest_block<<<grid_blocks(blocks), tuning::kBlockSize, 0, stream>>>(A.rows, choice.rows_per_block, A.row_ptr,
                                                                        largest);
  status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  std::int32_t host_largest = 0;
  status = cudaMemcpyAsync(&host_largest, largest, sizeof host_largest, cudaMemcpyDeviceToHost, stream);
  if (status != cudaSuccess) return status;
  status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess) return status;
  choice = settle_row_blocks(choice, host_largest);
  return cudaSuccess;
}

}  // namespace

std::optional<CsrAutoChoice> csr_auto_choice_for(const spmv_csr_view& A) { return choice_cache().find(A); }

int csr_launch_choice(const CsrAutoChoice& choice, const spmv_csr_view& A, const float* x, float* y, void* scratch,
                      cudaStream_t stream) {
  switch (choice.kernel) {
    case CsrAutoChoice::Kernel::kScalar: return enqueue_csr_scalar(A, x, y, stream);
    case CsrAutoChoice::Kernel::kRows: return enqueue_csr_rows(A, choice.row_loads(), x, y, stream);
    case CsrAutoChoice::Kernel::kVector:
      return enqueue_csr_vector(A, choice.threads_per_row, choice.loads_per_lane, x, y, stream);
    case CsrAutoChoice::Kernel::kMerge: return spmv_csr_merge(&A, x, y, scratch, stream);
    case CsrAutoChoice::Kernel::kMergeSingle:
      return enqueue_csr_merge_single(A, choice.tile_threads, x, y, scratch, stream);
    case CsrAutoChoice::Kernel::kRowBlocks:
      return enqueue_csr_row_blocks(A, choice.rows_per_block, x, y, stream, choice.block_long_rows);
  }
  return cudaErrorInvalidValue;
}

}  // namespace spmv::reference

size_t spmv_csr_auto_scratch_size(const spmv_csr_view* A) {
  using namespace spmv::reference;
  return std::max({sizeof(RowExtremes), spmv_csr_merge_scratch_size(A),
                   merge_single_scratch_size(*A, tuning::kMergeSingleTinyThreads),
                   merge_single_scratch_size(*A, tuning::kMergeSingleLargeThreads)});
}

spmv_status spmv_csr_auto(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream) {
  using namespace spmv::reference;
  if (A->rows == 0) return SPMV_SUCCESS;
  std::optional<CsrAutoChoice> choice = choice_cache().find(*A);
  if (!choice) {
    CsrAutoChoice chosen;
    const cudaError_t analysed = analyse(*A, scratch, stream, chosen);
    if (analysed != cudaSuccess) return analysed;
    choice_cache().remember(*A, chosen);
    choice = chosen;
  }
  return csr_launch_choice(*choice, *A, x, y, scratch, stream);
}
