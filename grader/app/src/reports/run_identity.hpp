// What a grading run grades with, as --resume compares it: an output
// folder's rows are kept only when the folder was made by the same
// submission (the plugin's SHA-256), reference plugin, effective policy,
// kernels, case set (each case's name, its matrix's SHA-256 or generator
// spec and its manifest settings), seed, secret seed (a salted check value,
// never the secret) and the settings that decide a verdict (--timeout,
// --format-limit-mib, the timing options). The identity is written in the
// run's facts (<output dir>/run.json, journal.hpp) and nowhere else.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/journal.hpp"
#include "spmv/core/cases.hpp"

namespace spmv::grade {

using Identity = std::vector<std::pair<std::string, std::string>>;

struct IdentityInputs {
  std::filesystem::path submission;
  std::optional<std::filesystem::path> reference;  // unset: not compared (not known yet)
  std::string policy_digest;                       // policy_digest()
  std::vector<std::string> kernels;
  std::vector<std::pair<std::string, std::string>> cases;  // name, case_identity()
  std::uint64_t seed = 0;
  // "--timeout" -> "60", ...
  std::vector<std::pair<std::string, std::string>> settings;
};

// "sha256:<hex>" of what decides a case's rows: its matrix (the digest of
// its file, or its generator spec) and its manifest settings (weight,
// visibility, tolerance_c, upper_triangle, allow_nonfinite).
std::string case_identity(const TestCase& test_case, const std::string& matrix_digest);

// The identity's entries: "submission", "reference" (when given),
// "policy", "kernels", "case <name>", "seed", then the settings. The
// secret seed's entry is added by the caller: secret_identity(), or what
// check_resume returns.
Identity run_identity(const IdentityInputs& inputs);
// "secret seed" entry's value: "none", or a fresh secret_check().
std::string secret_identity(const std::optional<std::string>& secret_seed);

// The seed a folder was graded with, from its facts' identity.
std::optional<std::uint64_t> identity_seed(const Identity& identity);

// Compares this run with the one whose facts are in `earlier` (read from
// `folder`'s run.json): the entries of `now` (the reference only when
// present: it is known once the plugins are probed), the case set as a
// whole and the secret seed. Throws UsageError starting "--resume: <folder>
// was graded by another run:" and naming each difference; returns the
// secret seed's entry to record (the earlier one when the secrets agree).
std::string check_resume(const std::filesystem::path& folder, const JournalRun& earlier, const Identity& now,
                         const std::optional<std::string>& secret_seed, const std::string& submission_now,
                         const std::string& policy_text_now);
// The same for the reference plugin alone, once it is known.
void check_resume_reference(const std::filesystem::path& folder, const JournalRun& earlier,
                            const std::string& reference_digest, const std::string& reference_now);

}  // namespace spmv::grade
