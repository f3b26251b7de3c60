#include "grader.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "case_data.hpp"
#include "child.hpp"
#include "exit_codes.hpp"
#include "policy.hpp"
#include "probe.hpp"
#include "process.hpp"
#include "reporter.hpp"
#include "row_json.hpp"
#include "spmv/plugin/plugin.hpp"
#include "verdict.hpp"

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

void probe_plugins(const Options& options, const Defaults& defaults, Setup& setup) {
  check_submission_path(options);
  const double timeout = std::max(options.timeout_s, kMinimumProbeTimeout);
  setup.submission = probe_plugin(options.submission, true, timeout, logs_dir(options) / "probe-submission.log");
  const bool host_submission = setup.submission.loaded && setup.submission.memory == SPMV_MEMORY_HOST;
  const auto reference_path =
      options.reference.value_or(host_submission ? defaults.host_reference_plugin : defaults.reference_plugin);
  setup.reference = probe_plugin(reference_path, false, timeout, logs_dir(options) / "probe-reference.log");
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

std::vector<CaseEntry> load_all_cases(const Options& options) {
  std::vector<CaseEntry> entries;
  std::map<std::string, std::string> source_of;
  std::string all_names;
  for (const auto& source : options.cases) {
    std::vector<TestCase> cases;
    try {
      cases = load_cases(source);
    } catch (const std::exception& e) {
      throw SetupError("--cases " + source.string() + ": " + e.what());
    }
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
  try {
    policy_of(options).check_case_names(names, sources);
  } catch (const PolicyError& e) {
    throw UsageError(std::string("--policy: ") + e.what());
  }
  return entries;
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

// A row's child, forked ahead of the row's turn (--prestart) or at it.
struct ForkedRow {
  std::size_t index = 0;  // into the rows
  std::unique_ptr<RowChannel> channel;
  std::filesystem::path log;
  std::unique_ptr<PendingChild> child;  // declared last: killed before the channel goes
};

// A row's verdict when it needs no child.
struct Decision {
  Verdict verdict;
  std::string cause;
  std::string why;
};

// Grades the rows in order, one child at a time. With --prestart N, up to N
// children of the following rows are forked while a row runs, each doing
// its start-up (plugins, CUDA) and then waiting for its turn; a row's
// verdict and its place in the reports do not depend on N. Children never
// started (the grader stopped early) are killed and reaped when the
// Grading goes.
class Grading {
 public:
  Grading(const Options& options, Setup& setup, Reporter& reporter, GpuInfo gpu, bool needs_gpu)
      : options_(options), setup_(setup), reporter_(reporter), gpu_(std::move(gpu)), needs_gpu_(needs_gpu) {}

  void run(std::vector<RowResult>& rows, std::uint64_t run_seed) {
    prepare_ = {options_.cache_dir, options_.format_limit_bytes, run_seed};
    for (std::size_t c = 0; c < setup_.cases.size(); ++c) {
      std::vector<std::size_t> indices;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].case_name == setup_.cases[c].test_case.name) indices.push_back(i);
      }
      for (const auto i : indices) order_.push_back({i, c});
      case_rows_.push_back(std::move(indices));
    }
    for (std::size_t c = 0; c < setup_.cases.size(); ++c) grade_case(rows, c);
  }

  [[nodiscard]] int cases_checked_on_host() const { return cases_checked_on_host_; }
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

  // The case prepared on first use, at its turn or earlier to fork the
  // child of one of its rows ahead.
  CaseState& case_state(const std::vector<RowResult>& rows, std::size_t c) {
    const auto [it, fresh] = cases_.try_emplace(c);
    if (fresh) {
      try {
        it->second.prepared = prepare_case(setup_.cases[c].test_case, formats_of(rows, case_rows_[c]), prepare_);
      } catch (const PrepareError& e) {
        it->second.error = e.what();
      } catch (...) {
        cases_.erase(it);
        throw;
      }
    }
    return it->second;
  }

  void finish_all(std::vector<RowResult>& rows, const std::vector<std::size_t>& indices, Verdict verdict,
                  const std::string& cause, const std::string& why) {
    for (const auto i : indices) {
      reporter_.row_started(rows, i);
      set_verdict(rows[i], verdict, cause, why);
      reporter_.row_finished(rows, i);
    }
  }

  void grade_case(std::vector<RowResult>& rows, std::size_t c) {
    const CaseEntry& entry = setup_.cases[c];
    const std::vector<std::size_t>& indices = case_rows_[c];
    CaseState& state = case_state(rows, c);
    if (!state.prepared) {
      finish_all(rows, indices, Verdict::kCaseError, "case_error", "case " + entry.test_case.name + ": " + state.error);
      cases_.erase(c);
      return;
    }
    PreparedCase& prepared = *state.prepared;
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
      if (const auto decision = decide_without_child(rows[i], prepared)) {
        set_verdict(rows[i], decision->verdict, decision->cause, decision->why);
      } else {
        run_child(rows, i, prepared);
      }
      reporter_.row_finished(rows, i);
    }
    cases_.erase(c);
  }

  // Everything that settles a row before any plugin code runs; nullopt
  // when the row needs its child.
  std::optional<Decision> decide_without_child(const RowResult& row, const PreparedCase& prepared) const {
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

  ForkedRow fork_row(const RowResult& row, std::size_t index, const PreparedCase& prepared) const {
    ForkedRow forked;
    forked.index = index;
    forked.channel = std::make_unique<RowChannel>(prepared.csr.rows);
    RowTask task;
    task.prepared = &prepared;
    task.kernel = row.kernel;
    task.format = setup_.reference.find(row.kernel)->format;
    task.submission = setup_.submission.path;
    task.reference = setup_.reference.path;
    task.memory = setup_.reference.memory;
    task.device = options_.device;
    task.timing = {options_.min_runs, options_.max_runs, options_.warmup_runs, options_.min_time_ms};
    forked.log = logs_dir(options_) / (file_name_part(row.kernel) + "__" + file_name_part(row.case_name) + ".log");
    // Used only in the child, which gets its own copy of this frame.
    RowChild body(task, *forked.channel);
    forked.child = std::make_unique<PendingChild>([&] { body.start_up(); }, [&] { body.run(); }, forked.log);
    return forked;
  }

  // Walks the rows after `position` (in grading order) that need a child
  // until --prestart of them would wait, looking no further than the case
  // after the current one (at most two prepared cases are held). Without
  // `fork` it only prepares their cases: that is done before the current
  // row starts, since the parent must be quick while a row runs, or it
  // would notice the row's time limit late and judge a late finish as in
  // time. With `fork` it forks their children.
  void look_ahead(const std::vector<RowResult>& rows, std::size_t position, bool fork) {
    if (options_.prestart == 0) return;
    const std::size_t current_case = order_[position].case_index;
    std::size_t waiting = forked_.size();
    std::size_t next = std::max(next_to_fork_, position + 1);
    for (; waiting < static_cast<std::size_t>(options_.prestart) && next < order_.size(); ++next) {
      const Turn turn = order_[next];
      if (turn.case_index > current_case + 1) break;
      CaseState& state = case_state(rows, turn.case_index);
      if (state.prepared && !decide_without_child(rows[turn.row], *state.prepared)) {
        if (fork) forked_.push_back(fork_row(rows[turn.row], turn.row, *state.prepared));
        ++waiting;
      }
    }
    if (fork) next_to_fork_ = next;
  }

  std::size_t position_of(std::size_t row) const {
    const auto it = std::find_if(order_.begin(), order_.end(), [&](const Turn& turn) { return turn.row == row; });
    return static_cast<std::size_t>(it - order_.begin());
  }

  void run_child(std::vector<RowResult>& rows, std::size_t index, PreparedCase& prepared) {
    RowResult& row = rows[index];
    ForkedRow forked;
    if (!forked_.empty() && forked_.front().index == index) {
      forked = std::move(forked_.front());
      forked_.pop_front();
    } else {
      forked = fork_row(row, index, prepared);
    }
    // Decided only now: an earlier row of the case may have measured it.
    const bool measure_cusparse = options_.cusparse && !prepared.cusparse_ms;
    forked.channel->report().measure_cusparse.store(measure_cusparse ? 1 : 0, std::memory_order_release);
    const std::size_t position = position_of(index);
    look_ahead(rows, position, false);
    forked.child->start();
    look_ahead(rows, position, true);
    const ChildExit exit = forked.child->wait(options_.timeout_s);
    const spmv_format format = setup_.reference.find(row.kernel)->format;
    judge_row(row, exit, *forked.channel, RowContext{prepared, format, options_.timeout_s, gpu_.copy_gbps, forked.log});
    if (row.cusparse_ms && !prepared.cusparse_ms) prepared.cusparse_ms = row.cusparse_ms;
  }

  const Options& options_;
  Setup& setup_;
  Reporter& reporter_;
  GpuInfo gpu_;
  bool needs_gpu_;
  int cases_checked_on_host_ = 0;
  PrepareOptions prepare_;
  std::vector<std::vector<std::size_t>> case_rows_;  // each case's rows, in order
  std::vector<Turn> order_;                          // every row, in grading order
  std::map<std::size_t, CaseState> cases_;           // prepared cases still needed
  std::deque<ForkedRow> forked_;                     // started up, waiting for their turn, in order
  std::size_t next_to_fork_ = 0;                     // position in order_ not yet looked at
};

