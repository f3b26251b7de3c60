#include "spmv_bench/kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "spmv/memory/buffer.hpp"
#include "spmv/plugin/plugin.hpp"
#include "spmv/reference/csr_auto.hpp"
#include "spmv/reference/csr_auto_plan.hpp"
#include "spmv/reference/plan_layout.hpp"
#include "spmv_bench/cuda_check.hpp"

namespace spmv::bench {
namespace {

// ---- reference kernels: the plugin table's type-erased launch functions

class ReferenceLauncher final : public Launcher {
 public:
  ReferenceLauncher(const spmv_kernel_entry& entry, const void* view, DeviceWorkload& w, cudaStream_t stream)
      : entry_(entry),
        view_(view),
        x_(w.x()),
        y_(w.y()),
        stream_(stream),
        scratch_(MemorySpace::kDevice, entry.scratch_size != nullptr ? entry.scratch_size(view) : 0) {}

  bool enqueue() override {
    const spmv_status status = entry_.launch(view_, x_, y_, scratch_.data(), stream_);
    if (status == SPMV_SUCCESS) return true;
    if (status == SPMV_NOT_IMPLEMENTED) return false;
    const std::string what = std::string("launch of kernel ") + entry_.name;
    if (status > 0) throw CudaError(what.c_str(), status);
    throw std::runtime_error(what + " returned " + std::to_string(status) +
                             ", which is neither SPMV_SUCCESS, a cudaError_t nor SPMV_NOT_IMPLEMENTED");
  }

 private:
  const spmv_kernel_entry& entry_;
  const void* view_;
  const float* x_;
  float* y_;
  cudaStream_t stream_;
  RawBuffer scratch_;  // null when the kernel asks for none, as the contract says
};

// What a reference kernel needs besides CSR, which is always there: its
// format, when the table has it (the workload refuses the others).
std::optional<HostFormat> host_format_of(spmv_format format) {
  if (format == SPMV_FORMAT_CSR || !is_format_id(format)) return std::nullopt;
  return host_format(format);
}

// What the reference "auto" kernel picked for the workload's CSR view.
std::string auto_choice(DeviceWorkload& w) {
  const std::optional<reference::CsrAutoChoice> choice = reference::csr_auto_choice_for(w.csr());
  return choice ? "auto picked " + choice->describe() : "auto's choice is unknown";
}

// ---- auto's candidates: a choice enqueued as auto would once it has chosen

class ChoiceLauncher final : public Launcher {
 public:
  ChoiceLauncher(const reference::CsrAutoChoice& choice, DeviceWorkload& w, cudaStream_t stream)
      : choice_(choice),
        view_(w.csr()),
        x_(w.x()),
        y_(w.y()),
        stream_(stream),
        scratch_(MemorySpace::kDevice, spmv_csr_auto_scratch_size(&view_)) {}

  bool enqueue() override {
    const int status = reference::csr_launch_choice(choice_, view_, x_, y_, scratch_.data(), stream_);
    if (status != 0) throw CudaError(("launch of auto's candidate " + choice_.describe()).c_str(), status);
    return true;
  }

