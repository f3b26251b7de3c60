#include "scoring/policy.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "model/json.hpp"
#include "model/provenance.hpp"
#include "spmv/core/ini.hpp"

namespace spmv::grade {
namespace {

constexpr std::string_view kCasePrefix = "case.";
constexpr std::string_view kKernelPrefix = "kernels.";
// Reads the file's keys over a base policy (the default), so a key the
// file leaves out keeps the base's value; the base's kernel list is kept
// only when the file names no kernel at all.
class PolicyReader {
 public:
  PolicyReader(const Policy& base, std::string source) : policy_(base) {
    policy_.source = std::move(source);
    policy_.lines.clear();
    policy_.cases.clear();
  }

  // The file is read by the grader's INI reader (spmv/core/ini.hpp); a
  // section's keys are named "<section>.<key>", and a section given twice
  // continues the first.
  void read(const std::string& text) {
    ini::Document document;
    try {
      document = ini::parse(text, policy_.source, ini::RepeatedSection::kContinue);
    } catch (const ini::Error& error) {
      throw PolicyError(error.what());
    }
    for (const ini::Section& section : document.sections) {
      for (const ini::Key& key : section.keys) {
        line_ = static_cast<int>(key.line);
        apply(section.name.empty() ? key.name : section.name + "." + key.name, key.value);
      }
    }
    line_ = 0;
  }

  Policy finish() {
    if (file_names_kernels_ && policy_.graded_kernels().empty()) {
      throw PolicyError(policy_.source + ": [kernels] gives every kernel weight 0, so no kernel would be graded");
    }
    if (policy_.band.no_credit_below >= policy_.band.full_credit_at) {
      const std::string key =
          policy_.lines.count("speedup.no_credit_below") != 0 ? "speedup.no_credit_below" : "speedup.full_credit_at";
      throw PolicyError(where(key) + ": speedup.no_credit_below (" + format(policy_.band.no_credit_below) +
                        ") must be below speedup.full_credit_at (" + format(policy_.band.full_credit_at) + ")");
    }
    return std::move(policy_);
  }

 private:
  void apply(const std::string& key, const std::string& text) {
    // The reader refuses a key twice in a section; this catches the same
    // key spelt both ways ("speedup.review_above" before any section and
    // review_above in [speedup]).
    if (!policy_.lines.emplace(key, line_).second) {
      fail(key, "is given twice (first on line " + std::to_string(policy_.lines.at(key)) + ")");
    }
    if (key == "total_points") {
      policy_.total_points = number(key, text, 0, 1e9, false);
    } else if (key == "correctness_share") {
      policy_.correctness_share = number(key, text, 0, 1, true);
    } else if (key == "speedup.full_credit_at") {
      policy_.band.full_credit_at = number(key, text, 0, 1e6, false);
    } else if (key == "speedup.no_credit_below") {
      policy_.band.no_credit_below = number(key, text, 0, 1e6, true);
    } else if (key == "speedup.review_above") {
      policy_.speedup_review = number(key, text, 1, 1e9, false);
    } else if (key == "timing.min_reference_us") {
      policy_.min_reference_us = number(key, text, 0, 1e9, true);
    } else if (key == "timing.short_rows") {
      if (text != "full_credit" && text != "no_credit") {
        throw PolicyError(where(key) + ": timing.short_rows must be full_credit or no_credit; found '" + text + "'");
      }
      policy_.short_rows_full_credit = text == "full_credit";
    } else if (key == "flags.accept") {
      policy_.accepted_flags.clear();
      std::string flag;
      for (const char c : text + ",") {
        if (c == ',' || c == ' ') {
          if (flag == "implausible_timing" || flag == "speedup_review") {
            policy_.accepted_flags.push_back(flag);
          } else if (!flag.empty()) {
            throw PolicyError(where(key) + ": unknown flag " + flag +
                              " (flags an instructor may accept: "
                              "implausible_timing, speedup_review)");
          }
          flag.clear();
        } else {
          flag += c;
        }
      }
    } else if (key == "libraries.forbidden") {
      policy_.forbidden_libraries.clear();
      std::string name;
      for (const char c : text + ",") {
        if (c == ',' || c == ' ') {
          if (!name.empty()) {
            check_library(key, name);
            if (std::find(policy_.forbidden_libraries.begin(), policy_.forbidden_libraries.end(), name) ==
                policy_.forbidden_libraries.end()) {
              policy_.forbidden_libraries.push_back(name);
            }
          }
          name.clear();
        } else if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') {
          name += c;
        } else {
          throw PolicyError(where(key) +
                            ": libraries.forbidden: expected library names such as cusparse, cublas (letters, digits, "
                            "'_'), separated by commas; found '" +
                            text + "'");
        }
      }
    } else if (key.starts_with(kKernelPrefix) && key.size() > kKernelPrefix.size()) {
      if (!file_names_kernels_) policy_.kernel_weights.clear();
      file_names_kernels_ = true;
      policy_.kernel_weights.emplace_back(key.substr(kKernelPrefix.size()), number(key, text, 0, 1e9, true));
    } else if (key.starts_with(kCasePrefix)) {
      apply_case(key, text);
    } else {
      fail(key,
           "is not a policy key (known: total_points, correctness_share, speedup.full_credit_at, "
           "speedup.no_credit_below, speedup.review_above, timing.min_reference_us, timing.short_rows, "
           "flags.accept, libraries.forbidden, kernels.<name>, case.<name>.weight, case.<name>.visibility)");
    }
  }

