// CTest mode's journal folder (--journal DIR): each kernel's rows in
// DIR/<kernel>.jsonl (row_json.hpp's lines), and beside them the run that
// graded them: DIR/<kernel>.run.json, the run's RunInfo (device,
// isolation, seed, provenance, notes). --aggregate reads both back, so that
// the report of a CTest grading says what a direct run's says.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report.hpp"

namespace spmv::grade {

std::filesystem::path journal_file(const std::filesystem::path& folder, const std::string& kernel);
std::filesystem::path run_info_file(const std::filesystem::path& folder, const std::string& kernel);

// Throws std::runtime_error naming the file.
void write_run_info(const std::filesystem::path& path, const RunInfo& info);
// Throws JsonError naming the file and the member.
RunInfo read_run_info(const std::filesystem::path& path);

// The runs of one grading as one: the weakest isolation (unisolated if any
// run was), every note and provenance entry once, the seed if all agree
// (else a note says they did not), the devices named once each, the
// runs' times added up.
RunInfo merge_run_infos(const std::vector<RunInfo>& runs);

}  // namespace spmv::grade
