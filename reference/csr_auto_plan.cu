// auto's plan (csr_auto_plan.hpp): the CSR arrays copied to the host, the
// plan chosen and laid out there (plan_layout.cpp), and its arrays uploaded
// into one block of device memory; a run is one launch on them.
#include "spmv/reference/csr_auto_plan.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common.cuh"
#include "plan_kernels.cuh"

namespace spmv::reference {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("CsrAutoPlan: ") + what + ": " + cudaGetErrorString(status));
  }
}

template <typename T>
std::vector<T> download(const T* device, std::int64_t count, cudaStream_t stream) {
  std::vector<T> host(static_cast<std::size_t>(count));
  if (count > 0) {
    check(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost, stream),
          "copying the matrix to the host");
  }
  return host;
}

struct DeviceFree {
  void operator()(void* memory) const noexcept { cudaFree(memory); }
};
using DeviceBlock = std::unique_ptr<void, DeviceFree>;

// The plan's arrays, each at a 256-byte boundary of one allocation (the
// slice headers are read 16 bytes at a time), copied from host vectors
// that must live until upload() returns.
class DeviceArrays {
 public:
  template <typename T>
  std::size_t add(const std::vector<T>& host) {
    const std::size_t offset = reserve(host.size() * sizeof(T));
    copies_.push_back(Copy{offset, host.data(), host.size() * sizeof(T)});
    return offset;
  }
  std::size_t add_zeros(std::size_t bytes) {
    const std::size_t offset = reserve(bytes);
    zeros_.push_back(Copy{offset, nullptr, bytes});
    return offset;
  }
  [[nodiscard]] std::size_t bytes() const { return size_; }

  DeviceBlock upload(cudaStream_t stream) const {
    void* memory = nullptr;
    check(cudaMalloc(&memory, std::max<std::size_t>(size_, 1)), "allocating the plan's device memory");
    DeviceBlock block(memory);
    auto* base = static_cast<char*>(memory);
    for (const Copy& copy : copies_) {
      if (copy.bytes > 0) {
        check(cudaMemcpyAsync(base + copy.offset, copy.source, copy.bytes, cudaMemcpyHostToDevice, stream),
              "copying the plan to the device");
      }
    }
    for (const Copy& zeros : zeros_) {
      if (zeros.bytes > 0) check(cudaMemsetAsync(base + zeros.offset, 0, zeros.bytes, stream), "zeroing the plan");
    }
    check(cudaStreamSynchronize(stream), "uploading the plan");
    return block;
  }

 private:
  struct Copy {
    std::size_t offset;
    const void* source;
    std::size_t bytes;
  };
  std::size_t reserve(std::size_t bytes) {
    constexpr std::size_t kAlignment = 256;
    const std::size_t offset = (size_ + kAlignment - 1) / kAlignment * kAlignment;
    size_ = offset + bytes;
    return offset;
  }
  std::size_t size_ = 0;
  std::vector<Copy> copies_;
  std::vector<Copy> zeros_;
};

template <typename T>
T* at(const DeviceBlock& block, std::size_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(block.get()) + offset);
}

}  // namespace

struct CsrAutoPlan::State {
  spmv_csr_view matrix{};
  PlanSummary summary;
  DeviceBlock memory;
  PackedSlicesView slices;  // kSlices
  PlannedTiles tiles;       // kTiles
  void* scratch = nullptr;  // kRule
};

CsrAutoPlan::CsrAutoPlan(std::unique_ptr<State> state) : state_(std::move(state)) {}
CsrAutoPlan::CsrAutoPlan(CsrAutoPlan&&) noexcept = default;
CsrAutoPlan& CsrAutoPlan::operator=(CsrAutoPlan&&) noexcept = default;
CsrAutoPlan::~CsrAutoPlan() = default;

PlanKind CsrAutoPlan::kind() const { return state_->summary.kind; }
const PlanSummary& CsrAutoPlan::summary() const { return state_->summary; }

