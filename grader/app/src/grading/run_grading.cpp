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
#include "spmv/cli/command_line.hpp"

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

// What is measured once a GPU is kept in --gpu-cache's folder; a device
// grading's default is the cache folder's "gpu" (--cache-dir), so that a
// student's next grading on the same GPU finds it too. Not in CTest mode,
// whose gradings are a kernel's each (no two share a row's window).
std::optional<std::filesystem::path> gpu_cache_of(const Options& o, bool needs_gpu) {
  if (o.gpu_cache) return o.gpu_cache;
  if (!needs_gpu || o.journal || o.cache_dir.empty()) return std::nullopt;
  return o.cache_dir / "gpu";
}

// The GPU's copy bandwidth, measured by the first grading, is kept for the
// others in the GPU's cache folder, and in CTest mode beside the journals
// (the folder is emptied before each CTest grading).
std::optional<std::filesystem::path> gpu_probe_cache(const Options& o, bool needs_gpu) {
  if (const auto folder = gpu_cache_of(o, needs_gpu)) return *folder / kGpuProbeCacheFile;
  if (o.journal) return *o.journal / kGpuProbeCacheFile;
  return std::nullopt;
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

// The grader's own program, for its digest.
const std::filesystem::path kThisProgram = "/proc/self/exe";

// A digest of every input that decides the grade (provenance.hpp): the
// plugins of `setup`, the runner programs of `defaults`, the policy file
// (none: the built-in policy), the cases' matrices and the GPU.
Provenance provenance_of(const Setup& setup, const std::optional<std::filesystem::path>& policy_file,
                         const Defaults& defaults, const GpuInfo& gpu,
                         const std::map<std::string, std::string>& digests, FileDigests& files) {
  Provenance p;
  p.emplace_back("submission", files.get(setup.submission.path));
  p.emplace_back("grader", files.get(kThisProgram));
  p.emplace_back("runner", files.get(defaults.runner));
  p.emplace_back("reference runner", files.get(defaults.reference_runner));
  p.emplace_back("reference", files.get(setup.reference.path));
  p.emplace_back("policy",
                 policy_file ? files.get(*policy_file) : "sha256:" + sha256_hex(default_policy_text()) + " (built in)");
  for (const auto& entry : setup.cases)
    p.emplace_back("case " + entry.test_case.name, digests.at(entry.test_case.name));
  if (!gpu.name.empty()) p.emplace_back("gpu", gpu.name);
  if (!gpu.driver.empty()) p.emplace_back("driver", gpu.driver);
  if (!gpu.toolkit.empty()) p.emplace_back("toolkit", gpu.toolkit);
  return p;
}

// The command that grades one row again as `o` did (the kernel's summary
// appends `--kernel K --case C`), into a folder of its own below the
// output folder; none with a secret seed, whose rows cannot be graded
// again from a report.
std::string regrade_command(const Options& o, std::uint64_t seed) {
  if (o.secret_seed) return {};
  const auto path = [](const std::filesystem::path& p) { return shell_word(std::filesystem::absolute(p).string()); };
  std::string command = path(spmv::cli::this_executable("spmv-grade"));
  if (o.submission_given) command += " --submission " + path(o.submission);
  if (o.reference) command += " --reference " + path(*o.reference);
  if (o.cases_given) {
    for (const auto& folder : o.cases) command += " --cases " + path(folder);
  }
  if (o.policy) command += " --policy " + path(*o.policy);
  if (o.isolation) command += " --isolation " + shell_word(*o.isolation);
  if (o.allow_unisolated) command += " --allow-unisolated";
  const Options defaults;
  const auto number = [](double value) {
    std::ostringstream text;
    text << value;
    return text.str();
  };
  if (o.timeout_s != defaults.timeout_s) command += " --timeout " + number(o.timeout_s);
  if (o.timing.min_runs != defaults.timing.min_runs) command += " --min-runs " + std::to_string(o.timing.min_runs);
  if (o.timing.max_runs != defaults.timing.max_runs) command += " --max-runs " + std::to_string(o.timing.max_runs);
  if (o.timing.warmup_runs != defaults.timing.warmup_runs)
    command += " --warmup-runs " + std::to_string(o.timing.warmup_runs);
  if (o.timing.min_time_ms != defaults.timing.min_time_ms) command += " --min-time-ms " + number(o.timing.min_time_ms);
  if (o.device != defaults.device) command += " --device " + std::to_string(o.device);
  return command + " --seed " + std::to_string(seed) + " --output-dir " + path(o.output_dir / "again");
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

// A grading, step by step (run_grading below reads them in order). Each
// step's locals are fields, declared in the order the steps make them, so
// that they end in the reverse order, as the locals of one function did.
class GradingRun {
 public:
  GradingRun(const Options& options, const Defaults& defaults) : options_(options), defaults_(defaults) {}

  // The policy, then the cases (--show-policy stops after the policy), the
  // output folder, and in CTest mode whether the rows are graded already.
  std::optional<int> read_policy_and_cases() {
    setup_.policy = read_policy(options_.policy);
    if (options_.show_policy) {
      // With --cases, the policy's [case.<name>] sections are checked against
      // them (and the folders checked), as a grading would.
      if (options_.cases_given) load_case_set(options_.cases, options_.case_filters, setup_.policy);
      return show_policy(setup_.policy, *options_.show_policy);
    }
    setup_.cases = load_case_set(options_.cases, options_.case_filters, setup_.policy);
    const UnreadNotes unread = unread_files_notes(options_.cases);
    unread_ = unread.report;
    if (!unread_.empty()) std::cerr << "spmv-grade: note: " << unread.console << '\n';
    // --resume: what made the folder, read before this run writes there.
    earlier_ = options_.resume && !options_.journal ? earlier_run(options_.output_dir) : std::nullopt;
    logs_ = logs_dir(options_.output_dir);
    std::error_code error;
    std::filesystem::create_directories(logs_, error);
    if (error) throw SetupError(logs_.string() + ": cannot create: " + error.message());
    if (const auto code = already_graded(options_.journal, options_.kernels, setup_.cases, options_.strict_gpu)) {
      return *code;
    }
    level_ = isolation_level(options_.isolation, options_.allow_unisolated);
    return std::nullopt;
  }

  // The run's identity (run_identity.hpp); with --resume the folder must
  // have been made by the same, and its seed is kept.
  void identify() {
    const std::optional<std::uint64_t> earlier_seed = earlier_ ? identity_seed(earlier_->info.identity) : std::nullopt;
    seed_ = options_.seed ? *options_.seed : earlier_seed ? *earlier_seed : fresh_seed();
    if (options_.list) return;  // --list reads no case file
    // The programs' digests, for the reports and the reference's kept
    // windows, hashed on other cores meanwhile (the reference's as the
    // grader will find it, unless the submission turns out to be a host one).
    for (const auto& file : {kThisProgram, defaults_.runner, defaults_.reference_runner, options_.submission,
                             options_.reference.value_or(defaults_.reference_plugin)}) {
      file_digests_.start(file);
    }
    digests_ = matrix_digests(setup_.cases);
    identity_inputs_.submission = options_.submission;
    identity_inputs_.policy_digest = policy_digest(setup_.policy);
    identity_inputs_.kernels = options_.kernels.empty() ? setup_.policy.graded_kernels() : options_.kernels;
    for (const auto& entry : setup_.cases) {
      const TestCase& c = entry.test_case;
      identity_inputs_.cases.emplace_back(c.name, case_identity(c, digests_.at(c.name)));
    }
    identity_inputs_.seed = seed_;
    identity_inputs_.settings = grading_settings(options_.timeout_s, options_.format_limit_bytes, options_.timing);
    if (earlier_) {
      secret_entry_ = check_resume(options_.output_dir, *earlier_, run_identity(identity_inputs_), options_.secret_seed,
                                   options_.submission.string(), policy_text(setup_.policy));
    }
  }

  // The runners' common settings, the GPU's share, and the plugins' tables
  // probed in runners; the kernels chosen (--list stops here).
  std::optional<int> probe_plugins() {
    work_root_.emplace();
    common_ = common_runner_spec(setup_.policy, *work_root_, level_, options_.timeout_s);
    check_submission_path(options_.submission, options_.submission_given);
    // The GPU shared with other gradings (--gpu-share): the probes are work on
    // it too (the submission's constructors run in its probe, the GPU's copy
    // bandwidth is measured).
    share_ = options_.gpu_share
                 ? std::make_unique<GpuShare>(*options_.gpu_share, GpuShare::patience_for(options_.timeout_s))
                 : std::make_unique<GpuShare>();
    {
      const GpuShare::Hold probing = share_->active();
      grade::probe_plugins(setup_, common_, defaults_, options_.submission, options_.reference, logs_,
                           options_.timeout_s);
    }
    // Said even with --quiet: the score alone would look like a student's zero.
    if (!setup_.submission.loaded && !options_.list) {
      std::cerr << "spmv-grade: the submission " << options_.submission.string()
                << " cannot be loaded, so every row is graded \"load error\": " << setup_.submission.error << '\n';
    }
    setup_.kernels = choose_kernels(options_.kernels, setup_);
    if (options_.list) return list(setup_);
    return std::nullopt;
  }

  // What the selection scores, the reference checked against --resume's,
  // and the secret seed's check value.
  void check_reference() {
    no_points_ = no_points_note(setup_, !options_.case_filters.empty(), !options_.kernels.empty());
    if (!no_points_.empty()) std::cerr << "spmv-grade: note: " << no_points_ << '\n';
    const std::string reference_digest = file_digests_.get(setup_.reference.path);
    if (earlier_) {
      check_resume_reference(options_.output_dir, *earlier_, reference_digest, setup_.reference.path.string());
    }
    if (!earlier_) secret_entry_ = secret_identity(options_.secret_seed);
    identity_inputs_.reference = setup_.reference.path;
  }

  // The rows planned (those finished already kept: --resume, journals) and
  // their cases begun on other cores, then the GPU and its copy bandwidth
  // (device plugins only): its probe, a CUDA context of its own, takes as
  // long as a large case's preparation.
  void plan_rows_and_probe_gpu() {
    needs_gpu_ = setup_.reference.memory == SPMV_MEMORY_DEVICE;
    probes_s_ = seconds_since(started_);
    run_seed_ = options_.secret_seed ? mix_secret(seed_, *options_.secret_seed) : seed_;
    rows_ = grade::plan_rows(setup_, run_seed_, options_.secret_seed.has_value());
    const auto resumed = options_.resume ? std::optional(options_.output_dir) : std::nullopt;
    done_ = take_finished_rows(finished_row_files(options_.journal, resumed, setup_.kernels), rows_);
    cases_.emplace(setup_, PrepareOptions{options_.cache_dir, options_.format_limit_bytes, run_seed_}, rows_, done_,
                   needs_gpu_);
    cases_->ahead(0);
    const auto gpu_probe_started = Clock::now();
    gpu_ = [&] {
      const GpuShare::Hold probing = share_->active();
      return needs_gpu_ ? grade::probe_gpu(options_.device, std::max(options_.timeout_s, kMinimumProbeTimeout),
                                           logs_ / "probe-gpu.log", gpu_probe_cache(options_, needs_gpu_))
                        : GpuInfo{};
    }();
    gpu_probe_s_ = seconds_since(gpu_probe_started);
  }

  // The run's facts written and the reports begun.
  void begin_reports() {
    RunInfo info = run_info(setup_, gpu_, needs_gpu_, seed_, options_.secret_seed.has_value());
    info.provenance = provenance_of(setup_, options_.policy, defaults_, gpu_, digests_, file_digests_);
    info.policy = policy_text(setup_.policy);
    info.identity = run_identity(identity_inputs_);
    info.identity.emplace_back("secret seed", secret_entry_);
    info.regrade_command = regrade_command(options_, seed_);
    if (!no_points_.empty()) info.notes.push_back(no_points_);
    if (!unread_.empty()) info.notes.push_back(unread_);
    info.isolation = sandbox::level_name(level_);
    info.isolation_detail = sandbox::describe_level(level_);
    info.unisolated = level_ < sandbox::Level::kContainer;
    if (info.unisolated) {
      info.notes.push_back("Graded with isolation level '" + info.isolation +
                           "' (--allow-unisolated): the submission was not contained as for marks.");
    }
    // A direct run's facts beside its reports (in CTest mode the reporter
    // writes them beside each kernel's journal): written before the first
    // row, so a folder with rows always says what graded them (--resume).
    run_id_ = new_run_id();
    if (!options_.journal) write_run_info(run_facts_file(options_.output_dir), {run_id_, info});
    reporter_.emplace(Reporter::Settings{options_.output_dir, options_.journal, options_.quiet}, setup_.policy,
                      std::move(info));
    reporter_->start(rows_);
  }

  // The reference's windows kept in the GPU's cache folder for the gradings
  // on the same GPU, under a key of what decides them (reference_memo.hpp).
  void keep_reference_windows() {
    const auto folder = gpu_cache_of(options_, needs_gpu_);
    if (!folder || (needs_gpu_ && gpu_.key.empty())) return;
    const runner::TimingOptions& t = options_.timing;
    std::ostringstream key;
    key << "gpu=" << (needs_gpu_ ? gpu_.key : std::string("host"))
        << "\nreference=" << file_digests_.get(setup_.reference.path)
        << "\nreference runner=" << file_digests_.get(defaults_.reference_runner) << "\nmin_runs=" << t.min_runs
        << "\nmax_runs=" << t.max_runs << "\nwarmup_runs=" << t.warmup_runs << "\nmin_time_ms=" << t.min_time_ms
        << "\nmin_reference_us=" << setup_.policy.min_reference_us << '\n';
    memo_.emplace(*folder, key.str(),
                  std::map<std::string, std::string>(identity_inputs_.cases.begin(), identity_inputs_.cases.end()));
  }

  // The rows graded, in the runners of the grading, and the --memcheck pass.
  void grade_rows() {
    keep_reference_windows();
    runners_.emplace(common_, defaults_, setup_, options_.device, logs_, std::move(share_));
    const auto rows_started = Clock::now();
    const RowLoopSettings loop{.journal = options_.journal,
                               .output_dir = options_.output_dir,
                               .device = options_.device,
                               .prestart = options_.prestart,
                               .timeout_s = options_.timeout_s,
                               .timing = options_.timing,
                               .cusparse = options_.cusparse,
                               .cusparse_cache = options_.cusparse_cache,
                               .memo = memo_ ? &*memo_ : nullptr};
    graded_ = grade::grade_rows(loop, setup_, *cases_, *reporter_, gpu_, needs_gpu_, *runners_, rows_);
    runners_->settle();
    if (options_.memcheck && needs_gpu_ && gpu_.count > 0) {
      memcheck_pass(setup_, {options_.cache_dir, options_.format_limit_bytes, run_seed_}, logs_, options_.timeout_s,
                    *runners_, *reporter_, rows_);
    }
    runners_->end_reference();
    rows_s_ = seconds_since(rows_started);
  }

  // The reports finished, the run's facts, the time it took; the exit status.
  int report() {
    if (!runners_->ready_message().empty()) {
      reporter_->info().notes.push_back("Runners started as: " + runners_->ready_message() + ".");
    }
    if (graded_.gpu_missing) {
      reporter_->info().notes.push_back(no_gpu_note(gpu_, rows_, graded_.cases_checked_on_host));
    }
    reporter_->finish(rows_);
    if (options_.journal) return journal_exit_code(rows_, options_.strict_gpu);
    write_run_info(run_facts_file(options_.output_dir), {run_id_, reporter_->info()});
    if (!options_.quiet) {
      std::printf(
          "Time: %.1f s (cases read and plugins probed %.1f s, GPU measured %.1f s, rows %.1f s: waiting for cases "
          "%.1f s, checks %.1f s, the reference's windows %.1f s (%.1f s of it waiting for runners to end), timing "
          "runners %.1f s, "
          "graded again alone %.1f s)\n",
          seconds_since(started_), probes_s_, gpu_probe_s_, rows_s_, graded_.case_wait_s, graded_.checking_s,
          graded_.reference_s, graded_.settle_s, graded_.timing_s, graded_.alone_s);
    }
    return exit_code_of(rows_, options_.strict_gpu);
  }

 private:
  static double seconds_since(Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  }

  const Options& options_;
  const Defaults& defaults_;
  const Clock::time_point started_ = Clock::now();
  FileDigests file_digests_;
  Setup setup_;
  std::string unread_;
  std::optional<JournalRun> earlier_;
  std::filesystem::path logs_;
  sandbox::Level level_{};
  std::uint64_t seed_ = 0;
  std::map<std::string, std::string> digests_;  // read once: --list reads no case file
  IdentityInputs identity_inputs_;
  std::string secret_entry_;
  std::optional<WorkRoot> work_root_;
  RunnerSpec common_;
  std::unique_ptr<GpuShare> share_;
  std::string no_points_;
  bool needs_gpu_ = false;
  double probes_s_ = 0, gpu_probe_s_ = 0, rows_s_ = 0;
  GpuInfo gpu_;
  std::uint64_t run_seed_ = 0;
  std::vector<RowResult> rows_;
  std::set<std::size_t> done_;
  std::optional<CasePreparation> cases_;  // after rows_, which it reads
  std::string run_id_;
  std::optional<Reporter> reporter_;
  std::optional<ReferenceMemo> memo_;
  std::optional<GradingRunners> runners_;
  RowsGraded graded_;
};

}  // namespace

// The grading mode, as a table of its steps.
int run_grading(const Options& options, const Defaults& defaults) {
  GradingRun run(options, defaults);
  if (const auto code = run.read_policy_and_cases()) return *code;  // --show-policy; CTest: graded already
  run.identify();
  if (const auto code = run.probe_plugins()) return *code;  // --list
  run.check_reference();
  run.plan_rows_and_probe_gpu();
  run.begin_reports();
  run.grade_rows();
  return run.report();
}

}  // namespace spmv::grade
