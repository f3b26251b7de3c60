#include "grader.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <deque>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "cases/case_data.hpp"
#include "cli/exit_codes.hpp"
#include "reports/journal.hpp"
#include "reports/json.hpp"
#include "runners/memcheck.hpp"
#include "scoring/policy.hpp"
#include "runners/probe.hpp"
#include "runners/process.hpp"
#include "reports/provenance.hpp"
#include "rows/row_grading.hpp"
#include "runners/runner_client.hpp"
#include "spmv/sandbox/sandbox.hpp"
#include "reports/reporter.hpp"
#include "spmv/core/atomic_file.hpp"
#include "reports/row_json.hpp"
#include "reports/run_identity.hpp"
#include "spmv/plugin/plugin.hpp"
#include "rows/verdict.hpp"

namespace spmv::grade {
namespace {

// Loading a plugin or starting CUDA takes well under this; the row timeout
// may be set much shorter for tests of hanging kernels.
constexpr double kMinimumProbeTimeout = 60;

// Beside the journals; --aggregate reads only *.jsonl files there.
constexpr const char* kGpuProbeCacheFile = "gpu-probe.json";

struct CaseEntry {
  TestCase test_case;
  int order = 0;
  std::string source;
};

struct Setup {
  Policy policy;
  PluginInfo submission;
  PluginInfo reference;
  std::vector<std::string> kernels;
  std::vector<CaseEntry> cases;
};

Policy policy_of(const Options& options) {
  try {
    return options.policy ? load_policy(*options.policy) : default_policy();
  } catch (const PolicyError& e) {
    throw UsageError(std::string("--policy: ") + e.what());
  }
}

std::filesystem::path logs_dir(const Options& options) { return options.output_dir / "logs"; }

std::string file_name_part(const std::string& text) {
  std::string name = text;
  for (char& c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                       c == '.';
    if (!plain) c = '_';
  }
  return name;
}

// What a runner may use: memory (RLIMIT_DATA; the driver's address-space
// reservations are not data), processes and threads of its uid, open files,
// CPU time and file size (its folder only).
sandbox::Limits runner_limits(const Options& options) {
  sandbox::Limits limits;
  limits.data_bytes = std::uint64_t{64} << 30;
  limits.processes = 256;
  limits.open_files = 4096;
  limits.cpu_seconds = static_cast<std::uint64_t>(4 * std::max(options.timeout_s, kMinimumProbeTimeout)) + 60;
  limits.file_bytes = std::uint64_t{256} << 20;
  return limits;
}

// CUDA_VISIBLE_DEVICES for a runner: only the GPU graded on. Indices are
// those of the grader's own view (its CUDA_VISIBLE_DEVICES, if set).
std::string visible_device(int device) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') return std::to_string(device);
  std::vector<std::string> entries(1);
  for (const char* c = visible; *c != '\0'; ++c) {
    if (*c == ',') {
      entries.emplace_back();
    } else {
      entries.back() += *c;
    }
  }
  return device < static_cast<int>(entries.size()) ? entries[static_cast<std::size_t>(device)] : "-1";
}

RunnerSpec runner_spec(const Options& options, const Policy& policy, const WorkRoot& work_root,
                      sandbox::Level level, const std::filesystem::path& executable,
                      const std::filesystem::path& plugin, const std::filesystem::path& log) {
  RunnerSpec spec;
  spec.forbidden_libraries = policy.forbidden_libraries;
  spec.executable = executable;
  spec.plugin = plugin;
  spec.level = level;
  spec.work_root = work_root.path();
  spec.log_file = log;
  spec.limits = runner_limits(options);
  return spec;
}

void probe_plugins(const Options& options, const Defaults& defaults, Setup& setup, const WorkRoot& work_root,
                   sandbox::Level level) {
  check_submission_path(options);
  const double timeout = std::max(options.timeout_s, kMinimumProbeTimeout);
  setup.submission = probe_plugin(runner_spec(options, setup.policy, work_root, level, defaults.runner, options.submission,
                                              logs_dir(options) / "probe-submission.log"),
                                  timeout);
  const bool host_submission = setup.submission.loaded && setup.submission.memory == SPMV_MEMORY_HOST;
  const auto reference_path =
      options.reference.value_or(host_submission ? defaults.host_reference_plugin : defaults.reference_plugin);
  setup.reference = probe_plugin(
      runner_spec(options, setup.policy, work_root, level, defaults.reference_runner, reference_path,
                  logs_dir(options) / "probe-reference.log"),
      timeout);
  if (!setup.reference.loaded) throw SetupError("the reference plugin cannot be used: " + setup.reference.error);
  if (setup.submission.loaded && setup.submission.memory != setup.reference.memory) {
    const auto where = [](spmv_memory_space space) { return space == SPMV_MEMORY_HOST ? "host" : "device"; };
    throw SetupError("the submission " + options.submission.string() + " works in " + where(setup.submission.memory) +
                     " memory but the reference " + reference_path.string() + " in " +
                     where(setup.reference.memory) + " memory; pass a --reference of the same kind");
  }
  // Said even with --quiet: the score alone would look like a student's zero.
  if (!setup.submission.loaded && !options.list) {
    std::cerr << "spmv-grade: the submission " << options.submission.string()
              << " cannot be loaded, so every row is graded \"load error\": " << setup.submission.error << '\n';
  }
}

std::vector<std::string> choose_kernels(const Options& options, const Setup& setup) {
  // A kernel the policy lists is a mistake of the policy file, named there.
  for (const auto& [kernel, weight] : setup.policy.kernel_weights) {
    if (setup.reference.find(kernel) == nullptr) {
      throw UsageError("--policy: " + setup.policy.locate("kernels." + kernel) + ": the reference " +
                       setup.reference.path.string() + " has no kernel named " + kernel + " (it has: " +
                       setup.reference.kernel_names() + ")");
    }
  }
  std::vector<std::string> kernels = options.kernels;
  if (kernels.empty()) kernels = setup.policy.graded_kernels();
  for (const auto& kernel : kernels) {
    if (setup.reference.find(kernel) == nullptr) {
      throw UsageError("--kernel " + kernel + ": the reference " + setup.reference.path.string() +
                       " has no such kernel (it has: " + setup.reference.kernel_names() + ")");
    }
  }
  return kernels;
}

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
    where += (where.empty() ? "" : ", ") + c.name + " (" +
             (by_policy ? policy.locate("case." + c.name + ".weight") : c.origin + ": weight " + std::to_string(c.weight)) +
             ")";
  }
  if (all.size() > 4) where += ", ...";
  throw UsageError("every case of " + sources + " weighs 0 under the policy (" + policy.source +
                   ") and the manifests, so no row could earn a point and every score would read 0 / 0: " + where);
}

