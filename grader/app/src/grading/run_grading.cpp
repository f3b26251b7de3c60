// The grading mode: the setup (policy, cases, plugins, kernels, GPU), the
// run's identity and facts, the rows, the optional memcheck pass and the
// reports; with --show-policy and --list, the parts of it they print.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "cases/case_set.hpp"
#include "grading/grading.hpp"
#include "grading/grading_runners.hpp"
#include "grading/memcheck_pass.hpp"
#include "grading/modes.hpp"
#include "grading/resume.hpp"
#include "grading/setup.hpp"
#include "judging/exit_status.hpp"
#include "judging/verdict.hpp"
#include "model/exit_codes.hpp"
#include "model/provenance.hpp"
#include "reports/journal.hpp"
#include "reports/reporter.hpp"
#include "reports/run_identity.hpp"
#include "runners/probe.hpp"

namespace spmv::grade {
namespace {

// Beside the journals; --aggregate reads only *.jsonl files there.
constexpr const char* kGpuProbeCacheFile = "gpu-probe.json";

// --show-policy: the policy, every key resolved, as a policy file ("text")
// or as JSON ("json").
int show_policy(const Policy& policy, const std::string& format) {
  std::cout << (format == "json" ? policy_json(policy) : policy_text(policy)) << std::flush;
  return kExitAllPassed;
}

int list(const Setup& setup) {
  std::cout << "Cases (" << setup.cases.size() << "):\n";
  for (const auto& entry : setup.cases) {
    const auto& c = entry.test_case;
    std::cout << "  " << c.name << "  [" << (c.file.empty() ? c.generator : c.file.string()) << "]  weight " << c.weight
              << ", " << c.visibility << (c.why.empty() ? "" : "  - " + c.why) << '\n';
  }
  std::cout << "Kernels (" << setup.kernels.size() << "):\n";
  for (const auto& kernel : setup.kernels) {
    const KernelInfo* info = setup.reference.find(kernel);
    std::cout << "  " << kernel << "  (" << format_name(info->format) << ", weight "
              << setup.policy.kernel_weight(kernel) << ")"
              << (setup.submission.find(kernel) == nullptr ? "  - not in the submission" : "") << '\n';
  }
  if (!setup.submission.loaded) std::cout << "The submission cannot be loaded: " << setup.submission.error << '\n';
  std::cout << "Policy (" << setup.policy.source
            << ", every key resolved; spmv-grade --show-policy prints it alone):\n";
  std::istringstream text(policy_text(setup.policy, false));
  for (std::string line; std::getline(text, line);) std::cout << (line.empty() ? "" : "  ") << line << '\n';
  return kExitAllPassed;
}

std::vector<RowResult> plan_rows(const Setup& setup, std::uint64_t run_seed, bool secret) {
  std::vector<RowResult> rows;
  for (const auto& entry : setup.cases) {
    for (const auto& kernel : setup.kernels) {
      RowResult row;
      row.kernel = kernel;
      row.format = format_name(setup.reference.find(kernel)->format);
      row.kernel_order = static_cast<int>(setup.policy.kernel_order(kernel));
      row.case_name = entry.test_case.name;
      row.case_order = entry.order;
      row.case_source = entry.source;
      row.case_why = entry.test_case.why;
      row.case_weight = entry.test_case.weight;
      row.visibility = entry.test_case.visibility;
      row.tags = entry.test_case.tags;
      if (!secret) row.x_seed = x_seed(run_seed, entry.test_case.name, 0);
      set_verdict(row, Verdict::kNotRun, "not_run", "the grader stopped before this row");
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// In CTest mode the GPU's copy bandwidth, measured by the first run, is
// kept beside the journals for the others (the folder is emptied before
// each CTest grading).
std::optional<std::filesystem::path> gpu_probe_cache(const std::optional<std::filesystem::path>& journal) {
  if (!journal) return std::nullopt;
  return *journal / kGpuProbeCacheFile;
}

std::uint64_t fresh_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

std::string no_gpu_note(const GpuInfo& gpu, const std::vector<RowResult>& rows, int cases_checked) {
  const auto skipped =
      std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.verdict == Verdict::kSkipped; });
  return "No CUDA GPU found" + (gpu.note.empty() ? std::string() : " (" + gpu.note + ")") + ": " +
         std::to_string(skipped) +
         " rows are reported as skipped; host-side checks ran: " + std::to_string(cases_checked) +
         " cases read, converted and checked.";
}

// The settings that decide a row's verdict or measurement, for the run's
// identity (run_identity.hpp).
std::vector<std::pair<std::string, std::string>> grading_settings(double timeout_s, std::uint64_t format_limit_bytes,
                                                                  const runner::TimingOptions& timing) {
  const auto number = [](double value) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return std::string(text, end);
  };
  return {{"--timeout", number(timeout_s)},
          {"--format-limit-mib", std::to_string(format_limit_bytes >> 20)},
          {"--min-runs", std::to_string(timing.min_runs)},
          {"--max-runs", std::to_string(timing.max_runs)},
          {"--warmup-runs", std::to_string(timing.warmup_runs)},
          {"--min-time-ms", number(timing.min_time_ms)}};
}

// A digest of every input that decides the grade (provenance.hpp): the
// plugins of `setup`, the runner programs of `defaults`, the policy file
// (none: the built-in policy), the cases' matrices and the GPU.
Provenance provenance_of(const Setup& setup, const std::optional<std::filesystem::path>& policy_file,
                         const Defaults& defaults, const GpuInfo& gpu,
                         const std::map<std::string, std::string>& digests) {
  Provenance p;
  p.emplace_back("submission", file_digest(setup.submission.path));
  p.emplace_back("grader", file_digest("/proc/self/exe"));
  p.emplace_back("runner", file_digest(defaults.runner));
  p.emplace_back("reference runner", file_digest(defaults.reference_runner));
  p.emplace_back("reference", file_digest(setup.reference.path));
  p.emplace_back("policy", policy_file ? file_digest(*policy_file)
                                       : "sha256:" + sha256_hex(default_policy_text()) + " (built in)");
  for (const auto& entry : setup.cases)
    p.emplace_back("case " + entry.test_case.name, digests.at(entry.test_case.name));
  if (!gpu.name.empty()) p.emplace_back("gpu", gpu.name);
  if (!gpu.driver.empty()) p.emplace_back("driver", gpu.driver);
  if (!gpu.toolkit.empty()) p.emplace_back("toolkit", gpu.toolkit);
  return p;
}

// `secret_seed`: a secret seed is mixed in, so the seed is not reported.
RunInfo run_info(const Setup& setup, const GpuInfo& gpu, bool needs_gpu, std::uint64_t seed, bool secret_seed) {
  RunInfo info;
  info.submission = setup.submission.path.string();
  info.submission_name = setup.submission.name;
  info.reference = setup.reference.path.string();
  info.device = !needs_gpu ? "CPU (host-memory plugins)" : gpu.count > 0 ? gpu.name : "no CUDA GPU";
  info.copy_gbps = gpu.copy_gbps;
  info.secret_seed = secret_seed;
  if (!info.secret_seed) info.seed = seed;
  return info;
}

}  // namespace

int run_grading(const Options& options, const Defaults& defaults) {
  const auto started = Clock::now();
  const auto seconds_since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  Setup setup;
  setup.policy = read_policy(options.policy);
  if (options.show_policy) {
    // With --cases, the policy's [case.<name>] sections are checked against
    // them (and the folders checked), as a grading would.
    if (options.cases_given) load_case_set(options.cases, options.case_filters, setup.policy);
    return show_policy(setup.policy, *options.show_policy);
  }
  setup.cases = load_case_set(options.cases, options.case_filters, setup.policy);
  const std::string unread = unread_files_note(options.cases, false);
  if (!unread.empty()) std::cerr << "spmv-grade: note: " << unread_files_note(options.cases, true) << '\n';
  // --resume: what made the folder, read before this run writes there.
  const std::optional<JournalRun> earlier =
      options.resume && !options.journal ? earlier_run(options.output_dir) : std::nullopt;
  const auto logs = logs_dir(options.output_dir);
  std::error_code error;
  std::filesystem::create_directories(logs, error);
  if (error) throw SetupError(logs.string() + ": cannot create: " + error.message());
  if (const auto code = already_graded(options.journal, options.kernels, setup.cases, options.strict_gpu)) return *code;
  const sandbox::Level level = isolation_level(options.isolation, options.allow_unisolated);

  // The run's identity (run_identity.hpp); with --resume the folder must
  // have been made by the same, and its seed is kept.
  std::optional<std::uint64_t> earlier_seed = earlier ? identity_seed(earlier->info.identity) : std::nullopt;
  const std::uint64_t seed = options.seed ? *options.seed : earlier_seed ? *earlier_seed : fresh_seed();
  std::map<std::string, std::string> digests;  // read once: --list reads no case file
  IdentityInputs identity_inputs;
  std::string secret_entry;
  if (!options.list) {
    digests = matrix_digests(setup.cases);
    identity_inputs.submission = options.submission;
    identity_inputs.policy_digest = policy_digest(setup.policy);
    identity_inputs.kernels = options.kernels.empty() ? setup.policy.graded_kernels() : options.kernels;
    for (const auto& entry : setup.cases) {
      const TestCase& c = entry.test_case;
      identity_inputs.cases.emplace_back(c.name, case_identity(c, digests.at(c.name)));
    }
    identity_inputs.seed = seed;
    identity_inputs.settings = grading_settings(options.timeout_s, options.format_limit_bytes, options.timing);
    if (earlier) {
      secret_entry = check_resume(options.output_dir, *earlier, run_identity(identity_inputs), options.secret_seed,
                                  options.submission.string(), policy_text(setup.policy));
    }
  }

  const WorkRoot work_root;
  const RunnerSpec common = common_runner_spec(setup.policy, work_root, level, options.timeout_s);
  check_submission_path(options.submission, options.submission_given);
  // The GPU shared with other gradings (--gpu-share): the probes are work on
  // it too (the submission's constructors run in its probe, the GPU's copy
  // bandwidth is measured).
  auto share = options.gpu_share
                   ? std::make_unique<GpuShare>(*options.gpu_share, GpuShare::patience_for(options.timeout_s))
                   : std::make_unique<GpuShare>();
  {
    const GpuShare::Hold probing = share->active();
    probe_plugins(setup, common, defaults, options.submission, options.reference, logs, options.timeout_s);
  }
  // Said even with --quiet: the score alone would look like a student's zero.
  if (!setup.submission.loaded && !options.list) {
    std::cerr << "spmv-grade: the submission " << options.submission.string()
              << " cannot be loaded, so every row is graded \"load error\": " << setup.submission.error << '\n';
  }
  setup.kernels = choose_kernels(options.kernels, setup);
  if (options.list) return list(setup);
  const std::string no_points = no_points_note(setup, !options.case_filters.empty(), !options.kernels.empty());
  if (!no_points.empty()) std::cerr << "spmv-grade: note: " << no_points << '\n';
  const std::string reference_digest = file_digest(setup.reference.path);
  if (earlier) check_resume_reference(options.output_dir, *earlier, reference_digest, setup.reference.path.string());
  if (!earlier) secret_entry = secret_identity(options.secret_seed);
  identity_inputs.reference = setup.reference.path;

  const bool needs_gpu = setup.reference.memory == SPMV_MEMORY_DEVICE;
  const double probes_s = seconds_since(started);
  const auto gpu_probe_started = Clock::now();
  const GpuInfo gpu = [&] {
    const GpuShare::Hold probing = share->active();
    return needs_gpu ? probe_gpu(options.device, std::max(options.timeout_s, kMinimumProbeTimeout),
                                 logs / "probe-gpu.log", gpu_probe_cache(options.journal))
                     : GpuInfo{};
  }();
  const double gpu_probe_s = seconds_since(gpu_probe_started);
  const std::uint64_t run_seed = options.secret_seed ? mix_secret(seed, *options.secret_seed) : seed;

  auto rows = plan_rows(setup, run_seed, options.secret_seed.has_value());
  const auto resumed = options.resume ? std::optional(options.output_dir) : std::nullopt;
  const std::set<std::size_t> done =
      take_finished_rows(finished_row_files(options.journal, resumed, setup.kernels), rows);
  RunInfo info = run_info(setup, gpu, needs_gpu, seed, options.secret_seed.has_value());
  info.provenance = provenance_of(setup, options.policy, defaults, gpu, digests);
  info.policy = policy_text(setup.policy);
  info.identity = run_identity(identity_inputs);
  info.identity.emplace_back("secret seed", secret_entry);
  if (!no_points.empty()) info.notes.push_back(no_points);
  if (!unread.empty()) info.notes.push_back(unread);
  info.isolation = sandbox::level_name(level);
  info.isolation_detail = sandbox::describe_level(level);
  info.unisolated = level < sandbox::Level::kContainer;
  if (info.unisolated) {
    info.notes.push_back("Graded with isolation level '" + info.isolation +
                         "' (--allow-unisolated): the submission was not contained as for marks.");
  }
  // A direct run's facts beside its reports (in CTest mode the reporter
  // writes them beside each kernel's journal): written before the first
  // row, so a folder with rows always says what graded them (--resume).
  const std::string run_id = new_run_id();
  if (!options.journal) write_run_info(run_facts_file(options.output_dir), {run_id, info});
  Reporter reporter({options.output_dir, options.journal, options.quiet}, setup.policy, std::move(info));
  reporter.start(rows);
  GradingRunners runners(common, defaults, setup, options.device, logs, std::move(share));
  const auto rows_started = Clock::now();
  const RowLoopSettings loop{.cache_dir = options.cache_dir,
                             .format_limit_bytes = options.format_limit_bytes,
                             .journal = options.journal,
                             .output_dir = options.output_dir,
                             .device = options.device,
                             .prestart = options.prestart,
                             .timeout_s = options.timeout_s,
                             .timing = options.timing,
                             .cusparse = options.cusparse,
                             .cusparse_cache = options.cusparse_cache};
  const RowsGraded graded = grade_rows(loop, setup, reporter, gpu, needs_gpu, runners, rows, run_seed, done);
  runners.settle();
  if (options.memcheck && needs_gpu && gpu.count > 0) {
    memcheck_pass(setup, {options.cache_dir, options.format_limit_bytes, run_seed}, logs, options.timeout_s, runners,
                  reporter, rows);
  }
  const double rows_s = seconds_since(rows_started);
  if (!runners.ready_message().empty()) {
    reporter.info().notes.push_back("Runners started as: " + runners.ready_message() + ".");
  }
  if (graded.gpu_missing) reporter.info().notes.push_back(no_gpu_note(gpu, rows, graded.cases_checked_on_host));
  reporter.finish(rows);
  if (options.journal) return journal_exit_code(rows, options.strict_gpu);
  write_run_info(run_facts_file(options.output_dir), {run_id, reporter.info()});
  if (!options.quiet) {
    std::printf(
        "Time: %.1f s (cases read and plugins probed %.1f s, GPU measured %.1f s, rows %.1f s, of which "
        "waiting for cases %.1f s)\n",
        seconds_since(started), probes_s, gpu_probe_s, rows_s, graded.case_wait_s);
  }
  return exit_code_of(rows, options.strict_gpu);
}

}  // namespace spmv::grade
