#include "grading/setup.hpp"

#include <algorithm>

#include "model/exit_codes.hpp"

namespace spmv::grade {
namespace {

// What a runner may use: memory (RLIMIT_DATA; the driver's address-space
// reservations are not data), processes and threads of its uid, open files,
// CPU time and file size (its folder only).
sandbox::Limits runner_limits(double timeout_s) {
  sandbox::Limits limits;
#if defined(SPMV_SANITIZED_BUILD)
  // A sanitized build's runners (SPMV_SANITIZE, for tests only) reserve
  // terabytes of shadow memory before main(), which RLIMIT_DATA counts:
  // under the limit they could not start. Their allocator's own cap
  // stands in for it (runner_main.cpp).
  limits.data_bytes = 0;
#else
  limits.data_bytes = std::uint64_t{64} << 30;
#endif
  limits.processes = 256;
  limits.open_files = 4096;
  limits.cpu_seconds = static_cast<std::uint64_t>(4 * std::max(timeout_s, kMinimumProbeTimeout)) + 60;
  limits.file_bytes = std::uint64_t{256} << 20;
  return limits;
}

}  // namespace

Policy read_policy(const std::optional<std::filesystem::path>& file) {
  try {
    return file ? load_policy(*file) : default_policy();
  } catch (const PolicyError& e) {
    throw UsageError(std::string("--policy: ") + e.what());
  }
}

std::filesystem::path logs_dir(const std::filesystem::path& output_dir) { return output_dir / "logs"; }

std::string file_name_part(const std::string& text) {
  std::string name = text;
  for (char& c : name) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!plain) c = '_';
  }
  return name;
}

sandbox::Level isolation_level(const std::optional<std::string>& asked, bool allow_unisolated) {
  const sandbox::Level strongest = sandbox::strongest_available();
  sandbox::Level level = strongest;
  if (asked) {
    const auto named = sandbox::parse_level(*asked);
    if (!named) throw UsageError("--isolation " + *asked + ": not a level (full, container, user, none)");
    if (*named > strongest) {
      throw SetupError("--isolation " + *asked + ": not available here; the strongest is " +
                       sandbox::level_name(strongest) + " (" + sandbox::describe_level(strongest) + ")");
    }
    level = *named;
  }
  if (level < sandbox::Level::kContainer && !allow_unisolated) {
    throw SetupError(std::string("isolation level '") + sandbox::level_name(level) +
                     "' cannot contain a submission (it needs root, or a container that lets the grader change "
                     "uid); grading for marks refuses it. Pass --allow-unisolated to grade your own work anyway: "
                     "the reports will say so.");
  }
  return level;
}

RunnerSpec common_runner_spec(const Policy& policy, const WorkRoot& work_root, sandbox::Level level, double timeout_s) {
  RunnerSpec spec;
  spec.forbidden_libraries = policy.forbidden_libraries;
  spec.level = level;
  spec.work_root = work_root.path();
  spec.limits = runner_limits(timeout_s);
  return spec;
}

RunnerSpec for_program(RunnerSpec spec, const std::filesystem::path& executable, const std::filesystem::path& plugin,
                       const std::filesystem::path& log) {
  spec.executable = executable;
  spec.plugin = plugin;
  spec.log_file = log;
  return spec;
}

void probe_plugins(Setup& setup, const RunnerSpec& common, const Defaults& defaults,
                   const std::filesystem::path& submission, const std::optional<std::filesystem::path>& reference,
                   const std::filesystem::path& logs, double timeout_s) {
  const double timeout = std::max(timeout_s, kMinimumProbeTimeout);
  setup.submission =
      probe_plugin(for_program(common, defaults.runner, submission, logs / "probe-submission.log"), timeout);
  const bool host_submission = setup.submission.loaded && setup.submission.memory == SPMV_MEMORY_HOST;
  const auto reference_path =
      reference.value_or(host_submission ? defaults.host_reference_plugin : defaults.reference_plugin);
  setup.reference = probe_plugin(
      for_program(common, defaults.reference_runner, reference_path, logs / "probe-reference.log"), timeout);
  if (!setup.reference.loaded) throw SetupError("the reference plugin cannot be used: " + setup.reference.error);
  if (setup.submission.loaded && setup.submission.memory != setup.reference.memory) {
    const auto where = [](spmv_memory_space space) { return space == SPMV_MEMORY_HOST ? "host" : "device"; };
    throw SetupError("the submission " + submission.string() + " works in " + where(setup.submission.memory) +
                     " memory but the reference " + reference_path.string() + " in " + where(setup.reference.memory) +
                     " memory; pass a --reference of the same kind");
  }
}