std::vector<CaseEntry> load_all_cases(const Options& options) {
  std::vector<CaseEntry> entries;
  std::map<std::string, std::string> source_of;
  std::string all_names;
  std::vector<TestCase> all;
  for (const auto& source : options.cases) {
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
      if (matches_any(name, options.case_filters)) entries.push_back({cases[i], static_cast<int>(i), source.string()});
    }
  }
  if (entries.empty() && !options.case_filters.empty()) {
    throw UsageError("--case: no case matches (cases: " + (all_names.empty() ? "none" : all_names) + ")");
  }
  // A [case.<name>] section of the policy must name one of these cases.
  std::vector<std::string> names;
  std::string sources;
  for (const auto& [name, source] : source_of) names.push_back(name);
  for (const auto& source : options.cases) sources += (sources.empty() ? "--cases " : ", ") + source.string();
  const Policy policy = policy_of(options);
  try {
    policy.check_case_names(names, sources);
  } catch (const PolicyError& e) {
    throw UsageError(std::string("--policy: ") + e.what());
  }
  check_case_weights(policy, all, sources);
  return entries;
}

// Files of the case folders that look like matrices but are no case (a
// matrix named .MTX or .mtx.bz2): graded without them, and said.
std::string unread_files_note(const Options& options) {
  std::string files;
  for (const auto& source : options.cases) {
    for (const auto& file : unread_matrix_files(source)) files += (files.empty() ? "" : ", ") + file.string();
  }
  if (files.empty()) return {};
  return "Files that look like matrices but are no case were not graded (only .mtx and .mtx.gz files, and the "
         "cases.ini sections, are cases): " + files + ".";
}

// A selection (--kernel, --case) whose rows carry no points is allowed (a
// kernel of weight 0 named with --kernel, a case of weight 0 looked at
// alone), but said, on stderr and in the report: the score will read 0 / 0.
std::string no_points_note(const Options& options, const Setup& setup) {
  double kernel_weights = 0;
  for (const auto& kernel : setup.kernels) kernel_weights += setup.policy.kernel_weight(kernel);
  double case_weights = 0;
  for (const auto& entry : setup.cases) case_weights += setup.policy.case_weight(entry.test_case.name, entry.test_case.weight);
  if (kernel_weights > 0 && case_weights > 0) return {};
  std::string why = kernel_weights > 0 ? "every case it grades" : "every kernel it grades";
  why += kernel_weights > 0 ? (options.case_filters.empty() ? "" : " (--case)") : (options.kernels.empty() ? "" : " (--kernel)");
  return "The rows of this run carry no points: " + why + " has weight 0 in the policy (" + setup.policy.source +
         ") or its manifest, so its score reads 0 / 0 whatever the verdicts.";
}

int show_policy(const Options& options, const Policy& policy) {
  // With --cases, the policy's [case.<name>] sections are checked against
  // them (and the folders checked), as a grading would.
  if (options.cases_given) load_all_cases(options);
  std::cout << (*options.show_policy == "json" ? policy_json(policy) : policy_text(policy)) << std::flush;
  return kExitAllPassed;
}

