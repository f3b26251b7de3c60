// The modes that read graded rows back: --show-row (one row of a journal,
// its verdict as the exit status) and --aggregate (the reports rebuilt from
// the journals of a CTest grading).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

#include "grading/modes.hpp"
#include "grading/setup.hpp"
#include "judging/exit_status.hpp"
#include "model/exit_codes.hpp"
#include "reports/journal.hpp"
#include "reports/reporter.hpp"
#include "reports/row_json.hpp"
#include "spmv/core/atomic_file.hpp"

namespace spmv::grade {

int run_show_row(const Options& options) {
  const auto& journal = *options.show_row;
  if (options.kernels.size() != 1 || options.case_filters.size() != 1) {
    throw UsageError("--show-row: name the row with one --kernel and one --case");
  }
  if (!std::filesystem::exists(journal)) {
    std::cout << "The row was not graded: its kernel's grading wrote no " << journal.string() << '\n';
    return kExitSetup;
  }
  std::vector<RowResult> rows;
  try {
    rows = read_rows_file(journal);
  } catch (const std::exception& e) {
    throw SetupError(e.what());
  }
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const RowResult& r) {
    return r.kernel == options.kernels.front() && r.case_name == options.case_filters.front();
  });
  if (row == rows.end()) {
    std::cout << "The row was not graded: " << journal.string() << " has no row " << options.kernels.front() << " / "
              << options.case_filters.front() << '\n';
    return kExitSetup;
  }
  std::cout << row->kernel << " / " << row->case_name << ": " << row->summary << '\n';
  if (!row->detail.empty()) std::cout << row->detail << '\n';
  if (!row->submission_output.empty()) std::cout << "submission output:\n" << row->submission_output << '\n';
  if (row->verdict == Verdict::kNotRun) return kExitSetup;
  return exit_code_of({*row}, options.strict_gpu);
}

int run_aggregate(const Options& options) {
  const Policy policy = read_policy(options.policy);
  const auto& folder = *options.aggregate;
  if (!std::filesystem::is_directory(folder)) throw SetupError("--aggregate " + folder.string() + ": not a folder");
  std::vector<std::filesystem::path> files;
  std::vector<std::string> unplanned;
  std::set<std::string> planned;
  if (options.planned) {
    std::ifstream list(*options.planned);
    if (!list) throw SetupError("--planned " + options.planned->string() + ": cannot read");
    for (std::string name; std::getline(list, name);) {
      if (!name.empty()) planned.insert(name);
    }
  }
  for (const auto& item : std::filesystem::directory_iterator(folder)) {
    if (item.path().extension() != ".jsonl") continue;
    if (options.planned && planned.count(item.path().filename().string()) == 0) {
      unplanned.push_back(item.path().filename().string());
      continue;
    }
    files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<RowResult> rows;
  for (const auto& file : files) {
    try {
      for (auto& row : read_rows_file(file)) rows.push_back(std::move(row));
    } catch (const std::exception& e) {
      throw SetupError(e.what());
    }
  }
  if (rows.empty()) throw SetupError("--aggregate " + folder.string() + ": no rows (*.jsonl files) to aggregate");
  std::filesystem::create_directories(options.output_dir);
  std::string lines;
  for (const auto& row : in_report_order(rows)) lines += row_to_json_line(row) + "\n";
  write_file_atomically(options.output_dir / "rows.jsonl", lines);

  // The runs that graded the rows, from beside their journals.
  std::vector<JournalRun> runs;
  for (const auto& file : files) {
    const auto run_file = run_info_file(file.parent_path(), file.stem().string());
    if (!std::filesystem::exists(run_file)) continue;
    try {
      runs.push_back(read_run_info(run_file));
    } catch (const std::exception& e) {
      throw SetupError(e.what());
    }
  }
  RunInfo info = merge_run_infos(runs);
  if (runs.empty()) info.submission = options.submission.string();
  // The report scores the rows under this policy; the runs' own is said
  // when it differs.
  const auto without_source = [](const std::string& text) {
    return text.substr(text.starts_with('#') ? text.find('\n') + 1 : 0);
  };
  if (!info.policy.empty() && without_source(info.policy) != policy_text(policy, false)) {
    info.notes.push_back("The rows were graded under another policy than the one this report scores them with (" +
                         policy.source + ").");
  }
  info.policy = policy_text(policy);
  for (const auto& row : rows) {
    if (row.copy_gbps && !info.copy_gbps) info.copy_gbps = row.copy_gbps;
  }
  const auto skipped =
      std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.verdict == Verdict::kSkipped; });
  if (skipped > 0) info.notes.push_back(std::to_string(skipped) + " rows were skipped: no CUDA GPU was found.");
  if (!unplanned.empty()) {
    std::string names;
    for (const auto& name : unplanned) names += (names.empty() ? "" : ", ") + name;
    info.notes.push_back("Row files that no test planned were ignored: " + names);
    std::cerr << "spmv-grade: ignored row files no test planned: " << names << '\n';
  }
  Reporter reporter({options.output_dir, std::nullopt, options.quiet}, policy, info);
  reporter.finish(rows);
  const int code = exit_code_of(rows, options.strict_gpu);
  // The rows' own tests already failed for wrong rows; the aggregation step
  // itself succeeds unless something could not be graded at all.
  return code == kExitSomethingFailed ? kExitAllPassed : code;
}

}  // namespace spmv::grade
