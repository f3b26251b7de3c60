// The case set of a grading: the cases of every --cases folder, manifest or
// matrix file, those --case selects, checked against each other and against
// the policy before anything runs; and each case's matrix digest.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "scoring/policy.hpp"
#include "spmv/core/cases.hpp"

namespace spmv::grade {

// A case to grade: its place in its source and the source it came from.
struct CaseEntry {
  TestCase test_case;
  int order = 0;
  std::string source;
};

// The cases of `sources` whose names match one of `filters` (shell
// patterns; none: every case), in the sources' order. Throws SetupError for
// a source that gives no case or a case name in two sources; UsageError for
// filters that match no case, a [case.<name>] section of the policy naming
// no case, or a case set in which no case weighs anything.
std::vector<CaseEntry> load_case_set(const std::vector<std::filesystem::path>& sources,
                                     const std::vector<std::string>& filters, const Policy& policy);

// Files of the sources that look like matrices but are no case (a matrix
// named .MTX or .mtx.bz2, a matrix in a subfolder no cases.ini line names):
// graded without them, and said: `console` names them, for the grader's
// console; `report` counts them, for the reports a student may be shown,
// which never name a case folder's files. Both empty when none.
struct UnreadNotes {
  std::string console;
  std::string report;
};
UnreadNotes unread_files_notes(const std::vector<std::filesystem::path>& sources);

// Each case's matrix digest, by name: its file's SHA-256, or its generator
// spec's. Read once for the provenance and the run's identity.
std::map<std::string, std::string> matrix_digests(const std::vector<CaseEntry>& cases);

}  // namespace spmv::grade