int list(const Setup& setup) {
  std::cout << "Cases (" << setup.cases.size() << "):\n";
  for (const auto& entry : setup.cases) {
    const auto& c = entry.test_case;
    std::cout << "  " << c.name << "  [" << (c.file.empty() ? c.generator : c.file.string()) << "]  weight "
              << c.weight << ", " << c.visibility << (c.why.empty() ? "" : "  - " + c.why) << '\n';
  }
  std::cout << "Kernels (" << setup.kernels.size() << "):\n";
  for (const auto& kernel : setup.kernels) {
    const KernelInfo* info = setup.reference.find(kernel);
    std::cout << "  " << kernel << "  (" << format_name(info->format) << ", weight "
              << setup.policy.kernel_weight(kernel) << ")"
              << (setup.submission.find(kernel) == nullptr ? "  - not in the submission" : "") << '\n';
  }
  if (!setup.submission.loaded) std::cout << "The submission cannot be loaded: " << setup.submission.error << '\n';
  std::cout << "Policy (" << setup.policy.source << ", every key resolved; spmv-grade --show-policy prints it alone):\n";
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

// A case's data for its rows: read and converted once, or why it could not be.
struct CaseState {
  std::optional<PreparedCase> prepared;
  std::string error;  // the PrepareError's message
};

// The runners of a grading: a fresh submission runner per row, one
// reference runner for the whole grading (restarted if it fails), all in
// sandboxes of the chosen isolation level, in folders under one private
// work folder.
class GradingRunners final : public RunnerFactory {
 public:
  GradingRunners(const Options& options, const Defaults& defaults, const Setup& setup, sandbox::Level level,
                 const WorkRoot& work_root)
      : options_(options), defaults_(defaults), setup_(setup), level_(level), work_root_(work_root) {}

  std::unique_ptr<Runner> submission(const std::filesystem::path& log) override {
    return std::make_unique<Runner>(spec(defaults_.runner, setup_.submission.path, log));
  }

  // A submission runner's spec (for the --memcheck pass).
  [[nodiscard]] RunnerSpec submission_spec(const std::filesystem::path& log) const {
    return spec(defaults_.runner, setup_.submission.path, log);
  }

  std::future<std::unique_ptr<Runner>> start_submission(const std::filesystem::path& log) override {
    return launcher_.start([this, log] {
      std::unique_ptr<Runner> runner = submission(log);
      runner::Request hello;
      hello.command = runner::Command::kHello;
      runner->send(hello);
      return runner;
    });
  }

  // Starts the reference runner on the launcher, unless it is started
  // already: its start-up (a CUDA context) then overlaps the grader's own.
  void start_reference() {
    if (reference_ || reference_starting_.valid()) return;
    reference_starting_ = launcher_.start([this] {
      auto runner = std::make_unique<Runner>(
          spec(defaults_.reference_runner, setup_.reference.path, logs_dir(options_) / "reference-runner.log"));
      runner::Request hello;
      hello.command = runner::Command::kHello;
      runner->send(hello);
      return runner;
    });
  }

  Runner& reference() override {
    if (!reference_) {
      start_reference();
      reference_ = reference_starting_.get();
      const auto deadline = Clock::now() + std::chrono::seconds(static_cast<int>(kMinimumProbeTimeout));
      const auto ready = reference_->receive(deadline);
      runner::Request load;
      load.command = runner::Command::kLoad;
      if (ready && ready->kind == runner::ReplyKind::kOk) ready_message_ = runner::read_text(ready->message);
      const auto loaded = ready && ready->kind == runner::ReplyKind::kOk ? reference_->call(load, deadline) : ready;
      if (!loaded || loaded->kind != runner::ReplyKind::kOk) {
        const std::string why = loaded ? runner::read_text(loaded->message) : "it ended or did not answer";
        throw SetupError("the reference runner did not start: " + why + " (see " +
                         (logs_dir(options_) / "reference-runner.log").string() + ")");
      }
    }
    return *reference_;
  }

  void restart_reference() override { reference_.reset(); }

  // What the reference runner said when it was ready: the restrictions it
  // put itself under, as every runner of the grading does.
  [[nodiscard]] const std::string& ready_message() const { return ready_message_; }

  void retire(std::unique_ptr<Runner> runner) override {
    retiring_.push_back(std::async(std::launch::async, [runner = std::move(runner)]() mutable {
      runner->end();
      runner.reset();
    }));
  }

  void settle() override {
    for (auto& ending : retiring_) ending.get();
    retiring_.clear();
  }

  GradingRunners(const GradingRunners&) = delete;
  GradingRunners& operator=(const GradingRunners&) = delete;
  ~GradingRunners() override { settle(); }

 private:
  RunnerSpec spec(const std::filesystem::path& executable, const std::filesystem::path& plugin,
                  const std::filesystem::path& log) const {
    RunnerSpec spec = runner_spec(options_, setup_.policy, work_root_, level_, executable, plugin, log);
    spec.space = setup_.reference.memory == SPMV_MEMORY_HOST ? "host" : "device";
    if (spec.space == "device") spec.visible_devices = visible_device(options_.device);
    return spec;
  }

  // Declared first, so ended last: its thread outlives every runner it started.
  Launcher launcher_;
  const Options& options_;
  const Defaults& defaults_;
  const Setup& setup_;
  sandbox::Level level_;
  const WorkRoot& work_root_;
  std::unique_ptr<Runner> reference_;
  std::future<std::unique_ptr<Runner>> reference_starting_;
  std::string ready_message_;
  std::vector<std::future<void>> retiring_;
};

// A row's runner, started ahead of the row's turn (--prestart) or at it.
struct StartedRow {
  std::size_t index = 0;  // into the rows
  PendingRunner runner;
};

// A row's verdict when it needs no runner.
struct Decision {
  Verdict verdict;
  std::string cause;
  std::string why;
};

// In CTest mode a case's rows may be graded by several runs (one per GPU,
// and a kernel's own run for rows left over): cuSPARSE's time on a case,
// measured by the first, is kept beside the journals for the others
// (context only: it earns nothing).
std::optional<std::filesystem::path> cusparse_cache(const Options& options, const std::string& case_name) {
  if (!options.journal) return std::nullopt;
  return *options.journal / (file_name_part(case_name) + ".cusparse-ms");
}

// Cases prepared by other threads while one is graded (GPU gradings only).
constexpr std::size_t kCasesPreparedAhead = 2;

// Grades the rows in order, one submission runner at a time. With
// --prestart N, the runners of up to N following rows are started while a
// row runs: each creates its CUDA context and waits; none loads the
// submission's plugin before its turn, so no submission code runs ahead.
// Runners never used (the grader stopped early) are killed when the
// Grading goes.
class Grading {
 public:
  Grading(const Options& options, Setup& setup, Reporter& reporter, GpuInfo gpu, bool needs_gpu,
          GradingRunners& runners)
      : options_(options), setup_(setup), reporter_(reporter), gpu_(std::move(gpu)), needs_gpu_(needs_gpu),
        runners_(runners) {}

  void run(std::vector<RowResult>& rows, std::uint64_t run_seed, const std::set<std::size_t>& done) {
    prepare_ = {options_.cache_dir, options_.format_limit_bytes, run_seed};
    for (std::size_t c = 0; c < setup_.cases.size(); ++c) {
      std::vector<std::size_t> indices;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].case_name == setup_.cases[c].test_case.name && done.count(i) == 0) indices.push_back(i);
      }
      for (const auto i : indices) order_.push_back({i, c});
      case_rows_.push_back(std::move(indices));
    }
    start_first_runners(rows);
    for (std::size_t c = 0; c < setup_.cases.size(); ++c) {
      if (!case_rows_[c].empty()) grade_case(rows, c);
    }
  }

  [[nodiscard]] int cases_checked_on_host() const { return cases_checked_on_host_; }
  // Seconds the grading waited for cases to be prepared.
  [[nodiscard]] double case_wait_s() const { return case_wait_s_; }
  [[nodiscard]] bool gpu_missing() const { return needs_gpu_ && gpu_.count == 0; }

 private:
  struct Turn {
    std::size_t row;
    std::size_t case_index;
  };

  std::set<spmv_format> formats_of(const std::vector<RowResult>& rows, const std::vector<std::size_t>& indices) const {
    std::set<spmv_format> formats;
    for (const auto i : indices) formats.insert(setup_.reference.find(rows[i].kernel)->format);
    return formats;
  }

  CaseState prepare_state(std::size_t c, const std::set<spmv_format>& formats) const {
    CaseState state;
    try {
      state.prepared = prepare_case(setup_.cases[c].test_case, formats, prepare_);
    } catch (const PrepareError& e) {
      state.error = e.what();
    }
    return state;
  }

  // The case prepared on first use, at its turn or earlier to start the
  // runner of one of its rows ahead; or by a thread of its own, started when
  // the case two before it began (prepare_ahead).
  CaseState& case_state(const std::vector<RowResult>& rows, std::size_t c) {
    if (const auto it = cases_.find(c); it != cases_.end()) return it->second;
    const auto waited_from = Clock::now();
    struct Waited {
      double& total;
      Clock::time_point from;
      ~Waited() { total += std::chrono::duration<double>(Clock::now() - from).count(); }
    } waited{case_wait_s_, waited_from};
    if (const auto it = preparing_.find(c); it != preparing_.end()) {
      std::future<CaseState> ready = std::move(it->second);
      preparing_.erase(it);
      return cases_.emplace(c, ready.get()).first->second;
    }
    return cases_.emplace(c, prepare_state(c, formats_of(rows, case_rows_[c]))).first->second;
  }

  void read_cusparse_cache(PreparedCase& prepared) const {
    const auto file = cusparse_cache(options_, prepared.test_case.name);
    if (!file || prepared.cusparse_ms) return;
    std::ifstream in(*file);
    double ms = 0;
    if (in >> ms && ms > 0) prepared.cusparse_ms = ms;
  }

  void write_cusparse_cache(const PreparedCase& prepared) const {
    const auto file = cusparse_cache(options_, prepared.test_case.name);
    if (!file || !prepared.cusparse_ms) return;
    std::ostringstream text;
    text.precision(17);
    text << *prepared.cusparse_ms << '\n';
    write_file_atomically(*file, text.str());
  }

  // Whether case `c` is prepared: case_state(c) returns without waiting.
  bool case_prepared(std::size_t c) const {
    if (cases_.count(c) != 0) return true;
    const auto it = preparing_.find(c);
    return it != preparing_.end() && it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  // On the GPU, the next two cases are read, converted and their golden
  // results computed on other cores while case `c` is graded, off the
  // grading's critical path. Host-memory plugins run on the CPU, and their
  // timings would share it: there, each case is prepared at its turn.
  void prepare_ahead(const std::vector<RowResult>& rows, std::size_t c) {
    if (!needs_gpu_ || gpu_missing()) return;
    for (std::size_t next = c + 1; next < setup_.cases.size() && next <= c + kCasesPreparedAhead; ++next) {
      if (case_rows_[next].empty() || cases_.count(next) != 0 || preparing_.count(next) != 0) continue;
      preparing_.emplace(next, std::async(std::launch::async, [this, next, formats = formats_of(rows, case_rows_[next])] {
                           return prepare_state(next, formats);
                         }));
    }
  }

  void finish_all(std::vector<RowResult>& rows, const std::vector<std::size_t>& indices, Verdict verdict,
                  const std::string& cause, const std::string& why) {
    for (const auto i : indices) {
      drop_started(i);
      reporter_.row_started(rows, i);
      set_verdict(rows[i], verdict, cause, why);
      reporter_.row_finished(rows, i);
    }
  }

  void grade_case(std::vector<RowResult>& rows, std::size_t c) {
    const CaseEntry& entry = setup_.cases[c];
    const std::vector<std::size_t>& indices = case_rows_[c];
    CaseState& state = case_state(rows, c);
    prepare_ahead(rows, c);
    if (!state.prepared) {
      finish_all(rows, indices, Verdict::kCaseError, "case_error", "case " + entry.test_case.name + ": " + state.error);
      cases_.erase(c);
      return;
    }
    PreparedCase& prepared = *state.prepared;
    read_cusparse_cache(prepared);
    for (const auto i : indices) {
      rows[i].rows = prepared.csr.rows;
      rows[i].cols = prepared.csr.cols;
      rows[i].nnz = prepared.csr.nnz();
    }
    if (gpu_missing()) {
      // What can be done without a GPU is still done, so a broken case or
      // conversion shows up even here.
      const std::string problem = host_side_check(prepared);
      ++cases_checked_on_host_;
      if (!problem.empty()) {
        finish_all(rows, indices, Verdict::kGraderError, "host_check", "host-side check failed: " + problem);
        cases_.erase(c);
        return;
      }
    }
    for (const auto i : indices) {
      reporter_.row_started(rows, i);
      if (const auto decision = decide_without_runner(rows[i], prepared)) {
        drop_started(i);
        set_verdict(rows[i], decision->verdict, decision->cause, decision->why);
      } else {
        run_row(rows, i, prepared);
      }
      reporter_.row_finished(rows, i);
      if (needs_gpu_ && (rows[i].verdict == Verdict::kCrash || rows[i].verdict == Verdict::kTimeout)) {
        check_gpu_health(rows[i]);
      }
    }
    cases_.erase(c);
  }

  // Everything that settles a row before any plugin code runs; nullopt
  // when the row needs its runner.
  std::optional<Decision> decide_without_runner(const RowResult& row, const PreparedCase& prepared) const {
    const KernelInfo& reference_kernel = *setup_.reference.find(row.kernel);
    if (!setup_.submission.loaded) return Decision{Verdict::kLoadError, "load_error", setup_.submission.error};
    if (const auto refused = prepared.refused.find(reference_kernel.format); refused != prepared.refused.end()) {
      return Decision{Verdict::kNotApplicable, "format_refused", refused->second};
    }
    // The reason is given once, in the run's notes.
    if (gpu_missing()) return Decision{Verdict::kSkipped, "no_gpu", ""};
    const KernelInfo* submission_kernel = setup_.submission.find(row.kernel);
    if (submission_kernel == nullptr) {
      return Decision{Verdict::kNotImplemented, "missing_kernel",
                      "the submission has no kernel named " + row.kernel + " (it has: " +
                          setup_.submission.kernel_names() + ")"};
    }
    if (submission_kernel->format != reference_kernel.format) {
      return Decision{Verdict::kLoadError, "format_mismatch",
                      "the submission's kernel " + row.kernel + " takes a " + format_name(submission_kernel->format) +
                          " view; it must take a " + format_name(reference_kernel.format) + " view"};
    }
    return std::nullopt;
  }

  std::filesystem::path log_of(const RowResult& row) const {
    return logs_dir(options_) / (file_name_part(row.kernel) + "__" + file_name_part(row.case_name) + ".log");
  }

  // Starts the runners of the rows after `position` (in grading order)
  // until --prestart of them wait, looking no further than the cases
  // prepare_ahead prepares. A row whose case is prepared gets a runner only
  // if it needs one; a row whose case is still being prepared gets one all
  // the same, ended unused if the row needs none (drop_started): in a run of
  // one kernel every row is another case, and its short rows waited up to
  // 200 ms on the H100 for a runner started at their turn. Nothing here
  // waits for a case: the grader must be quick while a row runs.
  void look_ahead(const std::vector<RowResult>& rows, std::size_t position) {
    if (options_.prestart == 0 || !setup_.submission.loaded) return;
    const std::size_t current_case = order_[position].case_index;
    std::size_t waiting = started_.size();
    std::size_t next = std::max(next_to_start_, position + 1);
    for (; waiting < static_cast<std::size_t>(options_.prestart) && next < order_.size(); ++next) {
      const Turn turn = order_[next];
      if (turn.case_index > current_case + kCasesPreparedAhead) break;
      if (case_prepared(turn.case_index)) {
        const CaseState& state = case_state(rows, turn.case_index);
        if (!state.prepared || decide_without_runner(rows[turn.row], *state.prepared)) continue;
      }
      started_.push_back({turn.row, start_submission_runner(runners_, log_of(rows[turn.row]))});
      ++waiting;
    }
    next_to_start_ = next;
  }

  // A row that needs no runner after all: the one started for it ends unused.
  void drop_started(std::size_t index) {
    const auto it = std::find_if(started_.begin(), started_.end(), [&](const StartedRow& s) { return s.index == index; });
    if (it == started_.end()) return;
    runners_.retire(it->runner.take());
    started_.erase(it);
  }

  // After a row whose submission crashed or hung: a trusted process (the GPU
  // probe's) must still create a context and copy on the GPU, else the next
  // rows would fail for the GPU's sake. Tried 4 times over 7 s; then the
  // grading stops with a clear message (the finished rows are in the
  // reports; --resume grades the rest once the GPU is back).
  void check_gpu_health(const RowResult& row) {
    runners_.settle();
    std::string why;
    for (const double pause : {0.0, 1.0, 2.0, 4.0}) {
      std::this_thread::sleep_for(std::chrono::duration<double>(pause));
      const GpuInfo health = probe_gpu(options_.device, kMinimumProbeTimeout, logs_dir(options_) / "gpu-health.log",
                                       std::nullopt);
      if (health.count > 0 && health.copy_gbps) return;
      why = health.note.empty() ? "no GPU found" : health.note;
    }
    throw SetupError("the GPU failed its health check after the row " + row.kernel + " / " + row.case_name + " (" +
                     row.summary + "): " + why + ". Grading stopped; the rows graded so far are in the reports, and "
                     "spmv-grade --resume grades the rest once the GPU works again.");
  }

  // Before the first row: the reference runner and the first rows' runners
  // start together, each creating its CUDA context while the first case is
  // prepared (without them, the first row would wait for each in turn).
  void start_first_runners(const std::vector<RowResult>& rows) {
    if (order_.empty() || gpu_missing()) return;
    runners_.start_reference();
    if (options_.prestart == 0 || !setup_.submission.loaded) return;
    const Turn first = order_.front();
    started_.push_back({first.row, start_submission_runner(runners_, log_of(rows[first.row]))});
    next_to_start_ = 1;
    look_ahead(rows, 0);
  }

  std::size_t position_of(std::size_t row) const {
    const auto it = std::find_if(order_.begin(), order_.end(), [&](const Turn& turn) { return turn.row == row; });
    return static_cast<std::size_t>(it - order_.begin());
  }

  void run_row(std::vector<RowResult>& rows, std::size_t index, PreparedCase& prepared) {
    RowResult& row = rows[index];
    PendingRunner pending;
    if (!started_.empty() && started_.front().index == index) {
      pending = std::move(started_.front().runner);
      started_.pop_front();
    } else {
      pending = start_submission_runner(runners_, log_of(row));
    }
    look_ahead(rows, position_of(index));
    RowPlan plan;
    plan.prepared = &prepared;
    plan.kernel = row.kernel;
    plan.format = setup_.reference.find(row.kernel)->format;
    plan.timeout_s = options_.timeout_s;
    plan.timing = {options_.min_runs, options_.max_runs, options_.warmup_runs, options_.min_time_ms};
    plan.measure_cusparse =
        options_.cusparse && !prepared.cusparse_ms && setup_.reference.memory == SPMV_MEMORY_DEVICE;
    plan.min_reference_us = setup_.policy.min_reference_us;
    RowRecord record = grade_row(plan, std::move(pending), runners_);
    const auto judging = Clock::now();
    judge_row(row, record,
              RowContext{prepared, plan.format, options_.timeout_s, gpu_.copy_gbps, setup_.policy.speedup_review,
                         setup_.policy.min_reference_us});
    row.phase_ms["judge"] = std::chrono::duration<double, std::milli>(Clock::now() - judging).count();
    for (const std::string& flag : row.flags) {
      const auto& accepted = setup_.policy.accepted_flags;
      if (std::find(accepted.begin(), accepted.end(), flag) != accepted.end()) row.accepted_flags.push_back(flag);
    }
    if (row.cusparse_ms && !prepared.cusparse_ms) {
      prepared.cusparse_ms = row.cusparse_ms;
      write_cusparse_cache(prepared);
    }
  }

  const Options& options_;
  Setup& setup_;
  Reporter& reporter_;
  GpuInfo gpu_;
  bool needs_gpu_;
  GradingRunners& runners_;
  int cases_checked_on_host_ = 0;
  double case_wait_s_ = 0;
  PrepareOptions prepare_;
  std::vector<std::vector<std::size_t>> case_rows_;  // each case's rows still to grade, in order
  std::vector<Turn> order_;                          // those rows, in grading order
  std::map<std::size_t, CaseState> cases_;           // prepared cases still needed
  std::map<std::size_t, std::future<CaseState>> preparing_;  // cases being prepared by threads of their own
  std::deque<StartedRow> started_;                   // runners started ahead, waiting for their turn, in order
  std::size_t next_to_start_ = 0;                    // position in order_ not yet looked at
};