 private:
  reference::CsrAutoChoice choice_;
  spmv_csr_view view_;
  const float* x_;
  float* y_;
  cudaStream_t stream_;
  RawBuffer scratch_;
};

// "rows", "rows16" (16 loads in flight), "scalar", "vector8x4", "stream128",
// "stream48L" (long rows by the block), "merge", "merge1L256".
std::string short_name(const reference::CsrAutoChoice& choice) {
  using Kernel = reference::CsrAutoChoice::Kernel;
  switch (choice.kernel) {
    case Kernel::kScalar: return "scalar";
    case Kernel::kRows: return choice.wide_rows ? "rows" + std::to_string(choice.row_loads()) : "rows";
    case Kernel::kVector:
      return "vector" + std::to_string(choice.threads_per_row) + "x" + std::to_string(choice.loads_per_lane);
    case Kernel::kMerge: return "merge";
    case Kernel::kMergeSingle: return "merge1L" + std::to_string(choice.tile_threads);
    case Kernel::kRowBlocks:
      return "stream" + std::to_string(choice.rows_per_block) + (choice.block_long_rows ? "L" : "");
  }
  return "?";
}

reference::RowLengthStats row_length_stats(const CsrMatrix& a) {
  return reference::plan::row_length_stats({a.rows, a.cols, a.row_ptr, a.col_idx, {}});
}

// ---- auto with a plan: built in the constructor, before timing, as
// cuSPARSE's buffers and preprocessing are

// "auto picked <the plan>", then its preparation: the first line is what the
// verdict shows.
std::string plan_note(const reference::PlanSummary& plan, const MatrixStats& stats) {
  const double rows = std::max(1.0, static_cast<double>(stats.rows));
  const double csr_bytes = 8.0 * static_cast<double>(stats.nnz) + 4.0 * (static_cast<double>(stats.rows) + 1.0);
  const bool replaces_csr = plan.kind == reference::PlanKind::kSlices;
  char text[400];
  std::snprintf(text, sizeof text,
                "auto picked %s\nplan built before timing (untimed, as cuSPARSE's preprocessing): %.1f ms on the host "
                "and the copies, %.2f MB of device memory (%.2f bytes a row%s; CSR's arrays %.2f bytes a row)",
                plan.description.c_str(), plan.build_seconds * 1e3, static_cast<double>(plan.device_bytes) * 1e-6,
                static_cast<double>(plan.device_bytes) / rows,
                replaces_csr ? ", read instead of CSR's" : ", read with CSR's", csr_bytes / rows);
  std::string note = text;
  if (replaces_csr) {
    std::snprintf(text, sizeof text, "; slices' kernel %d loads x %d blocks", plan.slice_kernel.loads,
                  plan.slice_kernel.min_blocks);
    note += text;
  }
  return note;
}

class PlanLauncher final : public Launcher {
 public:
  PlanLauncher(DeviceWorkload& w, const BenchContext& context, const reference::PlanRequest& request,
               const reference::plan::PlanSettings& settings)
      : x_(w.x()),
        y_(w.y()),
        stream_(context.stream),
        stats_(w.host().stats),
        plan_(build(w, context, request, settings)) {}

  bool enqueue() override {
    const int status = plan_.run(x_, y_, stream_);
    if (status != 0) throw CudaError("run of auto's plan", status);
    return true;
  }
  [[nodiscard]] std::string note() const override { return plan_note(plan_.summary(), stats_); }

 private:
  static reference::CsrAutoPlan build(DeviceWorkload& w, const BenchContext& context,
                                      const reference::PlanRequest& request,
                                      const reference::plan::PlanSettings& settings) {
    // A forced sliced layout pads every slice to its longest row: refused,
    // as cuSPARSE's sliced ELL is, when that is mostly padding.
    const CsrMatrix& csr = w.host().csr;
    if (request.kind == reference::PlanKind::kSlices) {
      const std::int64_t slots = reference::plan::sliced_ell_slots(csr.row_ptr);
      const double most_slots = SlicedEllLimits{}.max_slots_per_entry * static_cast<double>(csr.nnz());
      if (static_cast<double>(slots) > most_slots) {
        char why[160];
        std::snprintf(why, sizeof why,
                      "packed slices would hold %lld slots for %d entries (over %.1f an entry): "
                      "mostly padding",
                      static_cast<long long>(slots), csr.nnz(), SlicedEllLimits{}.max_slots_per_entry);
        throw NotApplicable(why);
      }
    }
    try {
      return reference::CsrAutoPlan::build(w.csr(), context.stream, request, settings);
    } catch (const std::invalid_argument& refused) {
      throw NotApplicable(refused.what());
    }
  }