  // A name the census does not know would forbid nothing (a typo such as
  // cusparce would let cuSPARSE through): an error naming the line, with
  // the name meant when one is close.
  void check_library(const std::string& key, const std::string& name) const {
    const auto& known = known_libraries();
    if (std::find(known.begin(), known.end(), name) != known.end()) return;
    std::string closest;
    std::size_t best = 3;  // at most 2 edits
    for (const std::string& candidate : known) {
      const std::size_t distance = edit_distance(lowercase(name), lowercase(candidate));
      if (distance < best) {
        best = distance;
        closest = candidate;
      }
    }
    std::string names;
    for (const std::string& candidate : known) names += (names.empty() ? "" : ", ") + candidate;
    fail(key, "names " + name + ", a library the grader does not know, so it would forbid nothing" +
                  (closest.empty() ? std::string() : " (did you mean " + closest + "?)") +
                  "; names are written as in lib<name>.so, and these are known: " + names);
  }

  static std::string lowercase(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  }

  static std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    return row[b.size()];
  }

  [[nodiscard]] std::string where(const std::string& key) const {
    const auto it = policy_.lines.find(key);
    return policy_.source + (it != policy_.lines.end() ? ":" + std::to_string(it->second) : std::string());
  }

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw PolicyError(policy_.source + ":" + std::to_string(line_) + ": " + key + " " + problem);
  }

  static std::string format(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
  }

  // A number in [low, high]; low itself only when low_inclusive.
  double number(const std::string& key, const std::string& text, double low, double high, bool low_inclusive) const {
    double value = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size() || !std::isfinite(value)) {
      fail(key, "must be a number, found '" + text + "'");
    }
    const bool above_low = low_inclusive ? value >= low : value > low;
    if (!above_low || value > high) {
      fail(key, "must be " + std::string(low_inclusive ? ">= " : "> ") + format(low) + " and <= " + format(high) +
                    ", found " + text);
    }
    return value;
  }

  void apply_case(const std::string& key, const std::string& text) {
    const std::size_t dot = key.rfind('.');
    if (dot <= kCasePrefix.size()) fail(key, "needs a section [case.<name>]");
    const std::string name = key.substr(kCasePrefix.size(), dot - kCasePrefix.size());
    const std::string field = key.substr(dot + 1);
    if (field == "weight") {
      policy_.cases[name].weight = number(key, text, 0, 1e9, true);
    } else if (field == "visibility") {
      if (!is_valid_visibility(text)) {
        fail(key, "must be visible, hidden, after_due_date or after_published, found '" + text + "'");
      }
      policy_.cases[name].visibility = text;
    } else {
      fail(key, "is not a case key (known: weight, visibility)");
    }
  }

  Policy policy_;
  int line_ = 0;
  bool file_names_kernels_ = false;
};

