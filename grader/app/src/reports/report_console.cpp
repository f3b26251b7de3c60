#include <algorithm>
#include <array>
#include <sstream>

#include "reports/report.hpp"

namespace spmv::grade {
namespace {

constexpr std::size_t kColumns = 9;

// Columns sized to their widest cell.
class TextTable {
 public:
  void add(std::array<std::string, kColumns> cells) {
    for (std::size_t c = 0; c < kColumns; ++c) widths_[c] = std::max(widths_[c], cells[c].size());
    rows_.push_back(std::move(cells));
  }
  [[nodiscard]] std::string str() const {
    std::ostringstream out;
    for (const auto& cells : rows_) {
      std::string line;
      for (std::size_t c = 0; c < kColumns; ++c) {
        // Text columns left-aligned, numbers right-aligned.
        const std::string pad(widths_[c] - cells[c].size(), ' ');
        line += c < 3 ? cells[c] + pad : pad + cells[c];
        line += c + 1 < kColumns ? "  " : "";
      }
      out << line.substr(0, line.find_last_not_of(' ') + 1) << '\n';
    }
    return out.str();
  }

 private:
  std::array<std::size_t, kColumns> widths_{};
  std::vector<std::array<std::string, kColumns>> rows_;
};

}  // namespace

std::string progress_line(const RowResult& row, std::size_t done, std::size_t total) {
  const std::string count = std::to_string(total);
  std::string index = std::to_string(done);
  index.insert(0, count.size() - index.size(), ' ');
  return "[" + index + "/" + count + "] " + row.kernel + " / " + row.case_name + ": " + row.summary;
}

std::string console_report(const Policy& policy, const std::vector<RowResult>& unordered, const RunInfo& info) {
  const auto rows = in_report_order(unordered);
  const ScoreSummary summary = score_rows(policy, rows);
  TextTable table;
  table.add({"kernel", "case", "verdict", "max err", "ms", "ref ms", "speedup", "GB/s", "points"});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RowCells c = cells_of(rows[i], summary.rows[i]);
    table.add(
        {rows[i].kernel, rows[i].case_name, c.verdict, c.max_error, c.ms, c.reference_ms, c.speedup, c.gbps, c.points});
  }
  std::ostringstream out;
  out << '\n' << table.str();
  bool heading = false;
  for (const auto& row : rows) {
    // Skipped rows are explained once, by the notes below.
    if (row.verdict == Verdict::kPass || row.verdict == Verdict::kNotRun || row.verdict == Verdict::kSkipped) continue;
    if (!heading) out << "\nProblems:\n";
    heading = true;
    out << "  " << row.kernel << " / " << row.case_name << ": " << row.summary << '\n';
  }
  if (info.copy_gbps)
    out << "\nDevice: " << info.device << ", copy bandwidth " << static_cast<long>(*info.copy_gbps) << " GB/s\n";
  for (const auto& note : info.notes) out << '\n' << note << '\n';
  if (const std::string problems = setup_problems_note(rows); !problems.empty()) out << "\n!! " << problems << '\n';
  out << '\n' << score_line(summary, rows) << '\n';
  return out.str();
}

}  // namespace spmv::grade
