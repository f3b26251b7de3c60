// CTest mode's journal folder (--journal DIR): each kernel's rows in
// DIR/<kernel>.jsonl (row_json.hpp's lines), and beside them the run that
// graded them: DIR/<kernel>.run.json, the run's RunInfo (device,
// isolation, seed, provenance, notes). --aggregate reads both back, so that
// the report of a CTest grading says what a direct run's says.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "reports/report.hpp"

namespace spmv::grade {

std::filesystem::path journal_file(const std::filesystem::path& folder, const std::string& kernel);
std::filesystem::path run_info_file(const std::filesystem::path& folder, const std::string& kernel);
// A direct run's facts, beside its reports: <output dir>/run.json (what
// --resume checks the folder's rows against).
std::filesystem::path run_facts_file(const std::filesystem::path& output_dir);

// One run's facts; the run's id is the same in each of its kernels' files.
struct JournalRun {
  std::string id;
  RunInfo info;
};

// A fresh id for a run.
std::string new_run_id();
// Throws std::runtime_error naming the file.
void write_run_info(const std::filesystem::path& path, const JournalRun& run);
// Throws JsonError naming the file and the member.
JournalRun read_run_info(const std::filesystem::path& path);

// The runs of one grading as one: the weakest isolation (unisolated if any
// run was), every note and provenance entry once, the seed if all agree
// (else a note says they did not), the devices named once each, the
// runs' times added up.
// Each run counts once, however many kernels' files name it.
RunInfo merge_run_infos(const std::vector<JournalRun>& runs);

}  // namespace spmv::grade
