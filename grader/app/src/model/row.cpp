#include "model/row.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace spmv::grade {
namespace {

struct VerdictNames {
  Verdict verdict;
  const char* token;
  const char* description;
};

constexpr std::array<VerdictNames, 12> kVerdictNames{{
    {Verdict::kPass, "pass", "pass"},
    {Verdict::kWrong, "wrong", "wrong"},
    {Verdict::kCrash, "crash", "crash"},
    {Verdict::kTimeout, "timeout", "timeout"},
    {Verdict::kNotImplemented, "not_implemented", "not implemented"},
    {Verdict::kNotApplicable, "not_applicable", "not applicable"},
    {Verdict::kSkipped, "skipped", "skipped (no GPU)"},
    {Verdict::kLoadError, "load_error", "load error"},
    {Verdict::kForbiddenLibrary, "forbidden_library", "forbidden library"},
    {Verdict::kCaseError, "case_error", "case error"},
    {Verdict::kGraderError, "grader_error", "grader error"},
    {Verdict::kNotRun, "not_run", "not run (grader stopped)"},
}};

const VerdictNames& names_of(Verdict verdict) {
  for (const auto& names : kVerdictNames) {
    if (names.verdict == verdict) return names;
  }
  throw std::logic_error("a verdict without names");
}

}  // namespace

const char* describe(Verdict verdict) { return names_of(verdict).description; }
const char* token(Verdict verdict) { return names_of(verdict).token; }

Verdict verdict_from_token(const std::string& text) {
  for (const auto& names : kVerdictNames) {
    if (text == names.token) return names.verdict;
  }
  throw std::invalid_argument("unknown verdict '" + text + "'");
}

bool counts_towards_score(Verdict verdict) {
  return verdict != Verdict::kNotApplicable && verdict != Verdict::kCaseError && verdict != Verdict::kGraderError;
}

bool is_success(Verdict verdict) { return verdict == Verdict::kPass || verdict == Verdict::kNotApplicable; }

}  // namespace spmv::grade
