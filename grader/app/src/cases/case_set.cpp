#include "cases/case_set.hpp"

#include <fnmatch.h>

#include <algorithm>

#include "model/exit_codes.hpp"
#include "model/provenance.hpp"

namespace spmv::grade {
namespace {

bool matches_any(const std::string& name, const std::vector<std::string>& patterns) {
  return patterns.empty() || std::any_of(patterns.begin(), patterns.end(), [&](const std::string& pattern) {
           return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
         });
}

// Why a --cases folder or manifest gave no case, for the error: what the
// folder holds instead (a matrix under another extension, a README).
std::string no_case_reason(const std::filesystem::path& source) {
  std::error_code error;
  if (!std::filesystem::is_directory(source, error)) {
    return "the manifest has no [case] section, and its folder no .mtx or .mtx.gz file it does not name";
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(source, error)) {
    names.push_back(entry.path().filename().string() + (entry.is_directory() ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  std::string held;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) held += (held.empty() ? "" : ", ") + names[i];
  if (names.size() > 8) held += ", ... (" + std::to_string(names.size()) + " in all)";
  return std::string("holds no case: no .mtx or .mtx.gz file and no cases.ini section") +
         (names.empty() ? " (the folder is empty)" : " (it holds: " + held + ")") +
         "; a case set left empty would be graded as nothing at all";
}

// A case set in which no case weighs anything gives every submission
// 0 / 0: a mistake of the policy or the manifests, named with their lines.
void check_case_weights(const Policy& policy, const std::vector<TestCase>& all, const std::string& sources) {
  if (all.empty()) return;
  for (const auto& c : all) {
    if (policy.case_weight(c.name, c.weight) > 0) return;
  }
  std::string where;
  for (std::size_t i = 0; i < all.size() && i < 4; ++i) {
    const TestCase& c = all[i];
    const bool by_policy = policy.lines.count("case." + c.name + ".weight") != 0;
    where +=
        (where.empty() ? "" : ", ") + c.name + " (" +
        (by_policy ? policy.locate("case." + c.name + ".weight") : c.origin + ": weight " + std::to_string(c.weight)) +
        ")";
  }
  if (all.size() > 4) where += ", ...";
  throw UsageError("every case of " + sources + " weighs 0 under the policy (" + policy.source +
                   ") and the manifests, so no row could earn a point and every score would read 0 / 0: " + where);
}

}  // namespace

std::vector<CaseEntry> load_case_set(const std::vector<std::filesystem::path>& sources,
                                     const std::vector<std::string>& filters, const Policy& policy) {
  std::vector<CaseEntry> entries;
  std::map<std::string, std::string> source_of;
  std::string all_names;
  std::vector<TestCase> all;
  for (const auto& source : sources) {
    std::vector<TestCase> cases;
    try {
      cases = load_cases(source);
    } catch (const std::exception& e) {
      throw SetupError("--cases " + source.string() + ": " + e.what());
    }
    if (cases.empty()) throw SetupError("--cases " + source.string() + ": " + no_case_reason(source));
    all.insert(all.end(), cases.begin(), cases.end());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string& name = cases[i].name;
      all_names += (all_names.empty() ? "" : ", ") + name;
      if (const auto [it, fresh] = source_of.emplace(name, source.string()); !fresh) {
        throw SetupError("case " + name + " is in both " + it->second + " and " + source.string());
      }
      if (matches_any(name, filters)) entries.push_back({cases[i], static_cast<int>(i), source.string()});
    }
  }
  if (entries.empty() && !filters.empty()) {
    throw UsageError("--case: no case matches (cases: " + (all_names.empty() ? "none" : all_names) + ")");
  }
  // A [case.<name>] section of the policy must name one of these cases.
  std::vector<std::string> names;
  std::string sources_named;
  for (const auto& [name, source] : source_of) names.push_back(name);
  for (const auto& source : sources) sources_named += (sources_named.empty() ? "--cases " : ", ") + source.string();
  try {
    policy.check_case_names(names, sources_named);
  } catch (const PolicyError& e) {
    throw UsageError(std::string("--policy: ") + e.what());
  }
  check_case_weights(policy, all, sources_named);
  return entries;
}

UnreadNotes unread_files_notes(const std::vector<std::filesystem::path>& sources) {
  std::string misnamed, below;
  std::size_t count = 0;
  const auto add = [&](std::string& list, const std::filesystem::path& file) {
    list += (list.empty() ? "" : ", ") + file.string();
    ++count;
  };
  for (const auto& source : sources) {
    for (const auto& file : unread_matrix_files(source)) add(misnamed, file);
    for (const auto& file : subfolder_matrix_files(source)) add(below, file);
  }
  UnreadNotes notes;
  if (count == 0) return notes;
  notes.report = std::to_string(count) + (count == 1 ? " file" : " files") +
                 " of the case folders that look like matrices but are no case were not graded; the grader's "
                 "console names them.";
  if (!misnamed.empty()) {
    notes.console +=
        "Files that look like matrices but are no case were not graded (only .mtx and .mtx.gz files, and the "
        "cases.ini sections, are cases): " +
        misnamed + ".";
  }
  if (!below.empty()) {
    notes.console += std::string(notes.console.empty() ? "" : " ") +
                     "Matrices in a subfolder of a case folder were not graded (a case folder's cases are its own "
                     ".mtx and .mtx.gz files and its cases.ini sections; move them up, or name them in cases.ini "
                     "with \"file = <subfolder>/<name>.mtx\"): " +
                     below + ".";
  }
  return notes;
}

std::map<std::string, std::string> matrix_digests(const std::vector<CaseEntry>& cases) {
  std::map<std::string, std::string> digests;
  for (const auto& entry : cases) {
    const TestCase& c = entry.test_case;
    digests[c.name] = c.file.empty() ? "sha256:" + sha256_hex(c.generator) + " (generator)" : file_digest(c.file);
  }
  return digests;
}

}  // namespace spmv::grade