// In CTest mode the GPU's copy bandwidth, measured by the first run, is
// kept beside the journals for the others (the folder is emptied before
// each CTest grading).
std::optional<std::filesystem::path> gpu_probe_cache(const Options& options) {
  if (!options.journal) return std::nullopt;
  return *options.journal / kGpuProbeCacheFile;
}

std::uint64_t fresh_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

bool any_of_verdict(const std::vector<RowResult>& rows, std::initializer_list<Verdict> verdicts) {
  return std::any_of(rows.begin(), rows.end(), [&](const RowResult& row) {
    return std::find(verdicts.begin(), verdicts.end(), row.verdict) != verdicts.end();
  });
}

int exit_code_of(const std::vector<RowResult>& rows, bool strict_gpu) {
  if (any_of_verdict(rows, {Verdict::kGraderError, Verdict::kCaseError})) return kExitSetup;
  const bool all_passed = std::all_of(rows.begin(), rows.end(), [](const RowResult& row) {
    return is_success(row.verdict) || row.verdict == Verdict::kSkipped;
  });
  if (!all_passed) return kExitSomethingFailed;
  if (any_of_verdict(rows, {Verdict::kSkipped}) && strict_gpu) return kExitNoGpu;
  return kExitAllPassed;
}

// A journal run (CTest) succeeds once every row has a verdict, whatever it
// is: each row's own test (--show-row) says whether it passed; the run
// itself failed only if something could not be graded at all.
int journal_exit_code(const std::vector<RowResult>& rows, bool strict_gpu) {
  const int code = exit_code_of(rows, strict_gpu);
  return code == kExitSomethingFailed ? kExitAllPassed : code;
}

