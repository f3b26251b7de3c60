#include "grader.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "case_data.hpp"
#include "child.hpp"
#include "exit_codes.hpp"
#include "policy.hpp"
#include "probe.hpp"
#include "reporter.hpp"
#include "row_json.hpp"
#include "spmv/plugin/plugin.hpp"
#include "verdict.hpp"

namespace spmv::grade {
namespace {

// Loading a plugin or starting CUDA takes well under this; the row timeout
// may be set much shorter for tests of hanging kernels.
constexpr double kMinimumProbeTimeout = 60;

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
}

std::vector<std::string> choose_kernels(const Options& options, const Setup& setup) {
  std::vector<std::string> kernels = options.kernels;
  if (kernels.empty()) kernels = setup.policy.graded_kernels();
  if (kernels.empty()) {
    for (const auto& kernel : setup.reference.kernels) kernels.push_back(kernel.name);
  }
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

class Grading {
 public:
  Grading(const Options& options, Setup& setup, Reporter& reporter, GpuInfo gpu, bool needs_gpu)
      : options_(options), setup_(setup), reporter_(reporter), gpu_(std::move(gpu)), needs_gpu_(needs_gpu) {}

  void run(std::vector<RowResult>& rows, std::uint64_t run_seed) {
    PrepareOptions prepare{options_.cache_dir, options_.format_limit_bytes, run_seed};
    for (const auto& entry : setup_.cases) {
      std::vector<std::size_t> indices;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].case_name == entry.test_case.name) indices.push_back(i);
      }
      grade_case(entry, rows, indices, prepare);
    }
  }

  [[nodiscard]] int cases_checked_on_host() const { return cases_checked_on_host_; }
  [[nodiscard]] bool gpu_missing() const { return needs_gpu_ && gpu_.count == 0; }

 private:
  std::set<spmv_format> formats_of(const std::vector<RowResult>& rows, const std::vector<std::size_t>& indices) const {
    std::set<spmv_format> formats;
    for (const auto i : indices) formats.insert(setup_.reference.find(rows[i].kernel)->format);
    return formats;
  }

  void finish_all(std::vector<RowResult>& rows, const std::vector<std::size_t>& indices, Verdict verdict,
                  const std::string& cause, const std::string& why) {
    for (const auto i : indices) {
      reporter_.row_started(rows, i);
      set_verdict(rows[i], verdict, cause, why);
      reporter_.row_finished(rows, i);
    }
  }

  void grade_case(const CaseEntry& entry, std::vector<RowResult>& rows, const std::vector<std::size_t>& indices,
                  const PrepareOptions& prepare) {
    PreparedCase prepared;
    try {
      prepared = prepare_case(entry.test_case, formats_of(rows, indices), prepare);
    } catch (const PrepareError& e) {
      finish_all(rows, indices, Verdict::kCaseError, "case_error", "case " + entry.test_case.name + ": " + e.what());
      return;
    }
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
        return;
      }
    }
    for (const auto i : indices) {
      reporter_.row_started(rows, i);
      grade_row(rows[i], prepared);
      reporter_.row_finished(rows, i);
    }
  }

  void grade_row(RowResult& row, PreparedCase& prepared) {
    const KernelInfo& reference_kernel = *setup_.reference.find(row.kernel);
    if (!setup_.submission.loaded) {
      set_verdict(row, Verdict::kLoadError, "load_error", setup_.submission.error);
      return;
    }
    if (const auto refused = prepared.refused.find(reference_kernel.format); refused != prepared.refused.end()) {
      set_verdict(row, Verdict::kNotApplicable, "format_refused", refused->second);
      return;
    }
    if (gpu_missing()) {
      // The reason is given once, in the run's notes.
      set_verdict(row, Verdict::kSkipped, "no_gpu", "");
      return;
    }
    const KernelInfo* submission_kernel = setup_.submission.find(row.kernel);
    if (submission_kernel == nullptr) {
      set_verdict(row, Verdict::kNotImplemented, "missing_kernel",
                  "the submission has no kernel named " + row.kernel + " (it has: " +
                      setup_.submission.kernel_names() + ")");
      return;
    }
    if (submission_kernel->format != reference_kernel.format) {
      set_verdict(row, Verdict::kLoadError, "format_mismatch",
                  "the submission's kernel " + row.kernel + " takes a " + format_name(submission_kernel->format) +
                      " view; it must take a " + format_name(reference_kernel.format) + " view");
      return;
    }
    run_child(row, prepared, reference_kernel.format);
  }

  void run_child(RowResult& row, PreparedCase& prepared, spmv_format format) {
    const RowChannel channel(prepared.csr.rows);
    RowTask task;
    task.prepared = &prepared;
    task.kernel = row.kernel;
    task.format = format;
    task.submission = setup_.submission.path;
    task.reference = setup_.reference.path;
    task.memory = setup_.reference.memory;
    task.device = options_.device;
    task.timing = {options_.min_runs, options_.max_runs, options_.warmup_runs, options_.min_time_ms};
    task.measure_cusparse = options_.cusparse && !prepared.cusparse_ms;
    const auto log = logs_dir(options_) / (file_name_part(row.kernel) + "__" + file_name_part(row.case_name) + ".log");
    const ChildExit exit = run_isolated([&] { run_row_child(task, channel); }, options_.timeout_s, log);
    judge_row(row, exit, channel, RowContext{prepared, format, options_.timeout_s, gpu_.copy_gbps, log});
    if (row.cusparse_ms && !prepared.cusparse_ms) prepared.cusparse_ms = row.cusparse_ms;
  }

  const Options& options_;
  Setup& setup_;
  Reporter& reporter_;
  GpuInfo gpu_;
  bool needs_gpu_;
  int cases_checked_on_host_ = 0;
};

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
                                            logs_dir(options) / "probe-gpu.log")
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
