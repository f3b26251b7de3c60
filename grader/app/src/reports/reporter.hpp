// Keeps the reports on disk current while grading, so a grader killed
// mid-run still leaves a valid results.json with every finished row (the
// unfinished ones "not run"). After each row: rows.jsonl gets the row
// appended and flushed, results.json and summary.md are rewritten (a temp
// file renamed over the old one, never a half-written file). In journal mode
// (CTest) only the kernels' journals are kept (<folder>/<kernel>.jsonl, every
// planned row of the kernel), the finished row's rewritten whole after each
// row.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "model/row.hpp"
#include "reports/report.hpp"
#include "scoring/policy.hpp"

namespace spmv::grade {

class Reporter {
 public:
  struct Settings {
    std::filesystem::path output_dir;
    std::optional<std::filesystem::path> journal;  // the journal folder
    bool quiet = false;
  };

  Reporter(Settings settings, const Policy& policy, RunInfo info);

  RunInfo& info() { return info_; }
  // Every planned row, all "not run".
  void start(const std::vector<RowResult>& rows);
  void row_started(const std::vector<RowResult>& rows, std::size_t index);
  // The row's reports: written now, or with `later` when flush() is called
  // (a kernel's rows judged one after another: the reports are written once
  // for them all, not once a row).
  void row_finished(const std::vector<RowResult>& rows, std::size_t index, bool later = false);
  void flush(const std::vector<RowResult>& rows);
  // Final reports and the console table and score.
  void finish(const std::vector<RowResult>& rows);
  // Rows already finished were judged again (--memcheck): rows.jsonl is
  // written anew with every finished row.
  void rows_changed(const std::vector<RowResult>& rows);

 private:
  // Every kernel's reports, or only_kernel's journal.
  void write_reports(const std::vector<RowResult>& rows, const std::string* only_kernel = nullptr);
  void write_journals(const std::vector<RowResult>& rows, const std::string* only_kernel);

  Settings settings_;
  const Policy& policy_;
  RunInfo info_;
  double earlier_runs_s_ = 0;  // the info's elapsed_s when given: runs aggregated here
  std::string run_id_;         // in journal mode, beside the kernels' journals
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::ofstream rows_file_;
  bool terminal_ = false;
  std::size_t finished_ = 0;
  std::vector<std::size_t> unreported_;  // rows finished, their reports not yet written (flush)
};

}  // namespace spmv::grade