std::string no_gpu_note(const GpuInfo& gpu, const std::vector<RowResult>& rows, int cases_checked) {
  const auto skipped = std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.verdict == Verdict::kSkipped; });
  return "No CUDA GPU found" + (gpu.note.empty() ? std::string() : " (" + gpu.note + ")") + ": " +
         std::to_string(skipped) + " rows are reported as skipped; host-side checks ran: " +
         std::to_string(cases_checked) + " cases read, converted and checked.";
}

// The planned rows already finished in these row files take their recorded
// results: --output-dir's rows.jsonl with --resume, the kernels' journals in
// CTest mode. A line cut short by a killed grader is left out (its row is
// graded again), as is a file that is not there.
std::set<std::size_t> take_finished_rows(const std::vector<std::filesystem::path>& files, std::vector<RowResult>& rows) {
  std::set<std::size_t> done;
  for (const auto& path : files) {
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) {
      RowResult finished;
      try {
        finished = row_from_json(parse_json(line));
      } catch (const std::exception&) {
        continue;
      }
      if (finished.verdict == Verdict::kNotRun) continue;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].kernel == finished.kernel && rows[i].case_name == finished.case_name &&
            rows[i].case_source == finished.case_source) {
          rows[i] = std::move(finished);
          done.insert(i);
          break;
        }
      }
    }
  }
  return done;
}

