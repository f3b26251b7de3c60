// Rows graded before this run and kept: --output-dir's rows.jsonl with
// --resume, the kernels' journals in CTest mode (--journal); and the run
// facts of the folder a --resume continues.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cases/case_set.hpp"
#include "model/row.hpp"
#include "reports/journal.hpp"

namespace spmv::grade {

// The row files whose finished rows a grading keeps: the kernels' journals
// in the `journal` folder (CTest mode), else the rows.jsonl of
// `resumed_output_dir` (--resume), else none.
std::vector<std::filesystem::path> finished_row_files(const std::optional<std::filesystem::path>& journal,
                                                      const std::optional<std::filesystem::path>& resumed_output_dir,
                                                      const std::vector<std::string>& kernels);

// The planned rows already finished in these row files take their recorded
// results; returns their indices. A line cut short by a killed grader is
// left out (its row is graded again), as is a file that is not there.
std::set<std::size_t> take_finished_rows(const std::vector<std::filesystem::path>& files, std::vector<RowResult>& rows);

// CTest mode, a kernel's own run (`kernels` given): when an earlier run in
// the journal folder (the whole grading's) left every row of these kernels
// finished, there is nothing to grade, and the run ends before it starts a
// runner or probes a plugin. Its rows are printed as a journal run prints
// them, and its exit status returned. Otherwise nothing. With --memcheck
// too: the run that graded the rows ran their memcheck pass (one killed
// before it is a failed test).
std::optional<int> already_graded(const std::optional<std::filesystem::path>& journal,
                                  const std::vector<std::string>& kernels, const std::vector<CaseEntry>& cases,
                                  bool strict_gpu);

// --resume: the output folder's run facts, read before this run writes
// anything there; nothing when the folder holds no row to keep (a grading
// killed before its first row, or a fresh folder). Throws UsageError when
// the folder holds rows but no readable run facts.
std::optional<JournalRun> earlier_run(const std::filesystem::path& output_dir);

}  // namespace spmv::grade
