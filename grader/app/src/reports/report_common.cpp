#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>
#include <tuple>

#include "reports/report.hpp"

namespace spmv::grade {
namespace {

std::string number(const char* format, const std::optional<double>& value) {
  if (!value) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, *value);
  return text;
}

}  // namespace

std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::vector<RowResult> in_report_order(std::vector<RowResult> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const RowResult& a, const RowResult& b) {
    return std::tie(a.kernel_order, a.kernel, a.case_source, a.case_order, a.case_name) <
           std::tie(b.kernel_order, b.kernel, b.case_source, b.case_order, b.case_name);
  });
  return rows;
}

std::vector<std::string> kernel_summaries(const std::vector<RowResult>& rows, const RunInfo& info) {
  std::vector<std::string> summaries;
  for (std::size_t first = 0; first < rows.size();) {
    std::size_t end = first;
    while (end < rows.size() && rows[end].kernel == rows[first].kernel) ++end;
    int graded = 0;
    int passed = 0;
    int scored = 0;
    double log_sum = 0;
    const RowResult* slowest = nullptr;
    const RowResult* failing = nullptr;
    for (std::size_t i = first; i < end; ++i) {
      const RowResult& row = rows[i];
      if (row.verdict == Verdict::kNotApplicable || row.verdict == Verdict::kNotRun ||
          row.verdict == Verdict::kSkipped) {
        continue;
      }
      ++graded;
      if (row.verdict == Verdict::kPass) {
        ++passed;
        if (row.speedup && *row.speedup > 0 && row.correctness_only.empty()) {
          ++scored;
          log_sum += std::log(*row.speedup);
          if (slowest == nullptr || *row.speedup < *slowest->speedup) slowest = &row;
        }
      } else if (failing == nullptr) {
        failing = &row;
      }
    }
    std::string text = rows[first].kernel + ": " + std::to_string(passed) + " of " + std::to_string(graded) +
                       (graded == 1 ? " row passes" : " rows pass");
    if (scored > 0) {
      text += "; " + std::to_string(scored) + (scored == 1 ? " row" : " rows") + " scored by speed, geometric mean " +
              number("%.2f", std::exp(log_sum / scored)) + "x; slowest " + slowest->case_name + " at " +
              number("%.2f", slowest->speedup) + "x";
      if (slowest->gbps) text += ", " + number("%.0f", slowest->gbps) + " GB/s";
      if (slowest->percent_of_copy) text += " (" + number("%.0f", slowest->percent_of_copy) + "% of a same-size copy)";
    } else if (passed > 0) {
      text += "; none scored by speed (correctness only)";
    }
    if (failing != nullptr) {
      text += "; first failing: " + failing->case_name + " (" + describe(failing->verdict) +
              (failing->cause.empty() ? "" : ", " + failing->cause) + ")";
    }
    const RowResult* again = failing != nullptr ? failing : slowest;
    if (again != nullptr && !info.regrade_command.empty()) {
      text += ". Grade it again alone: " + info.regrade_command + " --kernel " + again->kernel + " --case " +
              shell_word(again->case_name);
    }
    summaries.push_back(text);
    first = end;
  }
  return summaries;
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

std::string setup_problems_note(const std::vector<RowResult>& rows) {
  std::vector<std::string> broken_cases;
  std::vector<std::string> grader_errors;
  for (const auto& row : rows) {
    if (row.verdict == Verdict::kCaseError &&
        std::find(broken_cases.begin(), broken_cases.end(), row.case_name) == broken_cases.end()) {
      broken_cases.push_back(row.case_name);
    } else if (row.verdict == Verdict::kGraderError) {
      grader_errors.push_back(row.kernel + " / " + row.case_name);
    }
  }
  if (broken_cases.empty() && grader_errors.empty()) return {};
  const auto listed = [](const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  };
  std::string text = "SETUP PROBLEM, the score is not final:";
  if (!broken_cases.empty()) {
    text += " " + std::to_string(broken_cases.size()) + (broken_cases.size() == 1 ? " case" : " cases") +
            " could not be used (" + listed(broken_cases) + ": case error);";
  }
  if (!grader_errors.empty()) {
    text += " " + std::to_string(grader_errors.size()) + (grader_errors.size() == 1 ? " row" : " rows") +
            " could not be graded (" + listed(grader_errors) + ": grader error);";
  }
  text +=
      " their rows are left out of the score and spmv-grade exits with status 3. The reasons are listed "
      "with the rows; fix the cases (spmv-cases validate FOLDER checks them) and grade again.";
  return text;
}

std::string student_visible(const RowResult& row, const std::string& text) {
  if (row.verdict != Verdict::kCaseError) return text;
  // A word ends at a blank, a quote, a ':' (file:line), a parenthesis or a
  // comma. A path is a word that starts with '/', with "../", or with the
  // --cases folder the case came from.
  const auto ends_word = [](char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\'' || c == '"' || c == ':' || c == '(' || c == ')' || c == ',';
  };
  const auto is_path = [&](const std::string& word) {
    return word.starts_with('/') || word.starts_with("../") ||
           (!row.case_source.empty() && word.starts_with(row.case_source));
  };
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = i;
    while (end < text.size() && !ends_word(text[end])) ++end;
    if (end == i) {
      out += text[i++];
      continue;
    }
    const std::string word = text.substr(i, end - i);
    const std::size_t slash = word.find_last_of('/');
    const bool path = is_path(word) && slash != std::string::npos && slash + 1 < word.size();
    out += path ? word.substr(slash + 1) : word;
    i = end;
  }
  return out;
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
  // A correctness-only row's speedup scores nothing: shown apart.
  if (row.speedup && !row.correctness_only.empty()) cells.speedup = "(" + cells.speedup + ")";
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
