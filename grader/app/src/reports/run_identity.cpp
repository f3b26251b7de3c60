#include "reports/run_identity.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>

#include "model/exit_codes.hpp"
#include "model/provenance.hpp"

namespace spmv::grade {
namespace {

constexpr const char* kCasePrefix = "case ";
constexpr const char* kNoSecret = "none";

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "none" : text;
}

// "sha256:0123456789ab" of a digest, enough to tell two apart in a message.
std::string short_digest(const std::string& digest) {
  const auto colon = digest.find(':');
  return colon == std::string::npos ? digest : digest.substr(0, std::min(digest.size(), colon + 13));
}

std::map<std::string, std::string> as_map(const Identity& identity) { return {identity.begin(), identity.end()}; }

// The first line where two policy texts differ, as "'a' there, 'b' now".
std::string first_difference(const std::string& there, const std::string& now) {
  std::istringstream a(there);
  std::istringstream b(now);
  std::string line_a;
  std::string line_b;
  std::string section_a;
  for (;;) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a));
    const bool more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return {};
    if (!more_a) line_a.clear();
    if (!more_b) line_b.clear();
    if (line_a.starts_with('#') && line_b.starts_with('#')) continue;  // the source line
    if (line_a != line_b) {
      const auto shown = [](const std::string& line) {
        return line.empty() ? std::string("nothing") : "'" + line + "'";
      };
      return (section_a.empty() ? "" : section_a + " ") + shown(line_a) + " there, " + shown(line_b) + " now";
    }
    if (line_a.starts_with('[')) section_a = line_a;
  }
}

}  // namespace

std::string case_identity(const TestCase& c, const std::string& matrix_digest) {
  std::ostringstream text;
  text << matrix_digest << "\nweight=" << c.weight << "\nvisibility=" << c.visibility
       << "\ntolerance_c=" << (c.tolerance_c ? std::to_string(*c.tolerance_c) : "default")
       << "\nupper_triangle=" << (c.read_options.upper_triangle == UpperTriangle::kMirror ? "mirror" : "reject")
       << "\nallow_nonfinite=" << (c.read_options.allow_nonfinite ? "true" : "false") << "\n";
  return "sha256:" + sha256_hex(text.str());
}

std::string secret_identity(const std::optional<std::string>& secret_seed) {
  return secret_seed ? secret_check(*secret_seed) : std::string(kNoSecret);
}

Identity run_identity(const IdentityInputs& in) {
  Identity identity;
  identity.emplace_back("submission", file_digest(in.submission));
  if (in.reference) identity.emplace_back("reference", file_digest(*in.reference));
  identity.emplace_back("policy", in.policy_digest);
  std::string kernels;
  for (const auto& kernel : in.kernels) kernels += (kernels.empty() ? "" : ",") + kernel;
  identity.emplace_back("kernels", kernels);
  for (const auto& [name, digest] : in.cases) identity.emplace_back(kCasePrefix + name, digest);
  identity.emplace_back("seed", std::to_string(in.seed));
  for (const auto& setting : in.settings) identity.push_back(setting);
  return identity;
}

std::optional<std::uint64_t> identity_seed(const Identity& identity) {
  for (const auto& [what, value] : identity) {
    if (what != "seed") continue;
    std::uint64_t seed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seed);
    if (error == std::errc{} && end == value.data() + value.size()) return seed;
  }
  return std::nullopt;
}

namespace {

[[noreturn]] void refuse(const std::filesystem::path& folder, const std::vector<std::string>& differences) {
  std::string text = "--resume: " + folder.string() + " was graded by another run: ";
  for (std::size_t i = 0; i < differences.size(); ++i) text += (i == 0 ? "" : "; ") + differences[i];
  throw UsageError(text +
                   ". Its rows are not this run's to keep: resume with the command that made it, grade into "
                   "a new --output-dir, or leave out --resume to grade afresh");
}

}  // namespace

