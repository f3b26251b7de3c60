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

// The mark of a correctness-only row on the console, explained once at the
// end (correctness_only_note).
constexpr std::string_view kCorrectnessOnlyMark = "; correctness only (*)";

// Why the console's correctness-only rows are not ranked by speed, said
// once: how many, the policy's threshold, one row's own reason.
std::string correctness_only_note(const Policy& policy, const std::vector<RowResult>& rows) {
  const RowResult* example = nullptr;
  std::size_t count = 0;
  for (const auto& row : rows) {
    if (row.correctness_only.empty()) continue;
    ++count;
    if (example == nullptr) example = &row;
  }
  if (example == nullptr) return {};
  std::ostringstream out;
  out << "(*) " << count << (count == 1 ? " row is" : " rows are")
      << " correctness only: scored for being correct, not ranked by speed (a speedup in brackets counts "
         "nothing). The reference's launch on such a case is too short for the grader's clock to rank (the "
         "policy's timing.min_reference_us is "
      << policy.min_reference_us << " us), e.g. " << example->kernel << " / " << example->case_name << ": "
      << example->correctness_only << ".";
  return out.str();
}

}  // namespace

std::string progress_line(const RowResult& row, std::size_t done, std::size_t total, const RowScore* score) {
  const std::string count = std::to_string(total);
  std::string index = std::to_string(done);
  index.insert(0, count.size() - index.size(), ' ');
  std::string summary = row.summary;
  // A correctness-only row's reason is said once, at the end.
  const std::string reason = "; correctness only (" + row.correctness_only + ")";
  if (const auto at = summary.find(reason); !row.correctness_only.empty() && at != std::string::npos) {
    summary.replace(at, reason.size(), kCorrectnessOnlyMark);
  }
  std::string points;
  if (score != nullptr && score->counted) points = " (" + cells_of(row, *score).points + ")";
  return "[" + index + "/" + count + "] " + row.kernel + " / " + row.case_name + points + ": " + summary;
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
  out << "\nEach kernel:\n";
  for (const std::string& line : kernel_summaries(rows, info)) out << "  " << line << '\n';
  if (info.copy_gbps)
    out << "\nDevice: " << info.device << ", copy bandwidth " << static_cast<long>(*info.copy_gbps) << " GB/s\n";
  for (const auto& note : info.notes) out << '\n' << note << '\n';
  if (const std::string note = correctness_only_note(policy, rows); !note.empty()) out << '\n' << note << '\n';
  if (const std::string problems = setup_problems_note(rows); !problems.empty()) out << "\n!! " << problems << '\n';
  out << '\n' << score_line(summary, rows) << '\n';
  return out.str();
}

}  // namespace spmv::grade
