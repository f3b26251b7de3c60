#include "grading/resume.hpp"

#include <fstream>
#include <iostream>

#include "judging/exit_status.hpp"
#include "model/exit_codes.hpp"
#include "model/options.hpp"
#include "reports/row_json.hpp"

namespace spmv::grade {

std::vector<std::filesystem::path> finished_row_files(const std::optional<std::filesystem::path>& journal,
                                                      const std::optional<std::filesystem::path>& resumed_output_dir,
                                                      const std::vector<std::string>& kernels) {
  if (journal) {
    std::vector<std::filesystem::path> files;
    for (const auto& kernel : kernels) files.push_back(journal_file(*journal, kernel));
    return files;
  }
  if (resumed_output_dir) return {*resumed_output_dir / "rows.jsonl"};
  return {};
}

std::set<std::size_t> take_finished_rows(const std::vector<std::filesystem::path>& files,
                                         std::vector<RowResult>& rows) {
  std::set<std::size_t> done;
  for (const auto& path : files) {
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) {
      RowResult finished;
      try {
        finished = row_from_json(parse_json(line));
      } catch (const std::exception&) {
        continue;
      }
      if (finished.verdict == Verdict::kNotRun) continue;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].kernel == finished.kernel && rows[i].case_name == finished.case_name &&
            rows[i].case_source == finished.case_source) {
          rows[i] = std::move(finished);
          done.insert(i);
          break;
        }
      }
    }
  }
  return done;
}

std::optional<int> already_graded(const std::optional<std::filesystem::path>& journal,
                                  const std::vector<std::string>& kernels, const std::vector<CaseEntry>& cases,
                                  bool strict_gpu) {
  if (!journal || kernels.empty()) return std::nullopt;
  std::vector<RowResult> rows;
  for (const auto& kernel : kernels) {
    for (const auto& entry : cases) {
      RowResult row;
      row.kernel = kernel;
      row.case_name = entry.test_case.name;
      row.case_source = entry.source;
      row.verdict = Verdict::kNotRun;
      rows.push_back(std::move(row));
    }
  }
  if (take_finished_rows(finished_row_files(journal, std::nullopt, kernels), rows).size() != rows.size()) {
    return std::nullopt;
  }
  for (const auto& row : rows) std::cout << row.kernel << " / " << row.case_name << ": " << row.summary << '\n';
  std::cout << "Every row was graded already, by an earlier run into " << journal->string() << '\n' << std::flush;
  return journal_exit_code(rows, strict_gpu);
}

std::optional<JournalRun> earlier_run(const std::filesystem::path& output_dir) {
  const auto facts = run_facts_file(output_dir);
  const auto rows = output_dir / "rows.jsonl";
  std::error_code error;
  if (!std::filesystem::exists(rows, error) || std::filesystem::file_size(rows, error) == 0) return std::nullopt;
  if (!std::filesystem::exists(facts, error)) {
    throw UsageError("--resume: " + output_dir.string() +
                     " holds rows (rows.jsonl) but no run facts (run.json) saying what graded them, so they cannot "
                     "be checked against this run; grade into a new --output-dir, or leave out --resume to grade "
                     "afresh");
  }
  try {
    return read_run_info(facts);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--resume: ") + e.what() +
                     "; without its run facts the folder's rows cannot be checked against this run");
  }
}

}  // namespace spmv::grade