Policy parse_over(const Policy& base, const std::string& text, const std::string& source) {
  PolicyReader reader(base, source);
  reader.read(text);
  return reader.finish();
}

}  // namespace

double Policy::kernel_weight(const std::string& kernel) const {
  for (const auto& [name, weight] : kernel_weights) {
    if (name == kernel) return weight;
  }
  return 1;
}

std::size_t Policy::kernel_order(const std::string& kernel) const {
  const auto it = std::find_if(kernel_weights.begin(), kernel_weights.end(),
                               [&](const auto& entry) { return entry.first == kernel; });
  return static_cast<std::size_t>(it - kernel_weights.begin());
}

std::vector<std::string> Policy::graded_kernels() const {
  std::vector<std::string> names;
  for (const auto& [name, weight] : kernel_weights) {
    if (weight > 0) names.push_back(name);
  }
  return names;
}

double Policy::case_weight(const std::string& case_name, double manifest_weight) const {
  const auto it = cases.find(case_name);
  return it != cases.end() && it->second.weight ? *it->second.weight : manifest_weight;
}

std::string Policy::case_visibility(const std::string& case_name, const std::string& manifest_visibility) const {
  const auto it = cases.find(case_name);
  return it != cases.end() && it->second.visibility ? *it->second.visibility : manifest_visibility;
}

std::string Policy::locate(const std::string& key) const {
  const auto it = lines.find(key);
  return source + (it != lines.end() ? ":" + std::to_string(it->second) : std::string()) + ": " + key;
}

void Policy::check_case_names(const std::vector<std::string>& case_names, const std::string& where) const {
  for (const auto& entry : cases) {
    const std::string& name = entry.first;
    if (std::find(case_names.begin(), case_names.end(), name) != case_names.end()) continue;
    // The section's first key stands for the section.
    std::string key;
    for (const std::string field : {".weight", ".visibility"}) {
      const auto it = lines.find("case." + name + field);
      if (it != lines.end() && (key.empty() || it->second < lines.at(key))) key = it->first;
    }
    std::string known;
    for (const auto& case_name : case_names) known += (known.empty() ? "" : ", ") + case_name;
    throw PolicyError(locate(key) + ": no case named " + name + " in " + where +
                      " (cases: " + (known.empty() ? "none" : known) + ")");
  }
}

const std::vector<std::string>& known_libraries() {
  static const std::vector<std::string> names{
      // The CUDA toolkit's libraries (cublas covers cublasLt, cusparse
      // cusparseLt, npp its nppc, nppi*, npps).
      "cusparse", "cusparseLt", "cublas", "cublasLt", "cusolver", "cusolverMg", "nvblas", "cufft", "cufftw", "curand",
      "cutensor", "cudss", "npp", "nvgraph", "amgx", "magma", "ginkgo", "kokkoskernels",
      // CPU BLAS, LAPACK and sparse libraries.
      "blas", "cblas", "openblas", "flexiblas", "blis", "atlas", "mkl", "armpl", "lapack", "lapacke", "petsc", "hypre",
      "superlu", "cholmod", "umfpack", "suitesparseconfig"};
  return names;
}

