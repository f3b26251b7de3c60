#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "report.hpp"

namespace spmv::grade {
namespace {

std::string number(const char* format, const std::optional<double>& value) {
  if (!value) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, *value);
  return text;
}

}  // namespace

std::vector<RowResult> in_report_order(std::vector<RowResult> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const RowResult& a, const RowResult& b) {
    return std::tie(a.kernel_order, a.kernel, a.case_source, a.case_order, a.case_name) <
           std::tie(b.kernel_order, b.kernel, b.case_source, b.case_order, b.case_name);
  });
  return rows;
}

std::string verdict_counts(const std::vector<RowResult>& rows) {
  std::map<Verdict, int> counts;
  for (const auto& row : rows) ++counts[row.verdict];
  std::string text;
  for (const auto& [verdict, count] : counts) {
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + describe(verdict);
  }
  return text.empty() ? "no rows" : text;
}

RowCells cells_of(const RowResult& row, const RowScore& score) {
  RowCells cells;
  cells.verdict = describe(row.verdict);
  if (row.max_error_ratio && std::isinf(*row.max_error_ratio)) {
    cells.max_error = "inf";
  } else {
    cells.max_error = number("%.3g", row.max_error_ratio);
  }
  cells.ms = number("%.4g", row.submission_ms);
  cells.reference_ms = number("%.4g", row.reference_ms);
  cells.speedup = row.speedup ? number("%.2f", row.speedup) + "x" : "-";
  cells.gbps = number("%.0f", row.gbps);
  cells.percent_of_copy = row.percent_of_copy ? number("%.0f", row.percent_of_copy) + "%" : "-";
  cells.cusparse_gbps = number("%.0f", row.cusparse_gbps);
  cells.points = score.counted ? number("%.2f", score.score) + "/" + number("%.2f", score.max_score) : "-";
  return cells;
}

std::string score_line(const ScoreSummary& summary, const std::vector<RowResult>& rows) {
  char text[128];
  std::snprintf(text, sizeof text, "Score: %.2f / %.2f", summary.score, summary.max_score);
  std::string line = text;
  line += " (" + std::to_string(rows.size()) + (rows.size() == 1 ? " row: " : " rows: ") + verdict_counts(rows) + ")";
  if (summary.geomean_speedup) {
    std::snprintf(text, sizeof text, "; geometric-mean speedup %.2fx", *summary.geomean_speedup);
    line += text;
  }
  return line;
}

}  // namespace spmv::grade
