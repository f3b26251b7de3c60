// spmv-bench: times the reference kernels against cuSPARSE on large sparse
// matrices (see --help, and docs/performance.md for the method).
//
// Per matrix: the host builds it and every format the selected kernels need
// (the next matrix is built while the GPU times this one); then for every
// kernel: poison y, one call, check against the golden result; only a
// correct kernel is timed, and its y is checked again after the timed calls.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/reference/plan_layout.hpp"
#include "spmv_bench/cuda_check.hpp"
#include "spmv_bench/kernels.hpp"
#include "spmv_bench/options.hpp"
#include "spmv_bench/report.hpp"
#include "spmv_bench/suite.hpp"
#include "spmv_bench/threshold_sweep.hpp"
#include "spmv_bench/timing.hpp"
#include "spmv_bench/workload.hpp"

namespace spmv::bench {
namespace {

// cuda-samples' "waived" code: CTest's SKIP_RETURN_CODE shows it as skipped.
constexpr int kExitNoGpu = 2;

std::vector<const KernelInfo*> select_kernels(const std::vector<KernelInfo>& catalogue,
                                              const std::vector<std::string>& filters) {
  std::vector<const KernelInfo*> selected;
  bool any_match = false;
  for (const KernelInfo& kernel : catalogue) {
    const bool match = kernel_selected(filters, kernel.name);
    any_match = any_match || match;
    if (match || kernel.name == kBaselineKernel) selected.push_back(&kernel);
  }
  if (!any_match) {
    std::string names;
    for (const KernelInfo& kernel : catalogue) names += " " + kernel.name;
    throw UsageError("no kernel name contains any --kernel text; the kernels are:" + names);
  }
  return selected;
}

std::set<HostFormat> formats_needed(const std::vector<const KernelInfo*>& kernels) {
  std::set<HostFormat> formats;
  for (const KernelInfo* kernel : kernels) {
    if (kernel->host_format) formats.insert(*kernel->host_format);
  }
  return formats;
}

void print_list(const std::vector<KernelInfo>& catalogue) {
  std::cout << "Suite matrices (--suite NAME): the full-size spec, then the --quick one\n";
  for (const SuiteEntry& entry : benchmark_suite()) {
    std::cout << "  " << entry.name << ": " << entry.exercises << "\n      " << entry.spec << "\n      "
              << entry.quick_spec << '\n';
  }
  std::cout << "\nKernels (--kernel TEXT selects names containing TEXT)\n";
  for (const KernelInfo& kernel : catalogue) {
    std::cout << "  " << kernel.name << " [" << kernel.provider << ", " << kernel.format << "]: " << kernel.description
              << '\n';
  }
}

// --plans: auto's plan for each matrix as CsrAutoPlan::build lays it out
// (plan::lay_out_plan, on the host: no GPU), with the bytes of matrix data
// one product reads (x and y not counted), a row: CSR's values, columns and
// row pointers; the sliced ELL spmv-bench gives cuSPARSE (slices of 32,
// 4-byte columns, 4-byte slice offsets); the plan's (packed slices replace
// CSR's arrays; tiles and the rule read CSR's and the plan's).
void print_plans(const std::vector<MatrixSource>& sources) {
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %9s %10s %8s %8s %8s %7s %9s  %s\n", static_cast<int>(kLabelWidth), "matrix",
                "rows", "nnz", "CSR", "cs:SELL", "plan", "/SELL", "layout ms", "plan");
  std::cout << "auto's plan, laid out on the host; bytes of matrix data a product reads, a row (x and y not counted)\n"
            << line;
  for (const MatrixSource& source : sources) {
    const CsrMatrix a = source.load();
    const reference::plan::HostCsr host{a.rows, a.cols, a.row_ptr, a.col_idx, a.values};
    const auto start = std::chrono::steady_clock::now();
    const reference::plan::HostPlan laid = reference::plan::lay_out_plan(host);
    const double layout_ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3;
    const double rows = std::max(1.0, static_cast<double>(a.rows));
    const double csr = 8.0 * a.nnz() + 4.0 * (static_cast<double>(a.rows) + 1.0);
    const double slices = std::ceil(static_cast<double>(a.rows) / static_cast<double>(kSlicedEllSliceSize));
    const double sell = 8.0 * static_cast<double>(reference::plan::sliced_ell_slots(a.row_ptr)) + 4.0 * (slices + 1.0);
    double plan = csr;
    if (laid.slices) plan = static_cast<double>(laid.slices->bytes());
    if (laid.tiles) plan = csr + static_cast<double>(laid.tiles->bytes());
    std::snprintf(line, sizeof line, "%-*s %9d %10d %8.2f %8.2f %8.2f %7.3f %9.1f  %s\n", static_cast<int>(kLabelWidth),
                  source.label.c_str(), a.rows, a.nnz(), csr / rows, sell / rows, plan / rows, plan / sell, layout_ms,
                  laid.description.c_str());
    std::cout << line << std::flush;
  }
}

void print_setup(const BenchOptions& options, cusparseHandle_t cusparse) {
  cudaDeviceProp properties{};
  SPMV_CUDA_CHECK(cudaGetDeviceProperties(&properties, options.device));
  int runtime = 0;
  int driver = 0;
  int cusparse_version = 0;
  SPMV_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  SPMV_CUDA_CHECK(cudaDriverGetVersion(&driver));
  SPMV_CUSPARSE_CHECK(cusparseGetVersion(cusparse, &cusparse_version));
  std::cout << "device " << options.device << ": " << properties.name << ", " << properties.multiProcessorCount
            << " SMs, " << properties.l2CacheSize / (1 << 20) << " MiB L2, "
            << properties.totalGlobalMem / (std::size_t{1} << 20) << " MiB memory, compute capability "
            << properties.major << '.' << properties.minor << "\nCUDA runtime " << runtime << ", driver " << driver
            << ", cuSPARSE " << cusparse_version << "\nx seed " << options.seed
            << "; timing: " << options.timing.warmup_runs << " warm-up calls, then at least " << options.timing.min_runs
            << " calls and " << options.timing.min_seconds << " s per kernel (at most " << options.timing.max_seconds
            << " s)\n";
}

void print_copy_bandwidth(const CopyBandwidth& copy) {
  std::cout << "device-to-device copy of " << (copy.bytes_per_copy >> 20) << " MiB: median " << copy.timing.median_ms
            << " ms over " << copy.timing.samples << " copies = " << copy.gb_per_s << " GB/s (bytes read + written)\n"
            << std::flush;
}

// After a failure: false when the CUDA context is broken for good (a sticky
// error such as an illegal address), so no further kernel can be trusted.
bool device_still_usable() {
  cudaGetLastError();  // clears an error that is not sticky
  return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess;
}

ToleranceVerdict check_y(const DeviceWorkload& w) {
  const HostWorkload& host = w.host();
  const std::vector<float> y = w.download_y();
  return check_result(host.csr, host.x, host.golden, y);
}

// One call on a poisoned (or zeroed) y; nullopt when the kernel is not
// implemented.
std::optional<ToleranceVerdict> check_first_call(const KernelInfo& kernel, Launcher& launcher, DeviceWorkload& w,
                                                 cudaStream_t stream) {
  w.fill_y(kernel.poison_y ? kPoisonBits : 0U);
  if (!launcher.enqueue()) return std::nullopt;
  SPMV_CUDA_CHECK(cudaStreamSynchronize(stream));
  SPMV_CUDA_CHECK(cudaGetLastError());
  return check_y(w);
}

struct KernelRun {
  ResultRow row;
  bool device_lost = false;
};

KernelRun run_kernel(const KernelInfo& kernel, DeviceWorkload& w, const BenchContext& context,
                     runner::Executor& executor, const TimingOptions& timing) {
  KernelRun run;
  ResultRow& row = run.row;
  row.matrix = w.host().source.label;
  row.kernel = kernel.name;
  row.provider = kernel.provider;
  row.format = kernel.format;
  try {
    const std::unique_ptr<Launcher> launcher = kernel.make(w, context);
    const std::optional<ToleranceVerdict> first = check_first_call(kernel, *launcher, w, context.stream);
    if (!first) {
      row.outcome = Outcome::kNotImplemented;
      row.detail = "the kernel returned SPMV_NOT_IMPLEMENTED";
      return run;
    }
    if (!first->passed) {
      row.outcome = Outcome::kWrong;
      row.detail = first->describe();
      return run;
    }
    row.timing = time_calls(
        executor, [&launcher] { return launcher->enqueue(); }, timing);
    const ToleranceVerdict last = check_y(w);
    if (!last.passed) {
      row.outcome = Outcome::kWrong;
      row.detail = "correct on its first call, wrong after " + std::to_string(row.timing.samples) +
                   " timed calls: " + last.describe();
      return run;
    }
    row.outcome = Outcome::kTimed;
    if (kernel.note) row.detail = kernel.note(w);
    if (std::string note = launcher->note(); !note.empty()) row.detail = std::move(note);
  } catch (const NotApplicable& why) {
    row.outcome = Outcome::kNotApplicable;
    row.detail = why.what();
  } catch (const std::exception& error) {
    row.outcome = Outcome::kFailed;
    row.detail = error.what();
    run.device_lost = !device_still_usable();
  }
  return run;
}

// Runs `kernels` on the matrix, the rows into the report; returns them, or
// nullopt when the device was lost and the run must stop.
std::optional<std::vector<ResultRow>> run_matrix(HostWorkload& host, const std::vector<const KernelInfo*>& kernels,
                                                 const BenchContext& context, runner::Executor& executor,
                                                 const TimingOptions& timing, Report& report) {
  report.begin_matrix(host);
  // The copy of the same bytes first: model_bytes / 2 read and as many
  // written, timed as the kernels are.
  report.set_matrix_copy(time_copy(executor, static_cast<std::size_t>(model_bytes(host.stats) / 2), timing));
  DeviceWorkload device(host);
  std::vector<ResultRow> rows;
  for (const KernelInfo* kernel : kernels) {
    const KernelRun run = run_kernel(*kernel, device, context, executor, timing);
    report.add(run.row);
    rows.push_back(run.row);
    if (run.device_lost) {
      report.abort_run("the CUDA context is unusable after " + kernel->name + " on " + host.source.label);
      return std::nullopt;
    }
  }
  return rows;
}

// Each source prepared on the host (`prepare`, on a thread of its own, the
// next one while the GPU runs this one), then run (`run`: false stops).
// A source that fails to prepare is reported and skipped.
template <typename Prepared>
void for_each_prepared(const std::vector<MatrixSource>& sources,
                       const std::function<Prepared(const MatrixSource&)>& prepare,
                       const std::function<bool(Prepared&)>& run, Report& report) {
  if (sources.empty()) return;
  const auto prepare_async = [&prepare](const MatrixSource& source) {
    return std::async(std::launch::async, [&prepare, &source] { return prepare(source); });
  };
  std::future<Prepared> next = prepare_async(sources.front());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    std::optional<Prepared> prepared;
    try {
      prepared.emplace(next.get());
    } catch (const std::exception& error) {
      report.matrix_failed(sources[i], error.what());
    }
    if (i + 1 < sources.size()) next = prepare_async(sources[i + 1]);
    if (!prepared) continue;
    try {
      if (!run(*prepared)) return;
    } catch (const CudaError& error) {
      // The uploads of this matrix failed (e.g. out of device memory).
      report.abort_run("matrix " + sources[i].label + ": " + error.what());
      return;
    }
  }
}

