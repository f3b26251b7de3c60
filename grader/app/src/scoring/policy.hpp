// The scoring policy: which kernels are graded and how much each is worth,
// the split between correctness and performance points, the speedup band,
// and per-case weight and visibility overrides. Read from a file in the
// grader's INI dialect (spmv/core/ini.hpp: "key = value" lines, "[section]"
// headers prefixing the keys after them, ';' or '#' comments); the
// documented default (grader/policy/default-policy.ini) is compiled into the
// grader. A file is read over that default: every key it leaves out keeps
// its default value, and without any [kernels] key the default's kernels
// (the six a submission provides, one each) are graded; a [kernels] section
// replaces the default's list as a whole.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "spmv/plugin/plugin.hpp"

namespace spmv::grade {

class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SpeedupBand {
  double no_credit_below = 0.25;
  double full_credit_at = 0.9;
};

struct CaseOverride {
  std::optional<double> weight;
  std::optional<std::string> visibility;
};

struct Policy {
  std::string source;  // file name, or "built-in default policy"
  // The line of each key the file gives ("kernels.coo", "case.big.weight").
  std::map<std::string, int> lines;
  double total_points = 100;
  double correctness_share = 0.7;
  SpeedupBand band;
  // A speedup above this is flagged for review (speedup_review); flagged
  // rows earn no performance points unless the flag is accepted.
  double speedup_review = 10;
  // A row whose reference launch takes less than this (microseconds, by
  // the grader's clock) is correctness-only: too short for its time to
  // mean much (docs/grading.md, "Timing"). Its speed points are given in
  // full (short_rows = full_credit) or not at all (no_credit).
  double min_reference_us = 20;
  bool short_rows_full_credit = true;
  // Flags an instructor has reviewed and accepts ("implausible_timing",
  // "speedup_review"): rows with only these earn their performance points.
  std::vector<std::string> accepted_flags;
  // Vendor libraries a submission may not link or import ([libraries]
  // forbidden; names such as cusparse: lib<name>* and <name>* symbols).
  std::vector<std::string> forbidden_libraries = kDefaultForbiddenLibraries;
  std::vector<std::pair<std::string, double>> kernel_weights;  // in report order
  std::map<std::string, CaseOverride> cases;

  // Listed weight; 1 for a kernel the policy does not list.
  [[nodiscard]] double kernel_weight(const std::string& kernel) const;
  // Position in the policy's list (report order); list size if absent.
  [[nodiscard]] std::size_t kernel_order(const std::string& kernel) const;
  // Kernels of weight > 0, in order.
  [[nodiscard]] std::vector<std::string> graded_kernels() const;
  [[nodiscard]] double case_weight(const std::string& case_name, double manifest_weight) const;
  [[nodiscard]] std::string case_visibility(const std::string& case_name, const std::string& manifest_visibility) const;

  // "<source>:<line>: <key>" for errors about a key the file gives.
  [[nodiscard]] std::string locate(const std::string& key) const;
  // Throws PolicyError naming the file, the line and the key of the first
  // [case.<name>] section whose name is not in `case_names` (all the cases
  // loaded; `where` says where they came from).
  void check_case_names(const std::vector<std::string>& case_names, const std::string& where) const;
};

// Gradescope's test visibilities.
bool is_valid_visibility(const std::string& visibility);

// The library census: every name [libraries] forbidden may hold, as the
// plugin check matches it (lib<name>* linked, <name>* imported): the
// vendor libraries of the CUDA toolkit and the common CPU and GPU sparse and
// dense linear algebra libraries. A name outside it is a mistake of the
// policy file (a typo would forbid nothing), named with file and line.
const std::vector<std::string>& known_libraries();

// The effective policy, resolved (every key, defaults filled in), as a
// policy file that --policy reads back to the same policy, in the order of
// grader/policy/default-policy.ini. A first comment line names the source
// when `with_source`; the text without it is what policy_digest hashes.
std::string policy_text(const Policy& policy, bool with_source = true);
// The same as one JSON object (for tools: tools/grade-class reads it from
// spmv-grade --show-policy=json): source, digest, every key, the kernels
// in order and the graded ones, the case overrides.
std::string policy_json(const Policy& policy);
// "sha256:<hex>" of policy_text(policy, false): equal for equal policies,
// however their files were written.
std::string policy_digest(const Policy& policy);

// Reads `text` over the default policy; `source` names it in errors.
// Malformed lines, unknown or repeated keys, malformed numbers and
// out-of-range values throw PolicyError naming the source, the line and the
// key.
Policy parse_policy(const std::string& text, const std::string& source);
Policy load_policy(const std::filesystem::path& path);
const Policy& default_policy();
// The text of grader/policy/default-policy.ini, as compiled in: with a line
// "<kernel> = 1" under [kernels] for each kernel of the catalog.
const std::string& default_policy_text();

// Share of a row's performance points for `speedup`: 0 below the band, 1 at
// or above its top, linear between.
double performance_credit(const SpeedupBand& band, double speedup);

}  // namespace spmv::grade