// In CTest mode every row is a run of its own: the GPU's copy bandwidth,
// measured by the first, is kept beside the journals for the others (the
// folder is emptied before each CTest grading).
std::optional<std::filesystem::path> gpu_probe_cache(const Options& options) {
  if (!options.journal) return std::nullopt;
  const auto folder = options.journal->parent_path();
  return (folder.empty() ? std::filesystem::path(".") : folder) / kGpuProbeCacheFile;
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

std::string no_gpu_note(const GpuInfo& gpu, const std::vector<RowResult>& rows, int cases_checked) {
  const auto skipped = std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.verdict == Verdict::kSkipped; });
  return "No CUDA GPU found" + (gpu.note.empty() ? std::string() : " (" + gpu.note + ")") + ": " +
         std::to_string(skipped) + " rows are reported as skipped; host-side checks ran: " +
         std::to_string(cases_checked) + " cases read, converted and checked.";
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

int run_grading(const Options& options, const Defaults& defaults) {
  Setup setup;
  setup.policy = policy_of(options);
  std::error_code error;
  std::filesystem::create_directories(logs_dir(options), error);
  if (error) throw SetupError(logs_dir(options).string() + ": cannot create: " + error.message());
  setup.cases = load_all_cases(options);
  probe_plugins(options, defaults, setup);
  setup.kernels = choose_kernels(options, setup);
  if (options.list) return list(setup);

  const bool needs_gpu = setup.reference.memory == SPMV_MEMORY_DEVICE;
  const GpuInfo gpu = needs_gpu ? probe_gpu(options.device, std::max(options.timeout_s, kMinimumProbeTimeout),
                                            logs_dir(options) / "probe-gpu.log", gpu_probe_cache(options))
                                : GpuInfo{};
  const std::uint64_t seed = options.seed.value_or(fresh_seed());
  const std::uint64_t run_seed = options.secret_seed ? mix_secret(seed, *options.secret_seed) : seed;

  auto rows = plan_rows(setup, run_seed, options.secret_seed.has_value());
  Reporter reporter({options.output_dir, options.journal, options.quiet}, setup.policy,
                    run_info(options, setup, gpu, needs_gpu, seed));
  reporter.start(rows);
  Grading grading(options, setup, reporter, gpu, needs_gpu);
  grading.run(rows, run_seed);
  if (grading.gpu_missing()) reporter.info().notes.push_back(no_gpu_note(gpu, rows, grading.cases_checked_on_host()));
  reporter.finish(rows);
  return exit_code_of(rows, options.strict_gpu);
}

int run_aggregate(const Options& options) {
  const Policy policy = policy_of(options);
  const auto& folder = *options.aggregate;
  if (!std::filesystem::is_directory(folder)) throw SetupError("--aggregate " + folder.string() + ": not a folder");
  std::vector<std::filesystem::path> files;
  for (const auto& item : std::filesystem::directory_iterator(folder)) {
    if (item.path().extension() == ".jsonl") files.push_back(item.path());
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

  RunInfo info;
  info.submission = options.submission.string();
  for (const auto& row : rows) {
    if (row.copy_gbps) info.copy_gbps = row.copy_gbps;
  }
  const auto skipped = std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.verdict == Verdict::kSkipped; });
  if (skipped > 0) info.notes.push_back(std::to_string(skipped) + " rows were skipped: no CUDA GPU was found.");
  Reporter reporter({options.output_dir, std::nullopt, options.quiet}, policy, info);
  reporter.finish(rows);
  const int code = exit_code_of(rows, options.strict_gpu);
  // The rows' own tests already failed for wrong rows; the aggregation step
  // itself succeeds unless something could not be graded at all.
  return code == kExitSomethingFailed ? kExitAllPassed : code;
}

}  // namespace spmv::grade
