#include "spmv_bench/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

#include "spmv_bench/kernels.hpp"

namespace spmv::bench {
namespace {

// printf into a std::string; the attribute keeps format/argument checks at
// every call site.
[[gnu::format(printf, 1, 2)]] std::string printf_string(const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list measuring;
  va_copy(measuring, args);
  const int size = std::vsnprintf(nullptr, 0, format, measuring);
  va_end(measuring);
  if (size < 0) {
    va_end(args);
    throw std::runtime_error(std::string("bad format string: ") + format);
  }
  std::string text(static_cast<std::size_t>(size) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), format, args);
  va_end(args);
  text.resize(static_cast<std::size_t>(size));
  return text;
}

constexpr const char* kCsvHeader =
    "matrix,origin,rows,cols,nnz,max_row,kernel,provider,format,status,median_ms,min_ms,max_ms,runs,"
    "gflops,gb_per_s,percent_of_copy,speedup_vs_cusparse_csr_alg1,model_bytes,detail,suite,kind,"
    "same_size_copy_ms,half";

constexpr int kKernelColumn = 20;

std::string indent_lines(const std::string& text, const std::string& prefix) {
  std::string result = prefix;
  for (const char c : text) {
    result += c;
    if (c == '\n') result += prefix;
  }
  return result;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

const char* outcome_label(Outcome outcome) {
  switch (outcome) {
    case Outcome::kTimed: return "ok";
    case Outcome::kWrong: return "WRONG";
    case Outcome::kNotApplicable: return "n/a";
    case Outcome::kNotImplemented: return "n/impl";
    case Outcome::kFailed: return "FAILED";
  }
  return "unknown";
}

double geometric_mean(const std::vector<double>& values) {
  double log_sum = 0;
  for (const double value : values) log_sum += std::log(value);
  return values.empty() ? 1.0 : std::exp(log_sum / static_cast<double>(values.size()));
}

double model_bytes(const MatrixStats& stats) {
  const auto rows = static_cast<double>(stats.rows);
  const auto cols = static_cast<double>(stats.cols);
  const auto nnz = static_cast<double>(stats.nnz);
  return 8.0 * nnz + 4.0 * (rows + 1.0) + 4.0 * cols + 4.0 * rows;
}

Metrics metrics_of(const MatrixStats& stats, const TimingResult& timing, double copy_gb_per_s,
                   std::optional<double> baseline_ms) {
  Metrics metrics;
  const double seconds = timing.median_ms * 1e-3;
  if (!(seconds > 0)) return metrics;
  metrics.gflops = 2.0 * static_cast<double>(stats.nnz) / seconds * 1e-9;
  metrics.gb_per_s = model_bytes(stats) / seconds * 1e-9;
  metrics.percent_of_copy = copy_gb_per_s > 0 ? 100.0 * metrics.gb_per_s / copy_gb_per_s : 0.0;
  if (baseline_ms) metrics.speedup = *baseline_ms / timing.median_ms;
  return metrics;
}

Report::Report(std::ostream& out, const std::optional<std::filesystem::path>& csv_path) : out_(out) {
  if (!csv_path) return;
  csv_.open(*csv_path);
  if (!csv_) throw std::runtime_error("cannot write the CSV file " + csv_path->string());
  csv_ << kCsvHeader << '\n' << std::flush;
}

void Report::begin_matrix(const HostWorkload& host) {
  const MatrixStats& s = host.stats;
  matrices_.push_back({host.source.label,
                       host.source.origin,
                       s,
                       std::nullopt,
                       {},
                       host.source.suite,
                       host.source.kind,
                       host.source.half,
                       host.source.regular,
                       std::nullopt});
  out_ << printf_string(
              "\n== %s: %s\n   %d x %d, %lld nnz, longest row %d, %lld empty rows, %.1f MB by the "
              "byte model; host preparation %.1f s\n",
              host.source.label.c_str(), host.source.origin.c_str(), s.rows, s.cols, static_cast<long long>(s.nnz),
              s.max_row_length, static_cast<long long>(s.empty_rows), model_bytes(s) * 1e-6, host.prepare_seconds)
       << printf_string("   %-*s %-8s %9s %9s %8s %6s %8s\n", kKernelColumn, "kernel", "status", "ms", "GFLOP/s",
                        "GB/s", "%copy", "vs ALG1")
       << std::flush;
}

void Report::set_matrix_copy(const TimingResult& copy) {
  if (matrices_.empty()) throw std::logic_error("Report::set_matrix_copy before begin_matrix");
  matrices_.back().copy_ms = copy.median_ms;
  const MatrixStats& s = matrices_.back().stats;
  out_ << printf_string("   %-*s %-8s %9.4f %9s %8.1f %6s (a copy of the same bytes: the limit)\n", kKernelColumn,
                        "same-size copy", "ok", copy.median_ms, "", model_bytes(s) / (copy.median_ms * 1e-3) * 1e-9,
                        "100.0")
       << std::flush;
}

void Report::add(const ResultRow& row) {
  if (matrices_.empty() || matrices_.back().label != row.matrix) {
    throw std::logic_error("Report::add: row for matrix " + row.matrix + " outside its begin_matrix");
  }
  MatrixEntry& matrix = matrices_.back();
  if (row.kernel == kBaselineKernel && row.outcome == Outcome::kTimed) matrix.baseline_ms = row.timing.median_ms;
  const Metrics metrics = row.outcome == Outcome::kTimed
                              ? metrics_of(matrix.stats, row.timing, copy_gb_per_s_, matrix.baseline_ms)
                              : Metrics{};
  if (std::find(kernel_order_.begin(), kernel_order_.end(), row.kernel) == kernel_order_.end()) {
    kernel_order_.push_back(row.kernel);
  }
  rows_.push_back(row);
  print_row(row, metrics);
  write_csv_row(matrix, row, metrics);
}

void Report::print_row(const ResultRow& row, const Metrics& metrics) {
  if (row.outcome == Outcome::kTimed) {
    const std::string speedup = metrics.speedup ? printf_string("%7.2fx", *metrics.speedup) : "       -";
    out_ << printf_string("   %-*s %-8s %9.4f %9.1f %8.1f %6.1f %s\n", kKernelColumn, row.kernel.c_str(), "ok",
                          row.timing.median_ms, metrics.gflops, metrics.gb_per_s, metrics.percent_of_copy,
                          speedup.c_str());
    if (!row.detail.empty()) out_ << indent_lines(row.detail, "      ") << '\n';
  } else if (row.outcome == Outcome::kNotApplicable || row.outcome == Outcome::kNotImplemented) {
    out_ << printf_string("   %-*s %s (%s)\n", kKernelColumn, row.kernel.c_str(), outcome_label(row.outcome),
                          row.detail.c_str());
  } else {
    // WRONG and FAILED carry a paragraph of evidence: give it its own lines.
    out_ << printf_string("   %-*s %s\n", kKernelColumn, row.kernel.c_str(), outcome_label(row.outcome))
         << indent_lines(row.detail, "      ") << '\n';
  }
  out_ << std::flush;
}

void Report::write_csv_row(const MatrixEntry& matrix, const ResultRow& row, const Metrics& metrics) {
  if (!csv_.is_open()) return;
  const bool timed = row.outcome == Outcome::kTimed;
  const auto number = [&](double value, const char* format) { return timed ? printf_string(format, value) : ""; };
  const MatrixStats& s = matrix.stats;
  csv_ << csv_field(matrix.label) << ',' << csv_field(matrix.origin) << ',' << s.rows << ',' << s.cols << ',' << s.nnz
       << ',' << s.max_row_length << ',' << csv_field(row.kernel) << ',' << csv_field(row.provider) << ',' << row.format
       << ',' << outcome_label(row.outcome) << ',' << number(row.timing.median_ms, "%.6f") << ','
       << number(row.timing.min_ms, "%.6f") << ',' << number(row.timing.max_ms, "%.6f") << ','
       << (timed ? std::to_string(row.timing.samples) : "") << ',' << number(metrics.gflops, "%.2f") << ','
       << number(metrics.gb_per_s, "%.2f") << ',' << number(metrics.percent_of_copy, "%.2f") << ','
       << (timed && metrics.speedup ? printf_string("%.4f", *metrics.speedup) : "") << ','
       << printf_string("%.0f", model_bytes(s)) << ',' << csv_field(row.detail) << ',' << matrix.suite << ','
       << csv_field(matrix.kind) << ',' << (matrix.copy_ms ? printf_string("%.6f", *matrix.copy_ms) : "") << ','
       << matrix.half << '\n'
       << std::flush;
}

void Report::matrix_failed(const MatrixSource& source, const std::string& why) {
  matrices_.push_back({source.label,
                       source.origin,
                       {},
                       std::nullopt,
                       why,
                       source.suite,
                       source.kind,
                       source.half,
                       source.regular,
                       std::nullopt});
  out_ << "\n== " << source.label << ": " << source.origin << "\n   could not be prepared: " << why << '\n'
       << std::flush;
}

void Report::abort_run(const std::string& why) {
  abort_reason_ = why;
  out_ << "\nspmv-bench: stopping: " << why << '\n' << std::flush;
}

const ResultRow* Report::find(const std::string& matrix, const std::string& kernel) const {
  for (const ResultRow& row : rows_) {
    if (row.matrix == matrix && row.kernel == kernel) return &row;
  }
  return nullptr;
}

const ResultRow* Report::best_cusparse(const std::string& matrix) const {
  const ResultRow* best = nullptr;
  for (const ResultRow& row : rows_) {
    if (row.matrix != matrix || row.outcome != Outcome::kTimed || row.provider != kCusparseProvider) continue;
    if (best == nullptr || row.timing.median_ms < best->timing.median_ms) best = &row;
  }
  return best;
}

const ResultRow* Report::best_reference(const std::string& matrix) const {
  const ResultRow* best = nullptr;
  for (const ResultRow& row : rows_) {
    if (row.matrix != matrix || row.outcome != Outcome::kTimed || row.provider == kCusparseProvider ||
        row.kernel.starts_with("auto=")) {
      continue;
    }
    if (best == nullptr || row.timing.median_ms < best->timing.median_ms) best = &row;
  }
  return best;
}

namespace {

// A kernel's name in a column header: cuSPARSE's without the prefix.
std::string column_name(const std::string& kernel) {
  std::string name = kernel.starts_with("cusparse_") ? "cs:" + kernel.substr(9) : kernel;
  if (name.size() > 10) name.resize(10);
  return name;
}

constexpr int kColumn = 11;

}  // namespace

void Report::print_pivot(const std::string& title, PivotValue value) {
  const int label = static_cast<int>(kLabelWidth) + 1;
  out_ << '\n' << title << '\n' << printf_string("%-*s", label, "matrix");
  for (const std::string& kernel : kernel_order_) out_ << printf_string("%*s", kColumn, column_name(kernel).c_str());
  out_ << '\n';
  for (const MatrixEntry& matrix : matrices_) {
    if (!matrix.load_error.empty()) continue;
    out_ << printf_string("%-*s", label, matrix.label.c_str());
    const ResultRow* best = best_cusparse(matrix.label);
    for (const std::string& kernel : kernel_order_) {
      const ResultRow* row = find(matrix.label, kernel);
      std::string cell = "-";
      if (row != nullptr && row->outcome != Outcome::kTimed) {
        cell = outcome_label(row->outcome);
      } else if (row != nullptr) {
        const Metrics m = metrics_of(matrix.stats, row->timing, copy_gb_per_s_, std::nullopt);
        if (value == PivotValue::kGbPerS) {
          cell = printf_string("%.0f", m.gb_per_s);
        } else if (value == PivotValue::kSpeedupOverBestCusparse && best != nullptr) {
          cell = printf_string("%.2fx", best->timing.median_ms / row->timing.median_ms);
        } else if (value == PivotValue::kPercentOfSameCopy && matrix.copy_ms) {
          cell = printf_string("%.1f", 100.0 * *matrix.copy_ms / row->timing.median_ms);
        }
      }
      out_ << printf_string("%*s", kColumn, cell.c_str());
    }
    out_ << '\n';
  }
}

namespace {

// auto finds our best kernel when it takes at most this many times the
// fastest reference kernel's time on a matrix; the verdict lists the others.
constexpr double kRuleSlack = 1.03;

// The first line of a note ("auto picked ..."; the plan's preparation follows).
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

void Report::print_verdict() {
  out_ << "\nVerdict: auto (its plan built before timing, as cuSPARSE's preprocessing is) against the fastest cuSPARSE "
          "algorithm of any format (same run, same matrix), and against a copy of the same bytes; auto_csr is the "
          "table's auto, without a plan\n"
       << printf_string("%-*s %-9s %-10s %-13s %9s %-11s %9s %9s %7s %7s %8s  %-11s %6s  %s\n",
                        static_cast<int>(kLabelWidth), "matrix", "suite", "half", "kind", "nnz", "best cuSP.", "us",
                        "auto us", "vs best", "%copy", "auto_csr", "best ref.", "vs best", "auto picked");
  struct Tally {
    std::vector<double> speedups;
    int behind = 0;
    void add(double speedup) {
      speedups.push_back(speedup);
      if (speedup < 1.0) ++behind;
    }
  };
  // By suite, by half of a split suite ("real suite, tuning half"), then
  // "all", for auto and for auto_csr.
  std::map<std::string, Tally> by_suite;
  std::map<std::string, Tally> table_by_suite;
  std::map<std::string, Tally> by_half;
  std::map<std::string, Tally> table_by_half;
  Tally all;
  Tally table_all;
  std::vector<std::pair<std::string, double>> regular_copy;
  // Where auto took more than kRuleSlack times the fastest reference
  // kernel's time (auto_csr and the named kernels; auto is the fastest
  // where it is): the rule missed one of our own kernels.
  struct Miss {
    std::string label, half, picked, kernel;
    double auto_ms, kernel_ms;
  };
  std::vector<Miss> misses;
  int rule_matrices = 0;
  for (const MatrixEntry& matrix : matrices_) {
    if (!matrix.load_error.empty()) continue;
    const std::string suite = matrix.suite.empty() ? "other" : matrix.suite;
    const std::string half = matrix.half.empty() ? "" : suite + " suite, " + matrix.half + " half";
    const ResultRow* best = best_cusparse(matrix.label);
    const ResultRow* automatic = find(matrix.label, kPlannedAutoKernel);
    const ResultRow* table_auto = find(matrix.label, kTableAutoKernel);
    const ResultRow* reference = best_reference(matrix.label);
    const auto speedup_of = [best](const ResultRow* row) {
      return best != nullptr && row != nullptr && row->outcome == Outcome::kTimed
                 ? std::optional<double>(best->timing.median_ms / row->timing.median_ms)
                 : std::nullopt;
    };
    const bool auto_timed = automatic != nullptr && automatic->outcome == Outcome::kTimed;
    const double auto_ms = auto_timed ? automatic->timing.median_ms : 0.0;
    const std::optional<double> speedup = speedup_of(automatic);
    const std::optional<double> table_speedup = speedup_of(table_auto);
    const std::optional<double> copy_share =
        matrix.copy_ms && auto_timed ? std::optional<double>(100.0 * *matrix.copy_ms / auto_ms) : std::nullopt;
    if (speedup) {
      by_suite[suite].add(*speedup);
      if (!half.empty()) by_half[half].add(*speedup);
      all.add(*speedup);
    }
    if (table_speedup) {
      table_by_suite[suite].add(*table_speedup);
      if (!half.empty()) table_by_half[half].add(*table_speedup);
      table_all.add(*table_speedup);
    }
    if (matrix.regular && copy_share) regular_copy.emplace_back(matrix.label, *copy_share);
    std::string picked = auto_timed ? first_line(automatic->detail) : "";
    if (picked.starts_with("auto picked ")) picked = picked.substr(12);
    if (auto_timed && reference != nullptr) {
      ++rule_matrices;
      if (auto_ms > kRuleSlack * reference->timing.median_ms) {
        misses.push_back({matrix.label, matrix.half, picked, reference->kernel, auto_ms, reference->timing.median_ms});
      }
    }
    out_ << printf_string(
        "%-*s %-9s %-10s %-13s %9lld %-11s %9.2f %9s %7s %7s %8s  %-11s %6s  %s\n", static_cast<int>(kLabelWidth),
        matrix.label.c_str(), matrix.suite.empty() ? "-" : matrix.suite.c_str(),
        matrix.half.empty() ? "-" : matrix.half.c_str(),
        matrix.kind.empty() ? (matrix.regular ? "regular" : "-") : matrix.kind.c_str(),
        static_cast<long long>(matrix.stats.nnz), best != nullptr ? column_name(best->kernel).c_str() : "none",
        best != nullptr ? best->timing.median_ms * 1e3 : 0.0,
        auto_timed ? printf_string("%.2f", auto_ms * 1e3).c_str()
                   : (automatic ? outcome_label(automatic->outcome) : "-"),
        speedup ? printf_string("%.3fx", *speedup).c_str() : "-",
        copy_share ? printf_string("%.1f", *copy_share).c_str() : "-",
        table_speedup ? printf_string("%.3fx", *table_speedup).c_str() : "-",
        reference != nullptr ? column_name(reference->kernel).c_str() : "-",
        reference != nullptr && best != nullptr
            ? printf_string("%.3fx", best->timing.median_ms / reference->timing.median_ms).c_str()
            : "-",
        picked.c_str());
  }
  const auto summary = [this](const std::string& kernel, const std::string& name, const Tally& tally) {
    if (tally.speedups.empty()) return;
    out_ << printf_string(
        "%s vs the fastest cuSPARSE, %-29s geometric mean %.3fx, min %.3fx, max %.3fx over %zu "
        "matrices; %d behind (below 1.00x)\n",
        kernel.c_str(), (name + ":").c_str(), geometric_mean(tally.speedups),
        *std::min_element(tally.speedups.begin(), tally.speedups.end()),
        *std::max_element(tally.speedups.begin(), tally.speedups.end()), tally.speedups.size(), tally.behind);
  };
  out_ << '\n';
  for (const auto& [kernel, suites, halves, total] :
       {std::tuple{std::string(kPlannedAutoKernel), &by_suite, &by_half, &all},
        std::tuple{std::string(kTableAutoKernel), &table_by_suite, &table_by_half, &table_all}}) {
    for (const auto& [suite, tally] : *suites) {
      summary(kernel, suite + " suite", tally);
      // The halves' keys begin with their suite's: "real suite, tuning half".
      for (auto half = halves->lower_bound(suite + " suite, ");
           half != halves->end() && half->first.starts_with(suite + " suite, "); ++half) {
        summary(kernel, half->first, half->second);
      }
    }
    if (suites->size() > 1) summary(kernel, "all matrices", *total);
  }
  if (rule_matrices > 0) {
    out_ << printf_string("auto within %.0f%% of the fastest reference kernel on %d of %d matrices",
                          100 * (kRuleSlack - 1), rule_matrices - static_cast<int>(misses.size()), rule_matrices);
    out_ << (misses.empty() ? "\n" : "; behind it (the rule's pick, then the faster kernel):\n");
    for (const Miss& miss : misses) {
      out_ << printf_string("  %-*s %-10s auto %.2f us, %s; %s %.2f us (auto %.3fx its time)\n",
                            static_cast<int>(kLabelWidth), miss.label.c_str(),
                            miss.half.empty() ? "-" : miss.half.c_str(), miss.auto_ms * 1e3, miss.picked.c_str(),
                            miss.kernel.c_str(), miss.kernel_ms * 1e3, miss.auto_ms / miss.kernel_ms);
    }
  }
  if (!regular_copy.empty()) {
    out_ << "auto on the regular matrices, % of the same-size copy:";
    for (const auto& [label, share] : regular_copy) out_ << printf_string(" %s %.1f%%", label.c_str(), share);
    out_ << '\n';
  }
}

void Report::print_summary() {
  out_ << "\n==== spmv-bench summary ====";
  print_pivot(
      printf_string("GB/s (bytes = 8*nnz + 4*(rows+1) + 4*cols + 4*rows; device copy %.0f GB/s):", copy_gb_per_s_),
      PivotValue::kGbPerS);
  print_pivot("Speedup over the fastest cuSPARSE algorithm (any format) on the same matrix:",
              PivotValue::kSpeedupOverBestCusparse);
  print_pivot("% of a same-size copy (the copy's time over the kernel's):", PivotValue::kPercentOfSameCopy);
  bool notes = false;
  for (const ResultRow& row : rows_) {
    if (row.outcome != Outcome::kTimed || row.detail.empty()) continue;
    if (!notes) out_ << "\nNotes:\n";
    notes = true;
    const std::string indent(static_cast<std::size_t>(kLabelWidth) + kKernelColumn + 4, ' ');
    std::string detail = indent_lines(row.detail, indent);
    out_ << printf_string("  %-*s %-*s %s\n", static_cast<int>(kLabelWidth), row.matrix.c_str(), kKernelColumn,
                          row.kernel.c_str(), detail.substr(indent.size()).c_str());
  }
  out_ << "\nMatrices:\n";
  for (const MatrixEntry& m : matrices_) {
    if (!m.load_error.empty()) {
      out_ << printf_string("  %-*s %s: NOT LOADED\n", static_cast<int>(kLabelWidth), m.label.c_str(),
                            m.origin.c_str());
      continue;
    }
    out_ << printf_string("  %-*s %s (%d x %d, %lld nnz, longest row %d)\n", static_cast<int>(kLabelWidth),
                          m.label.c_str(), m.origin.c_str(), m.stats.rows, m.stats.cols,
                          static_cast<long long>(m.stats.nnz), m.stats.max_row_length);
  }
  print_verdict();
  int counts[5] = {0, 0, 0, 0, 0};
  for (const ResultRow& row : rows_) ++counts[static_cast<int>(row.outcome)];
  out_ << printf_string("\n%zu kernel runs: %d timed, %d WRONG, %d n/a, %d not implemented, %d FAILED", rows_.size(),
                        counts[0], counts[1], counts[2], counts[3], counts[4]);
  if (!abort_reason_.empty()) out_ << "; run stopped early: " << abort_reason_;
  out_ << '\n' << std::flush;
}

bool Report::any_failure() const {
  if (!abort_reason_.empty()) return true;
  for (const MatrixEntry& matrix : matrices_) {
    if (!matrix.load_error.empty()) return true;
  }
  for (const ResultRow& row : rows_) {
    if (row.outcome == Outcome::kWrong || row.outcome == Outcome::kFailed) return true;
  }
  return false;
}

}  // namespace spmv::bench
