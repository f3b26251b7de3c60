// The kernels spmv-bench times: every entry of the reference plugin table
// (so a kernel added to the table appears here without a change) and
// cuSPARSE's SpMV on CSR (ALG1, ALG2), COO and sliced ELL.
#pragma once

#include <cusparse.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/reference/plan_layout.hpp"
#include "spmv_bench/workload.hpp"

namespace spmv::bench {

// One prepared SpMV: enqueues y = A * x on its stream. Preparation
// (scratch, cuSPARSE buffers and analysis) happens in the constructor, so
// enqueue() never allocates or synchronizes.
class Launcher {
 public:
  virtual ~Launcher() = default;
  // False when the kernel reports SPMV_NOT_IMPLEMENTED; throws on a failure.
  virtual bool enqueue() = 0;
  // What the launcher has to say about its preparation, asked after the
  // kernel has run (auto's plan: what it picked, its build time and bytes);
  // empty for most. Takes the place of KernelInfo::note when not empty.
  [[nodiscard]] virtual std::string note() const { return {}; }
};

struct BenchContext {
  cudaStream_t stream = nullptr;
  cusparseHandle_t cusparse = nullptr;  // bound to `stream`
};

struct KernelInfo {
  std::string name;      // unique, e.g. "csr_vector", "cusparse_csr_alg1"
  std::string provider;  // the reference plugin's name, or "cuSPARSE"
  std::string format;    // "csr", "coo", ...
  std::string description;
  std::optional<HostFormat> host_format;  // what it needs besides CSR
  // Whether the correctness check starts from a NaN-poisoned y (the
  // contract: every row is written) or from zeros (cuSPARSE computes
  // alpha * A * x + beta * y; whether it reads y when beta = 0 is not what
  // the bench checks).
  bool poison_y = true;
  // For a kernel that makes choices of its own (the reference "auto"): what
  // it chose on this matrix, asked after it has run. Empty for the others.
  std::function<std::string(DeviceWorkload&)> note;
  // Throws NotApplicable when the matrix cannot be given to the kernel.
  std::function<std::unique_ptr<Launcher>(DeviceWorkload&, const BenchContext&)> make;
};

// Speedups are relative to this kernel, which therefore always runs first.
inline constexpr const char* kBaselineKernel = "cusparse_csr_alg1";
// The reference's auto with a plan (reference::CsrAutoPlan, built before
// timing as cuSPARSE's preprocessing is), the verdict's subject; and the
// plugin table's auto, which chooses on its first call and keeps no plan
// (the table names it "auto"; the bench lists it under this name).
inline constexpr const char* kPlannedAutoKernel = "auto";
inline constexpr const char* kTableAutoKernel = "auto_csr";
// The other cuSPARSE CSR algorithm: "auto" is measured against the faster.
inline constexpr const char* kSecondCsrBaseline = "cusparse_csr_alg2";

// The provider name of the cuSPARSE kernels: the summary compares every
// kernel with the fastest of them on each matrix.
inline constexpr const char* kCusparseProvider = "cuSPARSE";

// Baseline first, then the reference table in its order (its CSR "auto"
// as kTableAutoKernel, followed by kPlannedAutoKernel), then the other
// cuSPARSE kernels. Throws std::runtime_error for a table of another ABI
// version or of host kernels.
std::vector<KernelInfo> kernel_catalogue(const spmv_plugin& reference);

// Each kernel auto's rule could give this matrix (reference::
// csr_auto_candidates), as "auto=<short name>" kernels run through
// reference::csr_launch_choice with auto's scratch, its rule's own choice
// first; on a small matrix with a long row (reference::plan::
// times_small_tile_shapes), the planned tiles in every small shape,
// "auto=plan-tiles64x1" .. "auto=plan-tiles256x5" (threads x items a
// thread); then each kind of auto's plan, forced: "auto=plan-slices",
// "auto=plan-tiles", "auto=plan-rule".
std::vector<KernelInfo> auto_candidate_kernels(const CsrMatrix& csr);

// auto's plan, built in the launcher's constructor (before timing, as
// cuSPARSE's preprocessing is) as `request` asks, with `settings` (the
// threshold sweep's; tuning.hpp's by default). Its note: "auto picked
// <the plan>", then its preparation (for packed slices, "slices' kernel
// <loads> loads x <blocks> blocks" among it).
KernelInfo plan_kernel(std::string name, std::string description, const reference::PlanRequest& request,
                       const reference::plan::PlanSettings& settings = {});

// RAII cuSPARSE handle bound to one stream.
class CusparseHandle {
 public:
  explicit CusparseHandle(cudaStream_t stream);
  CusparseHandle(const CusparseHandle&) = delete;
  CusparseHandle& operator=(const CusparseHandle&) = delete;
  ~CusparseHandle();
  [[nodiscard]] cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

}  // namespace spmv::bench
