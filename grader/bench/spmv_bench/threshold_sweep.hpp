// spmv-bench --sweep-thresholds: auto's plan timed at several values of
// each threshold of its choice and of each shape of the packed slices'
// kernel (reference::plan::PlanSettings), on generated matrices that lie on
// either side of each default, with the fastest cuSPARSE algorithm of the
// same run as the yardstick (docs/performance.md, "The threshold sweep").
//
// The host side, here and unit-tested: the series (a threshold, its
// values, its matrices), what each value lays out on each matrix (through
// the choice's own functions: plan::choose_plan, plan::laid_out_kind,
// plan::slice_kernel_for), the plans to time (each distinct one once), and
// the rows and the summary from their times. spmv_bench.cpp times them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "spmv/core/formats.hpp"
#include "spmv/reference/csr_auto.hpp"
#include "spmv/reference/plan_layout.hpp"
#include "spmv_bench/suite.hpp"

namespace spmv::bench::sweep {

namespace plan = reference::plan;

// The thresholds of plan::PlanSettings. The first four switch between
// packed slices and the rule; the last two are kernel shapes, timed on
// packed slices forced.
enum class Threshold {
  kSlicesMinPath,
  kSlicesMaxMean,
  kSlicesMaxPadding,
  kSlicesMaxBytes,
  kSliceKernel,
  kShortSliceKernel,
};
inline constexpr std::array kThresholds = {Threshold::kSlicesMinPath,    Threshold::kSlicesMaxMean,
                                           Threshold::kSlicesMaxPadding, Threshold::kSlicesMaxBytes,
                                           Threshold::kSliceKernel,      Threshold::kShortSliceKernel};

struct ThresholdInfo {
  std::string_view name;       // "slices_max_mean": the PlanSettings member, and --sweep-thresholds' word
  std::string_view tuning;     // "kPlanSlicesMaxMean": its default in reference/tuning.hpp
  std::string_view statistic;  // "mean_row": the matrix's figure it is compared with
};
const ThresholdInfo& info(Threshold threshold);
// Whether the threshold switches between packed slices and the rule (the
// others pick a kernel shape).
bool is_switch(Threshold threshold);

// "all", or names of info(); throws std::invalid_argument naming the
// unknown word and the known ones.
std::vector<Threshold> thresholds_named(const std::vector<std::string>& names);

// What a matrix holds that the thresholds are compared with, computed once.
struct MatrixFigures {
  reference::RowLengthStats stats;
  reference::CsrAutoChoice rule;             // the rule's settled choice (plan::choose_plan's)
  std::int64_t ell_slots = 0;                // plan::sliced_ell_slots
  std::optional<std::int64_t> slices_bytes;  // product_bytes through its packed slices; none where they cannot hold it
  std::int64_t csr_bytes = 0;                // product_bytes through CSR
  std::int32_t max_width = 0;                // the widest packed slice's slots (0 without slices)

