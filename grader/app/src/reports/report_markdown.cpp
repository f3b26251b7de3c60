#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "reports/report.hpp"

namespace spmv::grade {
namespace {

// A table cell: pipes would end the cell, newlines the row.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string code_block(const std::string& text) {
  // A fence longer than any backtick run inside keeps the block closed.
  std::size_t longest = 0;
  std::size_t run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  return fence + "\n" + text + (text.empty() || text.back() != '\n' ? "\n" : "") + fence + "\n";
}

void write_header(std::ostringstream& out, const ScoreSummary& summary, const std::vector<RowResult>& rows,
                  const RunInfo& info) {
  out << "# SpMV grading report\n\n";
  out << "**" << score_line(summary, rows) << "**\n\n";
  if (const std::string problems = setup_problems_note(rows); !problems.empty()) out << "> **" << problems << "**\n\n";
  out << "Each kernel:\n\n";
  for (const std::string& line : kernel_summaries(rows, info)) out << "- " << line << "\n";
  out << "\n- Submission: `" << info.submission << "`";
  if (!info.submission_name.empty()) out << " (plugin \"" << info.submission_name << "\")";
  out << "\n- Reference: `" << info.reference << "`\n";
  // What was graded, set by set: a case set left out shows here.
  std::vector<std::string> sources;
  std::map<std::string, std::set<std::string>> cases_of;
  for (const auto& row : rows) {
    if (cases_of.count(row.case_source) == 0) sources.push_back(row.case_source);
    cases_of[row.case_source].insert(row.case_name);
  }
  if (!sources.empty()) {
    out << "- Cases:";
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const std::size_t count = cases_of[sources[i]].size();
      out << (i == 0 ? " " : ", ") << "`" << sources[i] << "` (" << count << (count == 1 ? " case)" : " cases)");
    }
    out << "\n";
  }
  out << "- Device: " << (info.device.empty() ? "-" : info.device);
  if (info.copy_gbps) out << " (device-to-device copy " << static_cast<long>(*info.copy_gbps) << " GB/s)";
  out << "\n- Seed: " << (info.secret_seed ? "secret" : info.seed ? std::to_string(*info.seed) : "-") << "\n";
  if (!info.isolation.empty()) {
    out << "- Isolation: " << info.isolation << (info.unisolated ? " (not isolated for marks: --allow-unisolated)" : "")
        << " - " << info.isolation_detail << "\n";
  }
  if (!info.provenance.empty()) {
    out << "- Provenance:\n";
    for (const auto& [what, value] : info.provenance) out << "  - " << what << ": `" << value << "`\n";
  }
  for (const auto& note : info.notes) out << "\n> " << note << "\n";
}

}  // namespace

std::string markdown_summary(const Policy& policy, const std::vector<RowResult>& unordered, const RunInfo& info) {
  const auto rows = in_report_order(unordered);
  const ScoreSummary summary = score_rows(policy, rows);
  std::ostringstream out;
  write_header(out, summary, rows, info);
  out << "\n| Kernel | Case | Verdict | Max error / allowed | ms | Reference ms | Speedup | GB/s | % of copy "
         "| cuSPARSE GB/s | Points |\n";
  out << "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RowCells c = cells_of(rows[i], summary.rows[i]);
    out << "| " << cell(rows[i].kernel) << " | " << cell(rows[i].case_name) << " | " << c.verdict << " | "
        << c.max_error << " | " << c.ms << " | " << c.reference_ms << " | " << c.speedup << " | " << c.gbps << " | "
        << c.percent_of_copy << " | " << c.cusparse_gbps << " | " << c.points << " |\n";
  }
  bool flagged_heading = false;
  for (const auto& row : rows) {
    if (row.flags.empty()) continue;
    if (!flagged_heading) {
      out << "\n## Rows flagged for review\n\nA flagged row earns no speed credit until its flags are accepted "
             "([flags] accept in the policy). What each flag means: docs/grading.md.\n";
    }
    flagged_heading = true;
    std::string flags;
    for (const auto& flag : row.flags) flags += (flags.empty() ? "" : ", ") + flag;
    out << "\n### " << row.kernel << " / " << row.case_name << ": " << flags << "\n\n" << row.summary << "\n";
    if (!row.detail.empty()) out << "\n" << code_block(row.detail);
  }
  bool heading = false;
  for (const auto& row : rows) {
    if (row.verdict == Verdict::kPass) continue;
    if (!heading) out << "\n## Rows that did not pass\n";
    heading = true;
    out << "\n### " << row.kernel << " / " << row.case_name << "\n\n" << row.summary << "\n";
    if (!row.detail.empty()) out << "\n" << code_block(row.detail);
    if (!row.submission_output.empty()) out << "\nSubmission output:\n\n" << code_block(row.submission_output);
  }
  if (!info.policy.empty()) {
    out << "\n## Policy\n\nThe effective policy the rows were scored under, every key resolved (what "
           "`spmv-grade --show-policy` prints):\n\n"
        << code_block(info.policy);
  }
  out << "\nGB/s counts the bytes a kernel must move at least (its format's arrays, x and y, each once); "
         "speedup = reference time / submission time (medians).";
  if (std::any_of(rows.begin(), rows.end(), [](const RowResult& row) { return !row.correctness_only.empty(); })) {
    out << " A speedup in brackets is a correctness-only row's: it counts nothing (the row's summary says why).";
  }
  out << "\n";
  return out.str();
}

}  // namespace spmv::grade