std::vector<std::filesystem::path> finished_row_files(const Options& options, const std::vector<std::string>& kernels) {
  if (options.journal) {
    std::vector<std::filesystem::path> files;
    for (const auto& kernel : kernels) files.push_back(journal_file(*options.journal, kernel));
    return files;
  }
  if (options.resume) return {options.output_dir / "rows.jsonl"};
  return {};
}

// CTest mode, a kernel's own run (--kernel given): when an earlier run in
// the journal folder (the whole grading's) left every row of these kernels
// finished, there is nothing to grade, and the run ends before it starts a
// runner or probes a plugin. Its rows are printed as a journal run prints
// them. Otherwise nothing. With --memcheck too: the run that graded the
// rows ran their memcheck pass (one killed before it is a failed test).
std::optional<int> already_graded(const Options& options, const std::vector<CaseEntry>& cases) {
  if (!options.journal || options.kernels.empty()) return std::nullopt;
  std::vector<RowResult> rows;
  for (const auto& kernel : options.kernels) {
    for (const auto& entry : cases) {
      RowResult row;
      row.kernel = kernel;
      row.case_name = entry.test_case.name;
      row.case_source = entry.source;
      row.verdict = Verdict::kNotRun;
      rows.push_back(std::move(row));
    }
  }
  if (take_finished_rows(finished_row_files(options, options.kernels), rows).size() != rows.size()) return std::nullopt;
  for (const auto& row : rows) std::cout << row.kernel << " / " << row.case_name << ": " << row.summary << '\n';
  std::cout << "Every row was graded already, by an earlier run into " << options.journal->string() << '\n'
            << std::flush;
  return journal_exit_code(rows, options.strict_gpu);
}

// Each case's matrix digest, by name: its file's SHA-256, or its generator
// spec's. Read once for the provenance and the run's identity.
std::map<std::string, std::string> matrix_digests(const Setup& setup) {
  std::map<std::string, std::string> digests;
  for (const auto& entry : setup.cases) {
    const TestCase& c = entry.test_case;
    digests[c.name] = c.file.empty() ? "sha256:" + sha256_hex(c.generator) + " (generator)" : file_digest(c.file);
  }
  return digests;
}

// The settings that decide a row's verdict or measurement, for the run's
// identity (run_identity.hpp).
std::vector<std::pair<std::string, std::string>> grading_settings(const Options& options) {
  const auto number = [](double value) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return std::string(text, end);
  };
  return {{"--timeout", number(options.timeout_s)},
          {"--format-limit-mib", std::to_string(options.format_limit_bytes >> 20)},
          {"--min-runs", std::to_string(options.min_runs)},
          {"--max-runs", std::to_string(options.max_runs)},
          {"--warmup-runs", std::to_string(options.warmup_runs)},
          {"--min-time-ms", number(options.min_time_ms)}};
}

// --resume: the output folder's run facts, read before this run writes
// anything there; nothing when the folder holds no row to keep (a grading
// killed before its first row, or a fresh folder).
std::optional<JournalRun> earlier_run(const Options& options) {
  const auto facts = run_facts_file(options.output_dir);
  const auto rows = options.output_dir / "rows.jsonl";
  std::error_code error;
  if (!std::filesystem::exists(rows, error) || std::filesystem::file_size(rows, error) == 0) return std::nullopt;
  if (!std::filesystem::exists(facts, error)) {
    throw UsageError("--resume: " + options.output_dir.string() +
                     " holds rows (rows.jsonl) but no run facts (run.json) saying what graded them, so they cannot "
                     "be checked against this run; grade into a new --output-dir, or leave out --resume to grade "
                     "afresh");
  }
  try {
    return read_run_info(facts);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--resume: ") + e.what() +
                     "; without its run facts the folder's rows cannot be checked against this run");
  }
}

// A digest of every input that decides the grade (provenance.hpp).
Provenance provenance_of(const Options& options, const Defaults& defaults, const Setup& setup, const GpuInfo& gpu,
                         const std::map<std::string, std::string>& digests) {
  Provenance p;
  p.emplace_back("submission", file_digest(options.submission));
  p.emplace_back("grader", file_digest("/proc/self/exe"));
  p.emplace_back("runner", file_digest(defaults.runner));
  p.emplace_back("reference runner", file_digest(defaults.reference_runner));
  p.emplace_back("reference", file_digest(setup.reference.path));
  p.emplace_back("policy", options.policy ? file_digest(*options.policy)
                                          : "sha256:" + sha256_hex(default_policy_text()) + " (built in)");
  for (const auto& entry : setup.cases) p.emplace_back("case " + entry.test_case.name, digests.at(entry.test_case.name));
  if (!gpu.name.empty()) p.emplace_back("gpu", gpu.name);
  if (!gpu.driver.empty()) p.emplace_back("driver", gpu.driver);
  if (!gpu.toolkit.empty()) p.emplace_back("toolkit", gpu.toolkit);
  return p;
}

// --isolation, or the strongest level this machine gives; below the
// container level only with --allow-unisolated.
sandbox::Level isolation_level(const Options& options) {
  const sandbox::Level strongest = sandbox::strongest_available();
  sandbox::Level level = strongest;
  if (options.isolation) {
    const auto asked = sandbox::parse_level(*options.isolation);
    if (!asked) throw UsageError("--isolation " + *options.isolation + ": not a level (full, container, user, none)");
    if (*asked > strongest) {
      throw SetupError("--isolation " + *options.isolation + ": not available here; the strongest is " +
                       sandbox::level_name(strongest) + " (" + sandbox::describe_level(strongest) + ")");
    }
    level = *asked;
  }
  if (level < sandbox::Level::kContainer && !options.allow_unisolated) {
    throw SetupError(std::string("isolation level '") + sandbox::level_name(level) +
                     "' cannot contain a submission (it needs root, or a container that lets the grader change "
                     "uid); grading for marks refuses it. Pass --allow-unisolated to grade your own work anyway: "
                     "the reports will say so.");
  }
  return level;
}