void run_all(const std::vector<MatrixSource>& sources, const std::vector<const KernelInfo*>& kernels,
             const BenchOptions& options, const BenchContext& context, runner::Executor& executor, Report& report) {
  const std::set<HostFormat> formats = formats_needed(kernels);
  for_each_prepared<HostWorkload>(
      sources, [&](const MatrixSource& source) { return prepare_host_workload(source, formats, options.seed); },
      [&](HostWorkload& host) {
        std::vector<KernelInfo> candidate_kernels;
        std::vector<const KernelInfo*> order = kernels;
        if (options.candidates) {
          candidate_kernels = auto_candidate_kernels(host.csr);
          for (const KernelInfo& kernel : candidate_kernels) order.push_back(&kernel);
        }
        return run_matrix(host, order, context, executor, options.timing, report).has_value();
      },
      report);
}

// --sweep-thresholds: on each of the sweep's matrices, cuSPARSE's
// algorithms and every distinct plan the thresholds' values lay out
// (sweep::variants_for); then the sweep's rows (CSV) and its summary.
struct SweepMatrix {
  std::size_t index = 0;
  HostWorkload host;
  sweep::MatrixFigures figures;
};

sweep::MatrixResult sweep_result(const SweepMatrix& matrix, const std::vector<sweep::Variant>& variants,
                                 const std::vector<ResultRow>& rows) {
  sweep::MatrixResult result;
  result.matrix = matrix.index;
  result.figures = matrix.figures;
  for (const ResultRow& row : rows) {
    if (row.provider == kCusparseProvider) {
      if (row.outcome == Outcome::kTimed &&
          (result.best_cusparse.empty() || row.timing.median_ms < result.best_cusparse_ms)) {
        result.best_cusparse = row.kernel;
        result.best_cusparse_ms = row.timing.median_ms;
      }
      continue;
    }
    sweep::KernelTiming timing;
    timing.status = outcome_label(row.outcome);
    timing.ms = row.outcome == Outcome::kTimed ? row.timing.median_ms : 0.0;
    timing.note = row.detail;
    for (const sweep::Variant& variant : variants) {
      if (variant.kernel == row.kernel && row.outcome == Outcome::kTimed) {
        timing.mismatch = sweep::check_note(variant, row.detail);
      }
    }
    result.kernels[row.kernel] = timing;
  }
  return result;
}