namespace {

// Shortest text that reads back to the same double.
std::string number_text(double value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

std::string policy_text(const Policy& policy, bool with_source) {
  std::ostringstream out;
  if (with_source) out << "# The effective policy: " << policy.source << ", every key resolved.\n";
  out << "total_points = " << number_text(policy.total_points) << "\n";
  out << "correctness_share = " << number_text(policy.correctness_share) << "\n";
  out << "\n[speedup]\n";
  out << "full_credit_at = " << number_text(policy.band.full_credit_at) << "\n";
  out << "no_credit_below = " << number_text(policy.band.no_credit_below) << "\n";
  out << "review_above = " << number_text(policy.speedup_review) << "\n";
  out << "\n[timing]\n";
  out << "min_reference_us = " << number_text(policy.min_reference_us) << "\n";
  out << "short_rows = " << (policy.short_rows_full_credit ? "full_credit" : "no_credit") << "\n";
  // An empty list is written "key =", with no blank at the end of the line.
  const auto list = [](const std::vector<std::string>& items) { return items.empty() ? "" : " " + joined(items); };
  out << "\n[flags]\naccept =" << list(policy.accepted_flags) << "\n";
  out << "\n[libraries]\nforbidden =" << list(policy.forbidden_libraries) << "\n";
  out << "\n[kernels]\n";
  for (const auto& [kernel, weight] : policy.kernel_weights) out << kernel << " = " << number_text(weight) << "\n";
  for (const auto& [name, override_of] : policy.cases) {
    out << "\n[case." << name << "]\n";
    if (override_of.weight) out << "weight = " << number_text(*override_of.weight) << "\n";
    if (override_of.visibility) out << "visibility = " << *override_of.visibility << "\n";
  }
  return out.str();
}

std::string policy_digest(const Policy& policy) { return "sha256:" + sha256_hex(policy_text(policy, false)); }

std::string policy_json(const Policy& policy) {
  Json out = Json::object();
  out["source"] = policy.source;
  out["digest"] = policy_digest(policy);
  out["total_points"] = json_number(policy.total_points);
  out["correctness_share"] = json_number(policy.correctness_share);
  Json& speedup = out["speedup"] = Json::object();
  speedup["full_credit_at"] = json_number(policy.band.full_credit_at);
  speedup["no_credit_below"] = json_number(policy.band.no_credit_below);
  speedup["review_above"] = json_number(policy.speedup_review);
  Json& timing = out["timing"] = Json::object();
  timing["min_reference_us"] = json_number(policy.min_reference_us);
  timing["short_rows"] = policy.short_rows_full_credit ? "full_credit" : "no_credit";
  out["flags"] = Json::object();
  out["flags"]["accept"] = policy.accepted_flags;
  out["libraries"] = Json::object();
  out["libraries"]["forbidden"] = policy.forbidden_libraries;
  Json& kernels = out["kernels"] = Json::array();
  for (const auto& [kernel, weight] : policy.kernel_weights) {
    Json entry = Json::object();
    entry["name"] = kernel;
    entry["weight"] = json_number(weight);
    kernels.push_back(std::move(entry));
  }
  out["graded_kernels"] = policy.graded_kernels();
  Json& cases = out["cases"] = Json::object();
  for (const auto& [name, override_of] : policy.cases) {
    Json& entry = cases[name] = Json::object();
    if (override_of.weight) entry["weight"] = json_number(*override_of.weight);
    if (override_of.visibility) entry["visibility"] = *override_of.visibility;
  }
  out["text"] = policy_text(policy);
  return json_text(out) + "\n";
}

bool is_valid_visibility(const std::string& visibility) {
  return visibility == "visible" || visibility == "hidden" || visibility == "after_due_date" ||
         visibility == "after_published";
}

Policy parse_policy(const std::string& text, const std::string& source) {
  return parse_over(default_policy(), text, source);
}

Policy load_policy(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) throw PolicyError(path.string() + ": cannot open the policy file");
  std::ostringstream text;
  text << file.rdbuf();
  return parse_policy(text.str(), path.string());
}

const Policy& default_policy() {
  static const Policy policy = parse_over(Policy{}, default_policy_text(), "built-in default policy");
  return policy;
}

double performance_credit(const SpeedupBand& band, double speedup) {
  if (!(speedup >= band.no_credit_below)) return 0;  // NaN included
  if (speedup >= band.full_credit_at) return 1;
  return (speedup - band.no_credit_below) / (band.full_credit_at - band.no_credit_below);
}

}  // namespace spmv::grade