  [[nodiscard]] std::int64_t path() const { return stats.rows + stats.nnz; }
  [[nodiscard]] double mean_row() const;
  [[nodiscard]] double padding() const;  // sliced ELL slots / nnz - 1
  [[nodiscard]] std::optional<double> bytes_ratio() const;
};
MatrixFigures figures_of(const CsrMatrix& a);
// The figure `threshold` is compared with (NaN for the bytes ratio of a
// matrix packed slices cannot hold).
double statistic(Threshold threshold, const MatrixFigures& figures);
// The threshold's value in `settings` (a kernel shape's loads).
double value_in(Threshold threshold, const plan::PlanSettings& settings);

// ---- The sweep's own generators (deterministic for a seed)

// Rows of mean - spread .. mean + spread entries (uniform, at least 0),
// each a run of consecutive columns centred on the diagonal (moved inwards
// at the edges): a band whose rows' lengths vary, so that a sliced ELL
// pads it by about spread / mean while its slices stay diagonal.
CsrMatrix spread_band(index_t rows, index_t mean, index_t spread, std::uint64_t seed);
// Rows of mean - spread .. mean + spread distinct random columns anywhere
// in `cols` (32-bit slices once they pass the 16-bit span): a sliced ELL pads
// them by about spread / mean, so that past a few percent their packed
// slices move more bytes than CSR (a padding slot costs 8 bytes, as an
// entry does, and the row pointers they save are 4 bytes a row).
CsrMatrix spread_random(index_t rows, index_t cols, index_t mean, index_t spread, std::uint64_t seed);
// Rows of per_row distinct random columns; in a share `narrow_share` of
// the slices of 32 rows (spread evenly) the columns lie within a window of
// kWindow columns around the row (16-bit slices), elsewhere anywhere
// (32-bit slices): the bytes ratio of packed slices falls with the share.
inline constexpr index_t kWindow = 30'000;
CsrMatrix window_mix(index_t rows, index_t per_row, double narrow_share, std::uint64_t seed);

// ---- The series

// A value of a threshold: the default settings with it set.
struct Value {
  std::string label;  // "32", "0.10", "2^20", "8x6"
  double number = 0;  // the threshold's value (loads for a kernel shape)
  plan::PlanSettings settings;
  bool is_default = false;  // settings == PlanSettings{}
};

struct Series {
  Threshold threshold = Threshold::kSlicesMaxMean;
  std::vector<Value> values;          // ascending; the default among them
  std::vector<std::size_t> matrices;  // indices into SweepPlan::matrices
};

struct SweepPlan {
  std::vector<MatrixSource> matrices;  // each once, however many series use it
  std::vector<Series> series;
};

// The series of `thresholds`, in kThresholds' order. With `quick`, the
// large matrices have a sixteenth of their rows (the stencils of the
// slices_min_path series keep their sizes, which are its point): a smoke
// test whose figures still straddle the thresholds.
SweepPlan plan_sweep(const std::vector<Threshold>& thresholds, bool quick);

// ---- What a value lays out, and the plans to time

// What `settings` lay out on a matrix of these figures (for a kernel
// shape: packed slices forced), and the kernel row that times it:
//  - switches: "auto" (auto's plan, not forced, default settings) where
//    the kind is the default settings' kind, else "auto=plan-slices" or
//    "auto=plan-rule" (that kind forced);
//  - kernel shapes: "auto=slices-<loads>x<blocks>" (packed slices forced,
//    the shape plan::slice_kernel_for gives).
struct Pick {
  reference::PlanKind kind = reference::PlanKind::kRule;
  plan::SliceKernelShape slice_kernel;  // kSlices
  std::string kernel;
};
Pick pick(Threshold threshold, const MatrixFigures& figures, const plan::PlanSettings& settings);

// A plan to time on a matrix: a kernel row of spmv-bench.
struct Variant {
  std::string kernel;
  std::string description;
  reference::PlanRequest request;
  plan::PlanSettings settings;
  Pick expected;  // what its plan must be (checked against the launcher's note)
};
// Every distinct plan the values of the matrix's series pick, each once;
// for the switches also both kinds (packed slices, the rule) whether or
// not a value picks them, so that each matrix has its measured faster kind.
std::vector<Variant> variants_for(const SweepPlan& plan, std::size_t matrix, const MatrixFigures& figures);

// ---- Times back, rows and summary

struct KernelTiming {
  std::string status;    // spmv-bench's outcome label: "ok", "WRONG", "n/a", "FAILED", ...
  double ms = 0;         // status "ok": the median
  std::string note;      // the launcher's note (auto's plan: "auto picked ...", its preparation)
  std::string mismatch;  // not empty when the plan was not the one expected
};

struct MatrixResult {
  std::size_t matrix = 0;  // index into SweepPlan::matrices
  MatrixFigures figures;
  std::map<std::string, KernelTiming> kernels;  // by kernel name
  std::string best_cusparse;                    // the fastest timed cuSPARSE kernel; empty for none
  double best_cusparse_ms = 0;
};

// Checks a timed variant's note against what it was expected to lay out
// (the plan's kind; for packed slices the kernel shape); empty when it
// agrees, else why not.
std::string check_note(const Variant& variant, const std::string& note);

// One row of the sweep: a value of a threshold on a matrix.
struct Row {
  std::string matrix;
  std::string origin;
  std::string threshold;
  std::string value;
  double value_number = 0;
  bool chosen_by_default = false;  // the value is the default: this row is what auto's plan does
  std::string statistic;           // ThresholdInfo::statistic
  double statistic_value = 0;
  std::string plan;    // what the value lays out: the plan's description (and the slices' kernel)
  std::string kernel;  // the kernel row that timed it
  std::string status;  // "ok", or why there is no time
  double ms = 0;
  std::string best_cusparse;
  double best_cusparse_ms = 0;
  std::optional<double> speedup;  // best cuSPARSE ms / ms
};
std::vector<Row> rows_of(const SweepPlan& plan, const std::vector<MatrixResult>& results);

inline constexpr std::string_view kCsvHeader =
    "matrix,threshold,value,plan,ms,speedup_vs_best_cusparse,chosen_by_default,status,value_number,statistic,"
    "statistic_value,kernel,best_cusparse,best_cusparse_ms,origin";
void write_csv(std::ostream& out, const std::vector<Row>& rows);  // kCsvHeader, then the rows
void write_csv_rows(std::ostream& out, const std::vector<Row>& rows);

// Per threshold: a line per matrix (its figure, each plan's time, the
// faster, the best cuSPARSE), where the faster kind changes along the
// figure and where the default puts the change, and per value the
// geometric mean of its time over the fastest plan of each matrix and its
// speedup over the fastest cuSPARSE algorithm; the fastest value(s) last.
void print_summary(std::ostream& out, const SweepPlan& plan, const std::vector<MatrixResult>& results);

}  // namespace spmv::bench::sweep