// Whether there is a CUDA GPU (else says so); throws UsageError for a
// --device past the last one.
bool gpu_found(int device) {
  const int devices = cuda_device_count();
  if (devices == 0) {
    std::cout << "no CUDA GPU: spmv-bench needs one\n";
    return false;
  }
  if (device >= devices) {
    throw UsageError("--device " + std::to_string(device) + ": there are only " + std::to_string(devices) +
                     " CUDA devices");
  }
  return true;
}

int run_sweep(const BenchOptions& options, const std::vector<KernelInfo>& catalogue) {
  std::vector<sweep::Threshold> thresholds;
  try {
    thresholds = sweep::thresholds_named(options.sweep_thresholds);
  } catch (const std::invalid_argument& error) {
    throw UsageError(std::string("--sweep-thresholds: ") + error.what());
  }
  const sweep::SweepPlan plan = sweep::plan_sweep(thresholds, options.sources.quick);
  if (!gpu_found(options.device)) return kExitNoGpu;
  // The sweep's rows, a matrix's as soon as it has run (a run cut short
  // keeps what it measured).
  std::ofstream csv;
  if (options.csv_path) {
    csv.open(*options.csv_path);
    if (!csv) throw std::runtime_error("cannot write the CSV file " + options.csv_path->string());
    csv << sweep::kCsvHeader << '\n' << std::flush;
  }
  std::vector<const KernelInfo*> cusparse;
  for (const KernelInfo& kernel : catalogue) {
    if (kernel.provider == kCusparseProvider) cusparse.push_back(&kernel);
  }
  Report report(std::cout, std::nullopt);
  const std::unique_ptr<runner::Executor> executor = runner::make_device_executor(options.device);
  const CusparseHandle handle(executor->stream());
  print_setup(options, handle.get());
  const CopyBandwidth copy = measure_copy_bandwidth(*executor, options.copy_bytes);
  print_copy_bandwidth(copy);
  report.set_copy_bandwidth(copy.gb_per_s);
  const BenchContext context{executor->stream(), handle.get()};

  const std::set<HostFormat> formats = formats_needed(cusparse);
  std::vector<sweep::MatrixResult> results;
  for_each_prepared<SweepMatrix>(
      plan.matrices,
      [&](const MatrixSource& source) {
        SweepMatrix matrix;
        matrix.index = static_cast<std::size_t>(&source - plan.matrices.data());
        matrix.host = prepare_host_workload(source, formats, options.seed);
        matrix.figures = sweep::figures_of(matrix.host.csr);
        return matrix;
      },
      [&](SweepMatrix& matrix) {
        const std::vector<sweep::Variant> variants = sweep::variants_for(plan, matrix.index, matrix.figures);
        std::vector<KernelInfo> plan_kernels;
        for (const sweep::Variant& variant : variants) {
          plan_kernels.push_back(plan_kernel(variant.kernel, variant.description, variant.request, variant.settings));
        }
        std::vector<const KernelInfo*> order = cusparse;
        for (const KernelInfo& kernel : plan_kernels) order.push_back(&kernel);
        const std::optional<std::vector<ResultRow>> rows =
            run_matrix(matrix.host, order, context, *executor, options.timing, report);
        if (!rows) return false;
        results.push_back(sweep_result(matrix, variants, *rows));
        if (csv.is_open()) sweep::write_csv_rows(csv, sweep::rows_of(plan, {results.back()}));
        return true;
      },
      report);

  report.print_summary();
  sweep::print_summary(std::cout, plan, results);
  bool mismatch = false;
  for (const sweep::MatrixResult& result : results) {
    for (const auto& [kernel, timing] : result.kernels) mismatch = mismatch || !timing.mismatch.empty();
  }
  return report.any_failure() || mismatch || results.size() != plan.matrices.size() ? 1 : 0;
}