RunInfo run_info(const Options& options, const Setup& setup, const GpuInfo& gpu, bool needs_gpu,
                 std::uint64_t seed) {
  RunInfo info;
  info.submission = options.submission.string();
  info.submission_name = setup.submission.name;
  info.reference = setup.reference.path.string();
  info.device = !needs_gpu ? "CPU (host-memory plugins)" : gpu.count > 0 ? gpu.name : "no CUDA GPU";
  info.copy_gbps = gpu.copy_gbps;
  info.secret_seed = options.secret_seed.has_value();
  if (!info.secret_seed) info.seed = seed;
  return info;
}

}  // namespace

// --memcheck: each kernel's three smallest passing cases run again under
// compute-sanitizer (memcheck.hpp); a finding makes the row wrong.
void memcheck_pass(const Options& options, const Setup& setup, GradingRunners& runners, Reporter& reporter,
                   std::vector<RowResult>& rows, std::uint64_t run_seed) {
  const auto sanitizer = find_compute_sanitizer();
  if (!sanitizer) {
    reporter.info().notes.push_back("--memcheck: compute-sanitizer was not found (PATH, $CUDA_HOME/bin, "
                                    "/usr/local/cuda/bin); no row was checked.");
    return;
  }
  const PrepareOptions prepare{options.cache_dir, options.format_limit_bytes, run_seed};
  int checked = 0;
  for (const std::string& kernel : setup.kernels) {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].kernel == kernel && rows[i].verdict == Verdict::kPass && rows[i].nnz > 0) candidates.push_back(i);
    }
    std::sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) { return rows[a].nnz < rows[b].nnz; });
    if (candidates.size() > kMemcheckCases) candidates.resize(kMemcheckCases);
    const spmv_format format = setup.reference.find(kernel)->format;
    for (const std::size_t i : candidates) {
      RowResult& row = rows[i];
      const auto entry = std::find_if(setup.cases.begin(), setup.cases.end(),
                                      [&](const CaseEntry& c) { return c.test_case.name == row.case_name; });
      PreparedCase prepared = prepare_case(entry->test_case, {format}, prepare);
      std::vector<std::string> tools{"memcheck"};
      if (kernel == "csr_vector") tools.emplace_back("racecheck");
      for (const std::string& tool : tools) {
        const auto log = logs_dir(options) / (tool + "__" + file_name_part(kernel) + "__" + file_name_part(row.case_name) + ".log");
        const MemcheckOutcome outcome =
            run_under_sanitizer(runners.submission_spec(log), *sanitizer, tool, prepared, kernel, format, options.timeout_s);
        ++checked;
        if (!outcome.ran) {
          reporter.info().notes.push_back("--memcheck: " + kernel + " / " + row.case_name + " was not checked by " +
                                          tool + ": " + outcome.problem);
          continue;
        }
        if (!outcome.report.findings.empty() && row.verdict == Verdict::kPass) {
          set_verdict(row, Verdict::kWrong, tool, describe_findings(tool, outcome.report));
        }
      }
    }
  }
  reporter.info().notes.push_back("--memcheck: " + std::to_string(checked) + " runs under compute-sanitizer (" +
                                  sanitizer->string() + ").");
  reporter.rows_changed(rows);
}

int run_grading(const Options& options, const Defaults& defaults) {
  const auto started = Clock::now();
  const auto seconds_since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  Setup setup;
  setup.policy = policy_of(options);
  if (options.show_policy) return show_policy(options, setup.policy);
  setup.cases = load_all_cases(options);
  const std::string unread = unread_files_note(options);
  if (!unread.empty()) std::cerr << "spmv-grade: note: " << unread << '\n';
  // --resume: what made the folder, read before this run writes there.
  const std::optional<JournalRun> earlier = options.resume && !options.journal ? earlier_run(options) : std::nullopt;
  std::error_code error;
  std::filesystem::create_directories(logs_dir(options), error);
  if (error) throw SetupError(logs_dir(options).string() + ": cannot create: " + error.message());
  if (const auto code = already_graded(options, setup.cases)) return *code;
  const sandbox::Level level = isolation_level(options);

  // The run's identity (run_identity.hpp); with --resume the folder must
  // have been made by the same, and its seed is kept.
  std::optional<std::uint64_t> earlier_seed = earlier ? identity_seed(earlier->info.identity) : std::nullopt;
  const std::uint64_t seed = options.seed ? *options.seed : earlier_seed ? *earlier_seed : fresh_seed();
  std::map<std::string, std::string> digests;  // read once: --list reads no case file
  IdentityInputs identity_inputs;
  std::string secret_entry;
  if (!options.list) {
    digests = matrix_digests(setup);
    identity_inputs.submission = options.submission;
    identity_inputs.policy_digest = policy_digest(setup.policy);
    identity_inputs.kernels = options.kernels.empty() ? setup.policy.graded_kernels() : options.kernels;
    for (const auto& entry : setup.cases) {
      const TestCase& c = entry.test_case;
      identity_inputs.cases.emplace_back(c.name, case_identity(c, digests.at(c.name)));
    }
    identity_inputs.seed = seed;
    identity_inputs.settings = grading_settings(options);
    if (earlier) {
      secret_entry = check_resume(options.output_dir, *earlier, run_identity(identity_inputs), options.secret_seed,
                                  options.submission.string(), policy_text(setup.policy));
    }
  }

  const WorkRoot work_root;
  probe_plugins(options, defaults, setup, work_root, level);
  setup.kernels = choose_kernels(options, setup);
  if (options.list) return list(setup);
  const std::string no_points = no_points_note(options, setup);
  if (!no_points.empty()) std::cerr << "spmv-grade: note: " << no_points << '\n';
  const std::string reference_digest = file_digest(setup.reference.path);
  if (earlier) check_resume_reference(options.output_dir, *earlier, reference_digest, setup.reference.path.string());
  if (!earlier) secret_entry = secret_identity(options.secret_seed);
  identity_inputs.reference = setup.reference.path;

  const bool needs_gpu = setup.reference.memory == SPMV_MEMORY_DEVICE;
  const double probes_s = seconds_since(started);
  const auto gpu_probe_started = Clock::now();
  const GpuInfo gpu = needs_gpu ? probe_gpu(options.device, std::max(options.timeout_s, kMinimumProbeTimeout),
                                            logs_dir(options) / "probe-gpu.log", gpu_probe_cache(options))
                                : GpuInfo{};
  const double gpu_probe_s = seconds_since(gpu_probe_started);
  const std::uint64_t run_seed = options.secret_seed ? mix_secret(seed, *options.secret_seed) : seed;

  auto rows = plan_rows(setup, run_seed, options.secret_seed.has_value());
  const std::set<std::size_t> done = take_finished_rows(finished_row_files(options, setup.kernels), rows);
  RunInfo info = run_info(options, setup, gpu, needs_gpu, seed);
  info.provenance = provenance_of(options, defaults, setup, gpu, digests);
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
  GradingRunners runners(options, defaults, setup, level, work_root);
  Grading grading(options, setup, reporter, gpu, needs_gpu, runners);
  const auto rows_started = Clock::now();
  grading.run(rows, run_seed, done);
  runners.settle();
  if (options.memcheck && needs_gpu && gpu.count > 0) memcheck_pass(options, setup, runners, reporter, rows, run_seed);
  const double rows_s = seconds_since(rows_started);
  if (!runners.ready_message().empty()) {
    reporter.info().notes.push_back("Runners started as: " + runners.ready_message() + ".");
  }
  if (grading.gpu_missing()) reporter.info().notes.push_back(no_gpu_note(gpu, rows, grading.cases_checked_on_host()));
  reporter.finish(rows);
  if (options.journal) return journal_exit_code(rows, options.strict_gpu);
  write_run_info(run_facts_file(options.output_dir), {run_id, reporter.info()});
  if (!options.quiet) {
    std::printf("Time: %.1f s (cases read and plugins probed %.1f s, GPU measured %.1f s, rows %.1f s, of which "
                "waiting for cases %.1f s)\n",
                seconds_since(started), probes_s, gpu_probe_s, rows_s, grading.case_wait_s());
  }
  return exit_code_of(rows, options.strict_gpu);
}