std::vector<std::string> choose_kernels(const std::vector<std::string>& asked, const Setup& setup) {
  // A kernel the policy lists is a mistake of the policy file, named there.
  for (const auto& [kernel, weight] : setup.policy.kernel_weights) {
    if (setup.reference.find(kernel) == nullptr) {
      throw UsageError("--policy: " + setup.policy.locate("kernels." + kernel) + ": the reference " +
                       setup.reference.path.string() + " has no kernel named " + kernel +
                       " (it has: " + setup.reference.kernel_names() + ")");
    }
  }
  std::vector<std::string> kernels = asked;
  if (kernels.empty()) kernels = setup.policy.graded_kernels();
  for (const auto& kernel : kernels) {
    if (setup.reference.find(kernel) == nullptr) {
      throw UsageError("--kernel " + kernel + ": the reference " + setup.reference.path.string() +
                       " has no such kernel (it has: " + setup.reference.kernel_names() + ")");
    }
  }
  return kernels;
}

std::string no_points_note(const Setup& setup, bool cases_filtered, bool kernels_chosen) {
  double kernel_weights = 0;
  for (const auto& kernel : setup.kernels) kernel_weights += setup.policy.kernel_weight(kernel);
  double case_weights = 0;
  for (const auto& entry : setup.cases)
    case_weights += setup.policy.case_weight(entry.test_case.name, entry.test_case.weight);
  if (kernel_weights > 0 && case_weights > 0) return {};
  std::string why = kernel_weights > 0 ? "every case it grades" : "every kernel it grades";
  why += kernel_weights > 0 ? (cases_filtered ? " (--case)" : "") : (kernels_chosen ? " (--kernel)" : "");
  return "The rows of this run carry no points: " + why + " has weight 0 in the policy (" + setup.policy.source +
         ") or its manifest, so its score reads 0 / 0 whatever the verdicts.";
}

void check_submission_path(const std::filesystem::path& submission, bool given) {
  std::error_code error;
  const auto status = std::filesystem::status(submission, error);
  const std::string named = given ? "--submission " + submission.string()
                                  : "--submission (default: the student plugin " + submission.string() + ")";
  if (!std::filesystem::exists(status)) {
    throw UsageError(named + ": no such file" +
                     (given ? std::string() : "; build it first (cmake --build --preset dev)"));
  }
  if (std::filesystem::is_directory(status)) {
    throw UsageError(named +
                     ": is a folder, not a plugin (.so); build a submission folder into a plugin with "
                     "tools/build-submission DIR OUT.so");
  }
}

std::optional<Decision> decide_without_runner(const Setup& setup, const RowResult& row, const PreparedCase& prepared,
                                              bool gpu_missing) {
  const KernelInfo& reference_kernel = *setup.reference.find(row.kernel);
  if (!setup.submission.loaded) return Decision{Verdict::kLoadError, "load_error", setup.submission.error};
  if (const auto refused = prepared.refused.find(reference_kernel.format); refused != prepared.refused.end()) {
    return Decision{Verdict::kNotApplicable, "format_refused", refused->second};
  }
  // The reason is given once, in the run's notes.
  if (gpu_missing) return Decision{Verdict::kSkipped, "no_gpu", ""};
  const KernelInfo* submission_kernel = setup.submission.find(row.kernel);
  if (submission_kernel == nullptr) {
    return Decision{
        Verdict::kNotImplemented, "missing_kernel",
        "the submission has no kernel named " + row.kernel + " (it has: " + setup.submission.kernel_names() + ")"};
  }
  if (submission_kernel->format != reference_kernel.format) {
    return Decision{Verdict::kLoadError, "format_mismatch",
                    "the submission's kernel " + row.kernel + " takes a " + format_name(submission_kernel->format) +
                        " view; it must take a " + format_name(reference_kernel.format) + " view"};
  }
  return std::nullopt;
}

}  // namespace spmv::grade