std::string check_resume(const std::filesystem::path& folder, const JournalRun& earlier, const Identity& now,
                         const std::optional<std::string>& secret_seed, const std::string& submission_now,
                         const std::string& policy_text_now) {
  const auto there = as_map(earlier.info.identity);
  const auto here = as_map(now);
  std::vector<std::string> differences;
  const auto value_there = [&](const std::string& what) -> std::optional<std::string> {
    const auto it = there.find(what);
    if (it == there.end()) return std::nullopt;
    return it->second;
  };

  for (const auto& [what, value] : now) {
    if (what.starts_with(kCasePrefix)) continue;
    const auto old = value_there(what);
    if (old && *old == value) continue;
    const std::string was = old ? *old : std::string("not recorded");
    if (what == "submission") {
      differences.push_back("the submission differs (" + earlier.info.submission + ", " + short_digest(was) +
                            "... there; " + submission_now + ", " + short_digest(value) + "... now)");
    } else if (what == "reference") {
      differences.push_back("the reference plugin differs (" + earlier.info.reference + ", " + short_digest(was) +
                            "... there; " + short_digest(value) + "... now)");
    } else if (what == "policy") {
      const std::string line = first_difference(earlier.info.policy, policy_text_now);
      differences.push_back("the effective policy differs" + (line.empty() ? std::string() : " (" + line + ")"));
    } else if (what == "kernels") {
      differences.push_back("the kernels differ (" + was + " there, " + value + " now)");
    } else if (what == "seed") {
      differences.push_back("the seed differs (" + was + " there, --seed " + value + " now)");
    } else {
      differences.push_back(what + " differs (" + was + " there, " + value + " now)");
    }
  }

  std::vector<std::string> only_there;
  std::vector<std::string> only_here;
  std::vector<std::string> changed;
  const std::size_t prefix = std::string(kCasePrefix).size();
  for (const auto& [what, value] : there) {
    if (!what.starts_with(kCasePrefix)) continue;
    const auto it = here.find(what);
    if (it == here.end()) {
      only_there.push_back(what.substr(prefix));
    } else if (it->second != value) {
      changed.push_back(what.substr(prefix));
    }
  }
  for (const auto& [what, value] : here) {
    if (what.starts_with(kCasePrefix) && there.count(what) == 0) only_here.push_back(what.substr(prefix));
  }
  if (!only_there.empty() || !only_here.empty() || !changed.empty()) {
    std::string parts;
    if (!only_there.empty()) parts += "only there: " + joined(only_there);
    if (!only_here.empty()) parts += (parts.empty() ? "" : "; ") + std::string("only now: ") + joined(only_here);
    if (!changed.empty()) {
      parts +=
          (parts.empty() ? "" : "; ") + std::string("changed since (matrix or cases.ini section): ") + joined(changed);
    }
    differences.push_back("the case set differs (" + parts + ")");
  }

  std::string secret_value;
  const auto old_secret = value_there("secret seed");
  const bool had = old_secret && *old_secret != kNoSecret;
  if (!old_secret) {
    differences.push_back("its facts do not record whether it had a secret seed");
  } else if (had && !secret_seed) {
    differences.push_back("it was graded with a secret seed (--secret-seed-file), this run has none");
  } else if (!had && secret_seed) {
    differences.push_back("it was graded without a secret seed, this run has one");
  } else if (had && !secret_matches(*secret_seed, *old_secret)) {
    differences.push_back("the secret seed differs");
  } else {
    secret_value = *old_secret;
  }

  if (!differences.empty()) refuse(folder, differences);
  return secret_value;
}

void check_resume_reference(const std::filesystem::path& folder, const JournalRun& earlier,
                            const std::string& reference_digest, const std::string& reference_now) {
  for (const auto& [what, value] : earlier.info.identity) {
    if (what == "reference" && value != reference_digest) {
      refuse(folder, {"the reference plugin differs (" + earlier.info.reference + ", " + short_digest(value) +
                      "... there; " + reference_now + ", " + short_digest(reference_digest) + "... now)"});
    }
  }
}

}  // namespace spmv::grade