int run_show_row(const Options& options) {
  const auto& journal = *options.show_row;
  if (options.kernels.size() != 1 || options.case_filters.size() != 1) {
    throw UsageError("--show-row: name the row with one --kernel and one --case");
  }
  if (!std::filesystem::exists(journal)) {
    std::cout << "The row was not graded: its kernel's grading wrote no " << journal.string() << '\n';
    return kExitSetup;
  }
  std::vector<RowResult> rows;
  try {
    rows = read_rows_file(journal);
  } catch (const std::exception& e) {
    throw SetupError(e.what());
  }
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const RowResult& r) {
    return r.kernel == options.kernels.front() && r.case_name == options.case_filters.front();
  });
  if (row == rows.end()) {
    std::cout << "The row was not graded: " << journal.string() << " has no row " << options.kernels.front() << " / "
              << options.case_filters.front() << '\n';
    return kExitSetup;
  }
  std::cout << row->kernel << " / " << row->case_name << ": " << row->summary << '\n';
  if (!row->detail.empty()) std::cout << row->detail << '\n';
  if (!row->submission_output.empty()) std::cout << "submission output:\n" << row->submission_output << '\n';
  if (row->verdict == Verdict::kNotRun) return kExitSetup;
  return exit_code_of({*row}, options.strict_gpu);
}

int run_aggregate(const Options& options) {
  const Policy policy = policy_of(options);
  const auto& folder = *options.aggregate;
  if (!std::filesystem::is_directory(folder)) throw SetupError("--aggregate " + folder.string() + ": not a folder");
  std::vector<std::filesystem::path> files;
  std::vector<std::string> unplanned;
  std::set<std::string> planned;
  if (options.planned) {
    std::ifstream list(*options.planned);
    if (!list) throw SetupError("--planned " + options.planned->string() + ": cannot read");
    for (std::string name; std::getline(list, name);) {
      if (!name.empty()) planned.insert(name);
    }
  }
  for (const auto& item : std::filesystem::directory_iterator(folder)) {
    if (item.path().extension() != ".jsonl") continue;
    if (options.planned && planned.count(item.path().filename().string()) == 0) {
      unplanned.push_back(item.path().filename().string());
      continue;
    }
    files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<RowResult> rows;
  for (const auto& file : files) {
    try {
      for (auto& row : read_rows_file(file)) rows.push_back(std::move(row));
    } catch (const std::exception& e) {
      throw SetupError(e.what());
    }
  }
  if (rows.empty()) throw SetupError("--aggregate " + folder.string() + ": no rows (*.jsonl files) to aggregate");
  std::filesystem::create_directories(options.output_dir);
  std::string lines;
  for (const auto& row : in_report_order(rows)) lines += row_to_json_line(row) + "\n";
  write_file_atomically(options.output_dir / "rows.jsonl", lines);

  // The runs that graded the rows, from beside their journals.
  std::vector<JournalRun> runs;
  for (const auto& file : files) {
    const auto run_file = run_info_file(file.parent_path(), file.stem().string());
    if (!std::filesystem::exists(run_file)) continue;
    try {
      runs.push_back(read_run_info(run_file));
    } catch (const std::exception& e) {
      throw SetupError(e.what());
    }
  }
  RunInfo info = merge_run_infos(runs);
  if (runs.empty()) info.submission = options.submission.string();
  // The report scores the rows under this policy; the runs' own is said
  // when it differs.
  const auto without_source = [](const std::string& text) { return text.substr(text.starts_with('#') ? text.find('\n') + 1 : 0); };
  if (!info.policy.empty() && without_source(info.policy) != policy_text(policy, false)) {
    info.notes.push_back("The rows were graded under another policy than the one this report scores them with (" +
                         policy.source + ").");
  }
  info.policy = policy_text(policy);
  for (const auto& row : rows) {
    if (row.copy_gbps && !info.copy_gbps) info.copy_gbps = row.copy_gbps;
  }
  const auto skipped = std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.verdict == Verdict::kSkipped; });
  if (skipped > 0) info.notes.push_back(std::to_string(skipped) + " rows were skipped: no CUDA GPU was found.");
  if (!unplanned.empty()) {
    std::string names;
    for (const auto& name : unplanned) names += (names.empty() ? "" : ", ") + name;
    info.notes.push_back("Row files that no test planned were ignored: " + names);
    std::cerr << "spmv-grade: ignored row files no test planned: " << names << '\n';
  }
  Reporter reporter({options.output_dir, std::nullopt, options.quiet}, policy, info);
  reporter.finish(rows);
  const int code = exit_code_of(rows, options.strict_gpu);
  // The rows' own tests already failed for wrong rows; the aggregation step
  // itself succeeds unless something could not be graded at all.
  return code == kExitSomethingFailed ? kExitAllPassed : code;
}

}  // namespace spmv::grade
