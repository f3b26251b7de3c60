#include "policy.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>

namespace spmv::grade {
namespace {

constexpr std::string_view kCasePrefix = "case.";
constexpr std::string_view kKernelPrefix = "kernels.";

class PolicyReader {
 public:
  explicit PolicyReader(std::string source) { policy_.source = std::move(source); }

  void apply(const std::string& key, const std::string& text) {
    if (!seen_.insert(key).second) fail(key, "is given twice");
    if (key == "total_points") {
      policy_.total_points = number(key, text, 0, 1e9, false);
    } else if (key == "correctness_share") {
      policy_.correctness_share = number(key, text, 0, 1, true);
    } else if (key == "speedup.full_credit_at") {
      policy_.band.full_credit_at = number(key, text, 0, 1e6, false);
    } else if (key == "speedup.no_credit_below") {
      policy_.band.no_credit_below = number(key, text, 0, 1e6, true);
    } else if (key.starts_with(kKernelPrefix) && key.size() > kKernelPrefix.size()) {
      policy_.kernel_weights.emplace_back(key.substr(kKernelPrefix.size()), number(key, text, 0, 1e9, true));
    } else if (key.starts_with(kCasePrefix)) {
      apply_case(key, text);
    } else {
      fail(key, "is not a policy key (known: total_points, correctness_share, speedup.full_credit_at, "
                "speedup.no_credit_below, kernels.<name>, case.<name>.weight, case.<name>.visibility)");
    }
  }

  Policy finish() {
    if (policy_.band.no_credit_below >= policy_.band.full_credit_at) {
      throw PolicyError(policy_.source + ": speedup.no_credit_below (" + format(policy_.band.no_credit_below) +
                        ") must be below speedup.full_credit_at (" + format(policy_.band.full_credit_at) + ")");
    }
    return std::move(policy_);
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw PolicyError(policy_.source + ": " + key + " " + problem);
  }

  static std::string format(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
  }

  // A number in [low, high]; low itself only when low_inclusive.
  double number(const std::string& key, const std::string& text, double low, double high,
                bool low_inclusive) const {
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
    const std::string name = key.substr(kCasePrefix.size(), dot - kCasePrefix.size());
    const std::string field = key.substr(dot + 1);
    if (dot < kCasePrefix.size() || name.empty()) fail(key, "needs a section [case.<name>]");
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
  std::set<std::string> seen_;
};

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

bool is_valid_visibility(const std::string& visibility) {
  return visibility == "visible" || visibility == "hidden" || visibility == "after_due_date" ||
         visibility == "after_published";
}

Policy parse_policy(const std::string& text, const std::string& source) {
  namespace po = boost::program_options;
  std::istringstream stream(text);
  po::parsed_options parsed(nullptr);
  try {
    // Every key is taken as unregistered: the kernel and case keys are not
    // known in advance, and PolicyReader checks each key itself.
    parsed = po::parse_config_file(stream, po::options_description(), true);
  } catch (const po::error& e) {
    throw PolicyError(source + ": " + e.what());
  }
  PolicyReader reader(source);
  for (const auto& option : parsed.options) {
    reader.apply(option.string_key, option.value.empty() ? std::string() : option.value.front());
  }
  return reader.finish();
}

Policy load_policy(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) throw PolicyError(path.string() + ": cannot open the policy file");
  std::ostringstream text;
  text << file.rdbuf();
  return parse_policy(text.str(), path.string());
}

const Policy& default_policy() {
  static const Policy policy = parse_policy(default_policy_text(), "built-in default policy");
  return policy;
}

double performance_credit(const SpeedupBand& band, double speedup) {
  if (!(speedup >= band.no_credit_below)) return 0;  // NaN included
  if (speedup >= band.full_credit_at) return 1;
  return (speedup - band.no_credit_below) / (band.full_credit_at - band.no_credit_below);
}

}  // namespace spmv::grade
