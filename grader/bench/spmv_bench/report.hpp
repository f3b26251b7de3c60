// Results of spmv-bench: one line per matrix x kernel as it finishes, a CSV
// row each, and a compact summary printed last (on the GPU machine only the
// end of the output may be seen).
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "spmv_bench/timing.hpp"
#include "spmv_bench/workload.hpp"

namespace spmv::bench {

enum class Outcome {
  kTimed,           // correct, then timed
  kWrong,           // failed the tolerance check: not timed
  kNotApplicable,   // the format refused the matrix, or is unknown to the bench
  kNotImplemented,  // the kernel returned SPMV_NOT_IMPLEMENTED
  kFailed,          // a CUDA or cuSPARSE error
};

const char* outcome_label(Outcome outcome);

struct ResultRow {
  std::string matrix;  // label
  std::string kernel;
  std::string provider;
  std::string format;
  Outcome outcome = Outcome::kFailed;
  std::string detail;   // why it was not timed, or a note
  TimingResult timing;  // meaningful when outcome == kTimed
};

// The compulsory bytes of one CSR SpMV, used for every kernel's GB/s:
// 8 * nnz + 4 * (rows + 1) + 4 * cols + 4 * rows.
double model_bytes(const MatrixStats& stats);

struct Metrics {
  double gflops = 0;    // 2 * nnz / time
  double gb_per_s = 0;  // model_bytes / time
  double percent_of_copy = 0;
  std::optional<double> speedup;  // baseline time / time
};

// The geometric mean of positive values (1 for none).
double geometric_mean(const std::vector<double>& values);

Metrics metrics_of(const MatrixStats& stats, const TimingResult& timing, double copy_gb_per_s,
                   std::optional<double> baseline_ms);

class Report {
 public:
  // Opens the CSV file (if any) at once, so a bad path fails before any work.
  Report(std::ostream& out, const std::optional<std::filesystem::path>& csv_path);

  // The measured copy bandwidth behind %copy; set before the first add().
  void set_copy_bandwidth(double gb_per_s) { copy_gb_per_s_ = gb_per_s; }

  void begin_matrix(const HostWorkload& host);
  // The matrix's same-size copy (model_bytes / 2 each way), timed like its
  // kernels; call after begin_matrix, before or after its rows.
  void set_matrix_copy(const TimingResult& copy);
  void add(const ResultRow& row);
  void matrix_failed(const MatrixSource& source, const std::string& why);
  // The device can no longer be used (a kernel corrupted the context).
  void abort_run(const std::string& why);
  void print_summary();
  // True when a kernel was wrong or failed, a matrix could not be loaded,
  // or the run was aborted.
  [[nodiscard]] bool any_failure() const;

 private:
  struct MatrixEntry {
    std::string label;
    std::string origin;
    MatrixStats stats;
    std::optional<double> baseline_ms;
    std::string load_error;
    std::string suite;  // MatrixSource::suite
    std::string kind;
    std::string half;  // MatrixSource::half
    bool regular = false;
    std::optional<double> copy_ms;  // the same-size copy
  };

  void print_row(const ResultRow& row, const Metrics& metrics);
  void write_csv_row(const MatrixEntry& matrix, const ResultRow& row, const Metrics& metrics);
  enum class PivotValue { kGbPerS, kSpeedupOverBestCusparse, kPercentOfSameCopy };
  // Rows are matrices, columns kernels.
  void print_pivot(const std::string& title, PivotValue value);
  // The verdict: per matrix, auto against the fastest cuSPARSE kernel and
  // the same-size copy; geometric means by suite, and by half of a suite
  // that is split (the real suite's tuning and validation halves).
  void print_verdict();
  // The fastest timed cuSPARSE row on this matrix, if any.
  [[nodiscard]] const ResultRow* best_cusparse(const std::string& matrix) const;
  // The fastest timed row of the reference plugin (auto's candidates
  // excluded), if any.
  [[nodiscard]] const ResultRow* best_reference(const std::string& matrix) const;
  [[nodiscard]] const ResultRow* find(const std::string& matrix, const std::string& kernel) const;

  std::ostream& out_;
  double copy_gb_per_s_ = 0;
  std::ofstream csv_;
  std::vector<MatrixEntry> matrices_;
  std::vector<ResultRow> rows_;
  std::vector<std::string> kernel_order_;
  std::string abort_reason_;
};

// A CSV field: as it is, or quoted (its quotes doubled) if it holds a
// comma, a quote or a line break.
std::string csv_field(const std::string& text);

}  // namespace spmv::bench