CsrAutoPlan CsrAutoPlan::build(const spmv_csr_view& A, cudaStream_t stream, const PlanRequest& request,
                               const plan::PlanSettings& settings) {
  plan::check_settings(settings);  // before any copy
  const auto start = std::chrono::steady_clock::now();
  auto state = std::make_unique<State>();
  state->matrix = A;
  PlanSummary& summary = state->summary;

  const std::vector<std::int32_t> row_ptr =
      A.rows > 0 ? download(A.row_ptr, std::int64_t{A.rows} + 1, stream) : std::vector<std::int32_t>{0};
  const std::vector<std::int32_t> col_idx = download(A.col_idx, A.nnz, stream);
  check(cudaStreamSynchronize(stream), "copying the matrix to the host");
  plan::HostCsr host{A.rows, A.cols, row_ptr, col_idx, {}};
  // The values only where packed slices will copy them.
  std::vector<float> values;
  if (request.kind.value_or(plan::choose_plan(host, settings).kind) == PlanKind::kSlices) {
    values = download(A.values, A.nnz, stream);
    check(cudaStreamSynchronize(stream), "copying the matrix to the host");
    host.values = values;
  }
  const plan::HostPlan laid = plan::lay_out_plan(host, request, settings);
  summary.kind = laid.choice.kind;
  summary.rule = laid.choice.rule;
  summary.description = laid.description;

  DeviceArrays arrays;
  std::size_t headers_at = 0, values_at = 0, narrow_at = 0, wide_at = 0, diagonals_at = 0;
  std::size_t starts_at = 0, seams_at = 0, cut_rows_at = 0, parts_at = 0, arrivals_at = 0, scratch_at = 0;
  if (summary.kind == PlanKind::kSlices) {
    const plan::PackedSlices& packed = *laid.slices;
    headers_at = arrays.add(packed.headers);
    values_at = arrays.add(packed.values);
    narrow_at = arrays.add(packed.narrow);
    wide_at = arrays.add(packed.wide);
    diagonals_at = arrays.add(packed.diagonals);
    summary.slices = packed.slices();
    summary.slices_by_encoding = packed.slices_by_encoding;
    summary.slots = packed.slots();
    summary.max_width = packed.max_width();
    summary.slice_kernel = laid.slice_kernel;
  } else if (summary.kind == PlanKind::kTiles) {
    const plan::MergeTiles& tiles = *laid.tiles;
    starts_at = arrays.add(tiles.starts);
    seams_at = arrays.add(tiles.seams);
    cut_rows_at = arrays.add(tiles.cut_rows);
    parts_at = arrays.add_zeros(static_cast<std::size_t>(tiles.part_slots) * sizeof(float));
    arrivals_at = arrays.add_zeros(tiles.cut_rows.size() * sizeof(unsigned int));
    summary.tiles = tiles.tiles();
    summary.cut_rows = static_cast<std::int64_t>(tiles.cut_rows.size());
    summary.tile_threads = laid.choice.tile_threads;
    summary.tile_thread_items = laid.choice.tile_thread_items;
  } else {
    scratch_at = arrays.add_zeros(spmv_csr_auto_scratch_size(&A));
  }

  state->memory = arrays.upload(stream);
  summary.device_bytes = arrays.bytes();
  const DeviceBlock& block = state->memory;
  if (summary.kind == PlanKind::kSlices) {
    state->slices = PackedSlicesView{A.rows,
                                     laid.slices->slices(),
                                     laid.slices->max_width(),
                                     laid.slice_kernel,
                                     at<plan::SliceHeader>(block, headers_at),
                                     at<float>(block, values_at),
                                     at<std::uint16_t>(block, narrow_at),
                                     at<std::int32_t>(block, wide_at),
                                     at<std::int32_t>(block, diagonals_at)};
  } else if (summary.kind == PlanKind::kTiles) {
    state->tiles = PlannedTiles{summary.tile_threads,
                                summary.tile_thread_items,
                                laid.tiles->tiles(),
                                at<plan::TileStart>(block, starts_at),
                                at<plan::TileSeam>(block, seams_at),
                                at<plan::CutRow>(block, cut_rows_at),
                                at<float>(block, parts_at),
                                at<unsigned int>(block, arrivals_at)};
  } else {
    state->scratch = static_cast<char*>(block.get()) + scratch_at;
  }
  summary.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return CsrAutoPlan(std::move(state));
}

int CsrAutoPlan::run(const float* x, float* y, cudaStream_t stream) const {
  const State& state = *state_;
  switch (state.summary.kind) {
    case PlanKind::kSlices: return enqueue_packed_slices(state.slices, x, y, stream);
    case PlanKind::kTiles: return enqueue_merge_planned(state.matrix, state.tiles, x, y, stream);
    case PlanKind::kRule: return csr_launch_choice(state.summary.rule, state.matrix, x, y, state.scratch, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace spmv::reference
