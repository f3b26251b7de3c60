// auto with a plan: like cuSPARSE's SpMV preprocessing, a plan is built
// once from a CSR matrix in device memory, owns the device memory it needs,
// and each run is one launch reading it.
//
//   CsrAutoPlan plan = CsrAutoPlan::build(A, stream);  // copies A to the host, lays out, uploads
//   plan.run(x, y, stream);                             // y = A x, as often as needed
//
// The kinds of plan (plan_layout.hpp has the layouts, plan::choose_plan the
// choice, tuning.hpp its thresholds):
//  - kSlices: the matrix repacked as slices of 32 rows whose column indices
//    take 0, 2 or 4 bytes a slot, without row pointers; the plan holds a
//    copy of the values and reads nothing of A;
//  - kTiles: csr_merge's tiles with their starts and the hand-over of cut
//    rows planned, read with A's arrays in one launch;
//  - kRule: the choice of the rule of csr_auto.hpp (what the plugin's auto
//    picks on its first call), run on A's arrays with the plan's scratch.
//
// Unlike the plugin's auto (spmv_csr_auto), which keeps nothing between
// calls it can trust, a plan is of one matrix: it reads A's arrays (kTiles,
// kRule), which must outlive it and keep the matrix it was built from. A
// run neither allocates nor synchronizes. One run at a time per plan: the
// tiles' parts and the scratch are the plan's (runs on one stream are one
// at a time).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "spmv/contract/csr.h"
#include "spmv/reference/csr_auto.hpp"
#include "spmv/reference/plan_layout.hpp"

namespace spmv::reference {

// What a plan is, for reports.
struct PlanSummary {
  PlanKind kind = PlanKind::kRule;
  CsrAutoChoice rule;                                // the rule's choice for the matrix (run by kRule)
  std::string description;                           // plan::describe_slices or describe_tiles, or the rule's
  std::size_t device_bytes = 0;                      // device memory the plan holds (A's arrays not counted)
  double build_seconds = 0;                          // build(): copies to and from the host included
  std::int64_t slices = 0;                           // kSlices
  std::array<std::int64_t, 3> slices_by_encoding{};  // kSlices, by plan::SliceEncoding
  std::int64_t slots = 0;                            // kSlices: real and padding
  std::int32_t max_width = 0;                        // kSlices: the widest slice's slots
  plan::SliceKernelShape slice_kernel;               // kSlices: the kernel a run takes
  std::int64_t tiles = 0;                            // kTiles
  std::int64_t cut_rows = 0;                         // kTiles
  int tile_threads = 0;                              // kTiles
  int tile_thread_items = 0;                         // kTiles: merge-path items a thread walks
};

class CsrAutoPlan {
 public:
  // Builds the plan of A, whose arrays are in device memory: copies them to
  // the host (after the work already on `stream`), lays the plan out there
  // (plan::lay_out_plan, with `settings`: tuning.hpp's by default) and
  // uploads it, and returns when it is ready. Throws std::runtime_error for
  // a CUDA error (out of memory, say), std::invalid_argument for a forced
  // kind that cannot hold A or settings plan::check_settings refuses.
  static CsrAutoPlan build(const spmv_csr_view& A, cudaStream_t stream, const PlanRequest& request = {},
                           const plan::PlanSettings& settings = {});

  CsrAutoPlan(CsrAutoPlan&&) noexcept;
  CsrAutoPlan& operator=(CsrAutoPlan&&) noexcept;
  CsrAutoPlan(const CsrAutoPlan&) = delete;
  CsrAutoPlan& operator=(const CsrAutoPlan&) = delete;
  ~CsrAutoPlan();

  // Enqueues y = A x on `stream`: x has A.cols entries, y A.rows, every one
  // written. Returns a cudaError_t value (0 on success).
  int run(const float* x, float* y, cudaStream_t stream) const;

  [[nodiscard]] PlanKind kind() const;
  [[nodiscard]] const PlanSummary& summary() const;

 private:
  struct State;
  explicit CsrAutoPlan(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace spmv::reference
