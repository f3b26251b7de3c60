#include "reports/reporter.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <stdexcept>

#include "reports/journal.hpp"
#include "reports/row_json.hpp"
#include "spmv/core/atomic_file.hpp"

namespace spmv::grade {

Reporter::Reporter(Settings settings, const Policy& policy, RunInfo info)
    : settings_(std::move(settings)),
      policy_(policy),
      info_(std::move(info)),
      earlier_runs_s_(info_.elapsed_s),
      run_id_(new_run_id()),
      terminal_(::isatty(STDOUT_FILENO) != 0) {}

void Reporter::write_journals(const std::vector<RowResult>& rows, const std::string* only_kernel) {
  std::map<std::string, std::string> lines;  // by kernel
  for (const auto& row : rows) {
    if (only_kernel == nullptr || row.kernel == *only_kernel) lines[row.kernel] += row_to_json_line(row) + "\n";
  }
  for (const auto& [kernel, text] : lines) {
    write_file_atomically(journal_file(*settings_.journal, kernel), text);
    // The run's facts beside its rows, when they may have changed.
    if (only_kernel == nullptr) write_run_info(run_info_file(*settings_.journal, kernel), {run_id_, info_});
  }
}

void Reporter::write_reports(const std::vector<RowResult>& rows, const std::string* only_kernel) {
  info_.elapsed_s = earlier_runs_s_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (settings_.journal) {
    write_journals(rows, only_kernel);
    return;
  }
  write_file_atomically(settings_.output_dir / "results.json", gradescope_json(policy_, rows, info_));
  write_file_atomically(settings_.output_dir / "summary.md", markdown_summary(policy_, rows, info_));
  write_file_atomically(settings_.output_dir / "report.html", html_report(policy_, rows, info_));
}

void Reporter::start(const std::vector<RowResult>& rows) {
  std::filesystem::create_directories(settings_.output_dir / "logs");
  if (settings_.journal) std::filesystem::create_directories(*settings_.journal);
  if (!settings_.journal) {
    rows_file_.open(settings_.output_dir / "rows.jsonl", std::ios::trunc);
    if (!rows_file_) throw std::runtime_error((settings_.output_dir / "rows.jsonl").string() + ": cannot write");
    // Rows finished before (--resume) stay in the file.
    for (const auto& row : rows) {
      if (row.verdict == Verdict::kNotRun) continue;
      rows_file_ << row_to_json_line(row) << '\n';
      ++finished_;
    }
    rows_file_ << std::flush;
  }
  write_reports(rows);
}

void Reporter::row_started(const std::vector<RowResult>& rows, std::size_t index) {
  if (settings_.quiet || !terminal_) return;
  const auto& row = rows[index];
  std::cout << "\r\033[K[" << finished_ + unreported_.size() + 1 << "/" << rows.size() << "] " << row.kernel << " / "
            << row.case_name << " ..." << std::flush;
}

void Reporter::row_finished(const std::vector<RowResult>& rows, std::size_t index, bool later) {
  unreported_.push_back(index);
  if (!later) flush(rows);
}

void Reporter::flush(const std::vector<RowResult>& rows) {
  if (unreported_.empty()) return;
  const std::vector<std::size_t> indices = std::move(unreported_);
  unreported_.clear();
  // The reports first, rows.jsonl last: a row there is in results.json too.
  // A grader killed between the two leaves rows.jsonl rows behind (graded
  // again by --resume), never ahead of the report.
  const std::string& kernel = rows[indices.front()].kernel;
  const bool one_kernel = std::all_of(indices.begin(), indices.end(), [&](auto i) { return rows[i].kernel == kernel; });
  write_reports(rows, one_kernel ? &kernel : nullptr);
  if (rows_file_.is_open()) {
    for (const auto i : indices) rows_file_ << row_to_json_line(rows[i]) << '\n';
    rows_file_ << std::flush;
  }
  if (settings_.quiet) {
    finished_ += indices.size();
    return;
  }
  const ScoreSummary scores = score_rows(policy_, rows);
  for (const auto i : indices) {
    if (terminal_) std::cout << "\r\033[K";
    std::cout << progress_line(rows[i], ++finished_, rows.size(), &scores.rows[i]) << std::endl;
  }
}

void Reporter::rows_changed(const std::vector<RowResult>& rows) {
  flush(rows);
  if (rows_file_.is_open()) {
    rows_file_.close();
    std::string lines;
    for (const auto& row : rows) {
      if (row.verdict != Verdict::kNotRun) lines += row_to_json_line(row) + "\n";
    }
    write_file_atomically(settings_.output_dir / "rows.jsonl", lines);
    rows_file_.open(settings_.output_dir / "rows.jsonl", std::ios::app);
  }
  write_reports(rows);
}

void Reporter::finish(const std::vector<RowResult>& rows) {
  flush(rows);
  write_reports(rows);
  const ScoreSummary summary = score_rows(policy_, rows);
  if (settings_.quiet) {
    if (settings_.journal) {
      for (const auto& row : rows) std::cout << row.kernel << " / " << row.case_name << ": " << row.summary << '\n';
      if (!rows.empty() && !rows.front().submission_output.empty()) {
        std::cout << "submission output:\n" << rows.front().submission_output << '\n';
      }
    } else {
      std::cout << score_line(summary, rows) << '\n';
      if (const std::string problems = setup_problems_note(rows); !problems.empty()) std::cout << problems << '\n';
    }
    std::cout << std::flush;
    return;
  }
  std::cout << console_report(policy_, rows, info_);
  if (settings_.journal) {
    std::cout << "Rows written to " << settings_.journal->string() << '\n';
  } else {
    std::cout << "Reports: " << (settings_.output_dir / "results.json").string() << ", "
              << (settings_.output_dir / "summary.md").string() << '\n';
  }
  std::cout << std::flush;
}

}  // namespace spmv::grade