int run(int argc, const char* const argv[]) {
  const BenchOptions options = parse_options(argc, argv);
  if (options.help) {
    std::cout << help_text();
    return 0;
  }
  std::vector<MatrixSource> sources;
  try {
    sources = resolve_sources(options.sources);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  if (options.write_cases) {
    write_case_folder(sources, *options.write_cases);
    std::cout << "wrote " << sources.size() << " cases to " << (*options.write_cases / "cases.ini").string()
              << "; grade them with spmv-grade --cases " << options.write_cases->string() << '\n';
    return 0;
  }
  const std::vector<KernelInfo> catalogue = kernel_catalogue(*SPMV_PLUGIN_ENTRY());
  if (options.list) {
    print_list(catalogue);
    return 0;
  }
  if (options.plans) {
    print_plans(sources);
    return 0;
  }
  if (!options.sweep_thresholds.empty()) return run_sweep(options, catalogue);
  const std::vector<const KernelInfo*> kernels = select_kernels(catalogue, options.kernel_filters);

  if (!gpu_found(options.device)) return kExitNoGpu;
  Report report(std::cout, options.csv_path);
  // The grader's executor: its stream, its events, its wait after each call.
  const std::unique_ptr<runner::Executor> executor = runner::make_device_executor(options.device);
  const CusparseHandle cusparse(executor->stream());
  print_setup(options, cusparse.get());
  const CopyBandwidth copy = measure_copy_bandwidth(*executor, options.copy_bytes);
  print_copy_bandwidth(copy);
  report.set_copy_bandwidth(copy.gb_per_s);

  run_all(sources, kernels, options, BenchContext{executor->stream(), cusparse.get()}, *executor, report);
  report.print_summary();
  return report.any_failure() ? 1 : 0;
}

}  // namespace
}  // namespace spmv::bench

int main(int argc, char* argv[]) {
  try {
    return spmv::bench::run(argc, argv);
  } catch (const spmv::bench::UsageError& error) {
    std::cerr << "spmv-bench: " << error.what() << "\n(spmv-bench --help shows the options)\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "spmv-bench: " << error.what() << '\n';
    return 1;
  }
}