  const float* x_;
  float* y_;
  cudaStream_t stream_;
  MatrixStats stats_;
  reference::CsrAutoPlan plan_;
};

bool is_table_auto(const spmv_kernel_entry& entry) {
  return entry.format == SPMV_FORMAT_CSR && std::string_view(entry.name) == "auto";
}

KernelInfo reference_kernel(const spmv_plugin& plugin, const spmv_kernel_entry& entry) {
  const bool is_auto = is_table_auto(entry);
  const std::string description = entry.description != nullptr ? entry.description : "";
  return KernelInfo{
      is_auto ? kTableAutoKernel : entry.name,
      plugin.name,
      format_name(entry.format),
      is_auto ? "the table's auto (chooses on its first call, keeps no plan): " + description : description,
      host_format_of(entry.format),
      /*poison_y=*/true,
      is_auto ? std::function<std::string(DeviceWorkload&)>(auto_choice) : nullptr,
      [&entry](DeviceWorkload& w, const BenchContext& context) -> std::unique_ptr<Launcher> {
        return std::make_unique<ReferenceLauncher>(entry, w.view(entry.format), w, context.stream);
      }};
}

// ---- cuSPARSE: generic API, fp32 values, int32 indices, zero-based

struct SpMatDeleter {
  void operator()(cusparseConstSpMatDescr_t descriptor) const noexcept { cusparseDestroySpMat(descriptor); }
};
struct DnVecDeleter {
  void operator()(cusparseConstDnVecDescr_t descriptor) const noexcept { cusparseDestroyDnVec(descriptor); }
};
using SpMat = std::unique_ptr<const cusparseSpMatDescr, SpMatDeleter>;
using ConstDnVec = std::unique_ptr<const cusparseDnVecDescr, DnVecDeleter>;
using DnVec = std::unique_ptr<cusparseDnVecDescr, DnVecDeleter>;

constexpr cusparseOperation_t kNoTranspose = CUSPARSE_OPERATION_NON_TRANSPOSE;

class CusparseLauncher final : public Launcher {
 public:
  CusparseLauncher(const BenchContext& context, SpMat matrix, cusparseSpMVAlg_t algorithm, DeviceWorkload& w)
      : handle_(context.cusparse), matrix_(std::move(matrix)), algorithm_(algorithm) {
    cusparseConstDnVecDescr_t x = nullptr;
    SPMV_CUSPARSE_CHECK(cusparseCreateConstDnVec(&x, w.host().csr.cols, w.x(), CUDA_R_32F));
    x_.reset(x);
    cusparseDnVecDescr_t y = nullptr;
    SPMV_CUSPARSE_CHECK(cusparseCreateDnVec(&y, w.host().csr.rows, w.y(), CUDA_R_32F));
    y_.reset(y);
    std::size_t bytes = 0;
    SPMV_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, kNoTranspose, &alpha_, matrix_.get(), x_.get(), &beta_,
                                                y_.get(), CUDA_R_32F, algorithm_, &bytes));
    // Never a null workspace, even when none is asked for: one byte keeps
    // cuSPARSE from having to tell "none needed" from "not given".
    workspace_ = RawBuffer(MemorySpace::kDevice, std::max<std::size_t>(bytes, 1));
    // Analysis happens once here, outside the timed calls. It is optional,
    // so an algorithm without one may decline.
    const cusparseStatus_t preprocessed =
        cusparseSpMV_preprocess(handle_, kNoTranspose, &alpha_, matrix_.get(), x_.get(), &beta_, y_.get(), CUDA_R_32F,
                                algorithm_, workspace_.data());
    if (preprocessed != CUSPARSE_STATUS_NOT_SUPPORTED) {
      check_cusparse_at(preprocessed, "cusparseSpMV_preprocess", SPMV_BENCH_WHERE);
    }
  }

  bool enqueue() override {
    SPMV_CUSPARSE_CHECK(cusparseSpMV(handle_, kNoTranspose, &alpha_, matrix_.get(), x_.get(), &beta_, y_.get(),
                                     CUDA_R_32F, algorithm_, workspace_.data()));
    return true;
  }

