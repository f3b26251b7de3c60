#include "text_report.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace spmv::ta {
namespace {

// Statistics columns: header and the width a typical value needs, in table
// order. A wider value pushes the rest of its row right but never touches
// its neighbour: every cell follows a two-space gap.
struct Column {
  const char* header;
  int width;
};
constexpr Column kStatColumns[] = {{"rows", 8}, {"cols", 8},  {"nnz", 9},     {"len min", 7}, {"mean", 7},
                                   {"max", 7},  {"empty", 7}, {"ell pad", 7}, {"hyb w", 5},   {"hyb coo", 7}};
constexpr const char* kGap = "  ";

std::string fixed(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

std::string percent(double share) { return fixed(100.0 * share, 1) + "%"; }

std::vector<std::string> stat_cells(const MatrixStats& s) {
  return {std::to_string(s.rows),       std::to_string(s.cols),
          std::to_string(s.nnz),        std::to_string(s.min_row_length),
          fixed(s.mean_row_length, 2),  std::to_string(s.max_row_length),
          std::to_string(s.empty_rows), s.ell_padding_ratio ? fixed(*s.ell_padding_ratio, 2) : "-",
          std::to_string(s.hyb_width),  percent(s.hyb_coo_share())};
}

constexpr int kBarWidth = 40;

}  // namespace

const char* cell_text(KernelState state) {
  switch (state) {
    case KernelState::kApplies: return "ok";
    case KernelState::kNotApplicable: return "n/a";
    case KernelState::kPassed: return "pass";
    case KernelState::kFailed: return "FAIL";
    case KernelState::kUnchecked: break;
  }
  return "-";
}

CaseTable::CaseTable(std::size_t name_width, const std::vector<const spmv_kernel_entry*>& kernels)
    : name_width_(std::max<std::size_t>(name_width, 4)) {  // at least "case"
  for (const auto* kernel : kernels) kernel_names_.emplace_back(kernel->name);
}

void CaseTable::print_header(std::ostream& out) const {
  out << std::left << std::setw(static_cast<int>(name_width_)) << "case" << std::right;
  for (const Column& column : kStatColumns) out << kGap << std::setw(column.width) << column.header;
  for (const auto& name : kernel_names_) out << kGap << name;
  out << '\n';
}

void CaseTable::print_row(std::ostream& out, const CaseReport& report) const {
  out << std::left << std::setw(static_cast<int>(name_width_)) << report.name << std::right;
  if (!report.check) {
    out << "  cannot be loaded (see the problems, on stderr)\n";
    return;
  }
  const auto cells = stat_cells(report.check->stats);
  for (std::size_t i = 0; i < cells.size(); ++i) out << kGap << std::setw(kStatColumns[i].width) << cells[i];
  for (std::size_t i = 0; i < kernel_names_.size(); ++i) {
    const bool last = i + 1 == kernel_names_.size();
    out << kGap << std::left << std::setw(last ? 0 : static_cast<int>(kernel_names_[i].size()))
        << cell_text(report.check->kernels[i].state) << std::right;
  }
  out << '\n';
}

void print_stats(std::ostream& out, const MatrixCheck& check, const std::vector<const spmv_kernel_entry*>& kernels) {
  const MatrixStats& s = check.stats;
  const auto line = [&](const char* key, const std::string& value) {
    out << "  " << std::left << std::setw(13) << key << std::right << value << '\n';
  };
  const double rows = std::max(1.0, static_cast<double>(s.rows));
  line("rows", std::to_string(s.rows));
  line("columns", std::to_string(s.cols));
  line("nonzeros", std::to_string(s.nnz));
  line("row length", "min " + std::to_string(s.min_row_length) + ", mean " + fixed(s.mean_row_length, 2) + ", max " +
                         std::to_string(s.max_row_length));
  line("empty rows", std::to_string(s.empty_rows) + " (" + percent(static_cast<double>(s.empty_rows) / rows) + ")");
  line("ELL", "width " + std::to_string(s.max_row_length) + ", padding ratio " +
                  (s.ell_padding_ratio ? fixed(*s.ell_padding_ratio, 2) : std::string("- (no entries)")) + ", " +
                  human_bytes(s.ell_bytes) + " padded");
  line("HYB", "ELL width " + std::to_string(s.hyb_width) + " (default heuristic), COO part " +
                  std::to_string(s.hyb_coo_entries) + " entries (" + percent(s.hyb_coo_share()) + ")");
  std::string applies;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    applies += (i == 0 ? "" : "  ") + std::string(kernels[i]->name) + " " + cell_text(check.kernels[i].state);
  }
  line("kernels", applies);
  for (const auto& note : not_applicable_notes(check, kernels)) line("", note);
}

void print_histogram(std::ostream& out, const RowLengthHistogram& histogram) {
  const auto& counts = histogram.rows_in_bucket;
  const std::int64_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  out << "  " << std::left << std::setw(16) << "row length" << std::right << std::setw(12) << "rows" << '\n';
  for (std::size_t bucket = 0; bucket < counts.size(); ++bucket) {
    // Linear bars: the counts are printed beside them, so no scale is hidden.
    const auto bar = most == 0 ? 0 : std::max<std::int64_t>(counts[bucket] > 0, counts[bucket] * kBarWidth / most);
    out << "  " << std::left << std::setw(16) << RowLengthHistogram::bucket_label(bucket) << std::right << std::setw(12)
        << counts[bucket] << (bar > 0 ? "  " : "") << std::string(static_cast<std::size_t>(bar), '#') << '\n';
  }
}

std::string human_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  }
  return text;
}

}  // namespace spmv::ta
