// Reports made from the rows: the console (progress lines, table, score),
// Gradescope's results.json and a Markdown summary. Pure functions of the
// rows, the policy and the run's facts; writing files is reporter.hpp's job.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/row.hpp"
#include "scoring/policy.hpp"
#include "scoring/scoring.hpp"

namespace spmv::grade {

// Facts about the run for report headers.
struct RunInfo {
  std::string submission;       // plugin path
  std::string submission_name;  // the plugin's own name
  std::string reference;
  std::string device;  // GPU name, or what ran instead
  std::optional<double> copy_gbps;
  std::optional<std::uint64_t> seed;  // absent with a secret seed
  bool secret_seed = false;
  std::vector<std::string> notes;  // e.g. that no GPU was found
  double elapsed_s = 0;
  // How the submission was contained (grader/sandbox): the level's name and
  // what it gives; `unisolated` when graded below the container level.
  std::string isolation;
  std::string isolation_detail;
  bool unisolated = false;
  // Where the grade came from: "submission", "grader", "reference",
  // "policy", "case <name>" with their SHA-256; GPU, driver, toolkit.
  std::vector<std::pair<std::string, std::string>> provenance;
  // The effective policy the rows were graded under, every key resolved
  // (policy_text): in summary.md and the run's facts.
  std::string policy;
  // What --resume compares before it keeps a folder's rows (run_identity.hpp):
  // in the run's facts only, never in a report.
  std::vector<std::pair<std::string, std::string>> identity;
  // The command that grades one row again as this run did, less its
  // `--kernel K --case C` (each kernel's summary ends with it); empty when
  // the run has a secret seed. The console and summary.md only.
  std::string regrade_command;
};

// Kernel-major (the policy's kernel order), then cases in their list order.
std::vector<RowResult> in_report_order(std::vector<RowResult> rows);

// Each kernel's summary, one paragraph a kernel, in report order: its rows
// passed, the geometric mean of its rows scored by speed, the slowest of
// them with its GB/s and share of a same-size copy, the first failing row
// with its cause, and the command that grades that row (else the slowest)
// again alone.
std::vector<std::string> kernel_summaries(const std::vector<RowResult>& rows_in_report_order, const RunInfo& info);

// `word` as one word of a POSIX shell command: as it is if it needs no
// quotes, else in single quotes.
std::string shell_word(const std::string& word);

// "3 pass, 1 wrong, 2 not applicable"
std::string verdict_counts(const std::vector<RowResult>& rows);

// Rows that are "case error" or "grader error" make the run exit with 3:
// a paragraph saying which and why the score is not final, for the top of
// the reports. Empty when there are none.
std::string setup_problems_note(const std::vector<RowResult>& rows);

// `text` of a row as students may see it (results.json): in a case error,
// every file path is cut to its last component, so a hidden case's folder
// (/srv/hidden/...) never shows; the console and summary.md keep the paths.
std::string student_visible(const RowResult& row, const std::string& text);

// Console.
// "[ 3/24] coo / arrow (1.28/1.28): pass: ...": the row's points when
// `score` is given and counted.
std::string progress_line(const RowResult& row, std::size_t done, std::size_t total, const RowScore* score = nullptr);
std::string console_report(const Policy& policy, const std::vector<RowResult>& rows, const RunInfo& info);
std::string score_line(const ScoreSummary& summary, const std::vector<RowResult>& rows);

// Gradescope's results.json. A test not visible now carries its verdict,
// points and flags only; a visible one quotes at most kVisibleOutputBytes of
// the submission's output, non-printable bytes replaced.
inline constexpr std::size_t kVisibleOutputBytes = 4096;
std::string gradescope_json(const Policy& policy, const std::vector<RowResult>& rows, const RunInfo& info);

// summary.md.
std::string markdown_summary(const Policy& policy, const std::vector<RowResult>& rows, const RunInfo& info);
// report.html: the same grading as a page with nothing to fetch, each
// kernel's failing rows first and its speedups and bandwidth as charts.
std::string html_report(const Policy& policy, const std::vector<RowResult>& rows, const RunInfo& info);

// Cells shared by the console and Markdown tables ("-" when absent).
struct RowCells {
  std::string verdict, max_error, ms, reference_ms, speedup, gbps, percent_of_copy, cusparse_gbps, points;
};
RowCells cells_of(const RowResult& row, const RowScore& score);

}  // namespace spmv::grade