 private:
  cusparseHandle_t handle_;
  SpMat matrix_;
  cusparseSpMVAlg_t algorithm_;
  ConstDnVec x_;
  DnVec y_;
  RawBuffer workspace_;
  float alpha_ = 1.0f;
  float beta_ = 0.0f;
};

SpMat describe_csr(DeviceWorkload& w) {
  const spmv_csr_view& a = w.csr();
  cusparseConstSpMatDescr_t descriptor = nullptr;
  SPMV_CUSPARSE_CHECK(cusparseCreateConstCsr(&descriptor, a.rows, a.cols, a.nnz, a.row_ptr, a.col_idx, a.values,
                                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                             CUDA_R_32F));
  return SpMat(descriptor);
}

SpMat describe_coo(DeviceWorkload& w) {
  const spmv_coo_view& a = w.view_of<CooMatrix>();
  cusparseConstSpMatDescr_t descriptor = nullptr;
  SPMV_CUSPARSE_CHECK(cusparseCreateConstCoo(&descriptor, a.rows, a.cols, a.nnz, a.row_idx, a.col_idx, a.values,
                                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  return SpMat(descriptor);
}

SpMat describe_sliced_ell(DeviceWorkload& w) {
  const SlicedEllBuffers& a = w.sliced_ell();
  cusparseConstSpMatDescr_t descriptor = nullptr;
  SPMV_CUSPARSE_CHECK(cusparseCreateConstSlicedEll(
      &descriptor, a.rows, a.cols, a.nnz, static_cast<std::int64_t>(a.slots), a.slice_size, a.slice_offsets.data(),
      a.col_idx.data(), a.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  return SpMat(descriptor);
}

KernelInfo cusparse_kernel(std::string name, std::string format, std::string description,
                           std::optional<HostFormat> host_format, SpMat (*describe)(DeviceWorkload&),
                           cusparseSpMVAlg_t algorithm) {
  return KernelInfo{std::move(name),
                    kCusparseProvider,
                    std::move(format),
                    std::move(description),
                    host_format,
                    /*poison_y=*/false,
                    nullptr,
                    [describe, algorithm](DeviceWorkload& w, const BenchContext& context) -> std::unique_ptr<Launcher> {
                      return std::make_unique<CusparseLauncher>(context, describe(w), algorithm, w);
                    }};
}

void require_usable(const spmv_plugin& plugin) {
  const std::string name = plugin.name != nullptr ? plugin.name : "(unnamed)";
  if (plugin.abi_version != SPMV_PLUGIN_ABI_VERSION) {
    throw std::runtime_error("plugin table \"" + name + "\" has ABI version " + std::to_string(plugin.abi_version) +
                             ", expected " + std::to_string(SPMV_PLUGIN_ABI_VERSION));
  }
  if (plugin.memory != SPMV_MEMORY_DEVICE) {
    throw std::runtime_error("plugin table \"" + name + "\" holds host kernels; spmv-bench times GPU kernels");
  }
  if (plugin.kernel_count > 0 && plugin.kernels == nullptr) {
    throw std::runtime_error("plugin table \"" + name + "\" lists " + std::to_string(plugin.kernel_count) +
                             " kernels but no array of them");
  }
}

}  // namespace

KernelInfo plan_kernel(std::string name, std::string description, const reference::PlanRequest& request,
                       const reference::plan::PlanSettings& settings) {
  return KernelInfo{std::move(name),
                    "reference",
                    "csr",
                    std::move(description),
                    std::nullopt,
                    /*poison_y=*/true,
                    nullptr,
                    [request, settings](DeviceWorkload& w, const BenchContext& context) -> std::unique_ptr<Launcher> {
                      return std::make_unique<PlanLauncher>(w, context, request, settings);
                    }};
}

std::vector<KernelInfo> kernel_catalogue(const spmv_plugin& reference) {
  require_usable(reference);
  std::vector<KernelInfo> kernels;
  kernels.push_back(cusparse_kernel(kBaselineKernel, "csr", "cuSPARSE CSR, CUSPARSE_SPMV_CSR_ALG1 (the default)",
                                    std::nullopt, describe_csr, CUSPARSE_SPMV_CSR_ALG1));
  for (std::uint32_t i = 0; i < reference.kernel_count; ++i) {
    kernels.push_back(reference_kernel(reference, reference.kernels[i]));
    if (is_table_auto(reference.kernels[i])) {
      kernels.push_back(
          plan_kernel(kPlannedAutoKernel,
                      "CSR through auto's plan, built before timing as cuSPARSE's preprocessing is: packed "
                      "slices, planned merge tiles or the rule's kernel, one launch",
                      {}));
    }
  }
  kernels.push_back(cusparse_kernel(kSecondCsrBaseline, "csr",
                                    "cuSPARSE CSR, CUSPARSE_SPMV_CSR_ALG2 (bit-wise deterministic)", std::nullopt,
                                    describe_csr, CUSPARSE_SPMV_CSR_ALG2));
  kernels.push_back(cusparse_kernel("cusparse_coo_alg1", "coo", "cuSPARSE COO, CUSPARSE_SPMV_COO_ALG1",
                                    host_format(SPMV_FORMAT_COO), describe_coo, CUSPARSE_SPMV_COO_ALG1));
  kernels.push_back(cusparse_kernel("cusparse_sell_alg1", "sell",
                                    "cuSPARSE sliced ELL (slices of 32 rows), CUSPARSE_SPMV_SELL_ALG1",
                                    HostFormat::kSlicedEll, describe_sliced_ell, CUSPARSE_SPMV_SELL_ALG1));
  return kernels;
}

std::vector<KernelInfo> auto_candidate_kernels(const CsrMatrix& csr) {
  std::vector<KernelInfo> kernels;
  const reference::RowLengthStats stats = row_length_stats(csr);
  for (const reference::CsrAutoChoice& choice : reference::csr_auto_candidates(stats)) {
    kernels.push_back(KernelInfo{"auto=" + short_name(choice), "reference", "csr",
                                 "auto's candidate " + choice.describe(), std::nullopt,
                                 /*poison_y=*/true, nullptr,
                                 [choice](DeviceWorkload& w, const BenchContext& context) -> std::unique_ptr<Launcher> {
                                   return std::make_unique<ChoiceLauncher>(choice, w, context.stream);
                                 }});
  }
  // Small matrices with a long row: the planned tiles in each shape the
  // tile kernel is built for (tuning::kPlanSmallTiles is one of them).
  if (reference::plan::times_small_tile_shapes(stats)) {
    for (const reference::plan::TileShape& shape : reference::plan::small_tile_shapes()) {
      const std::string name = std::to_string(shape.threads) + "x" + std::to_string(shape.items);
      kernels.push_back(plan_kernel("auto=plan-tiles" + name,
                                    "auto's plan, forced to tiles of " + std::to_string(shape.threads) + " threads x " +
                                        std::to_string(shape.items) + " items",
                                    {reference::PlanKind::kTiles, shape.threads, shape.items}));
    }
  }
  for (const reference::PlanKind kind :
       {reference::PlanKind::kSlices, reference::PlanKind::kTiles, reference::PlanKind::kRule}) {
    const std::string name = reference::plan_kind_name(kind);
    kernels.push_back(plan_kernel("auto=plan-" + name, "auto's plan, forced to " + name, {kind, 0, 0}));
  }
  return kernels;
}

CusparseHandle::CusparseHandle(cudaStream_t stream) {
  SPMV_CUSPARSE_CHECK(cusparseCreate(&handle_));
  try {
    SPMV_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
  } catch (...) {
    cusparseDestroy(handle_);
    throw;
  }
}

CusparseHandle::~CusparseHandle() { cusparseDestroy(handle_); }

}  // namespace spmv::bench
