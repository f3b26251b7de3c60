#include "spmv_bench/options.hpp"

#include <boost/program_options.hpp>

#include <random>
#include <sstream>

namespace spmv::bench {
namespace po = boost::program_options;
namespace {

constexpr const char* kUsage = "Usage: spmv-bench [options]";

constexpr const char* kDescription = R"(
Times every reference kernel and cuSPARSE (CSR ALG1 and ALG2, COO, sliced ELL)
on sparse matrices, after checking each result against the fp64 golden SpMV
with the grader's tolerance. A kernel whose result is wrong is reported as
WRONG and not timed. Without --matrix or --spec, runs the built-in suite of
generated matrices (--list shows it), each beyond the 50 MB L2 of an H100;
--suite real runs the real matrices tools/fetch-matrices wrote. Each matrix
also times a device-to-device copy of the same bytes, and the summary gives
each kernel's speedup over the fastest cuSPARSE algorithm of any format, by
suite and, for the real suite, by half (tuning and validation) apart.
)";

constexpr const char* kMetrics = R"(
Columns:
  ms       median time of one call (CUDA events on one stream, after warm-up)
  GFLOP/s  2 * nnz / time
  GB/s     bytes / time with, for every kernel and format,
             bytes = 8*nnz + 4*(rows+1) + 4*cols + 4*rows
           the compulsory traffic of CSR: values and column indices, row
           pointers, x read once, y written once. One model for all kernels,
           so GB/s compares kernels on the same matrix; formats with padding
           or extra indices (row indices, permutations) move more than that.
  %copy    GB/s as a percentage of the measured device-to-device copy
           bandwidth (bytes read + bytes written)
  vs ALG1  speedup over cuSPARSE CSR ALG1 on the same matrix (always run)
Summary:
  vs best  speedup over the fastest cuSPARSE algorithm timed on the matrix
           (CSR ALG1, CSR ALG2, COO ALG1, SELL ALG1)
  %samecopy  the time of a device-to-device copy of the same bytes
           (bytes / 2 read, bytes / 2 written) over the kernel's time: the
           physical limit, launch latency included, for a small matrix too

Exit status: 0 every kernel run was correct; 1 a kernel was WRONG or failed, a
matrix could not be loaded, or the command line is wrong; 2 no CUDA GPU.
)";

po::options_description option_table() {
  po::options_description options("Options");
  options.add_options()("help,h", "show this text")(
      "list", "list the suite's matrices and the kernels, then exit (needs no GPU)")(
      "plans",
      "lay out auto's plan for each matrix on the host and print its kind and bytes a row against CSR and "
      "cuSPARSE's sliced ELL, then exit (needs no GPU)")(
      "write-cases", po::value<std::string>(),
      "DIR: write the chosen matrices as a case folder (DIR/cases.ini: generator specs, Matrix Market "
      "files copied beside it) for spmv-grade --cases DIR, then exit (needs no GPU)")(
      "suite", po::value<std::vector<std::string>>()->composing(),
      "NAME|all|real: a matrix of the built-in suite, all of it, or the real matrices "
      "(repeatable); all is the default when no --matrix or --spec is given")(
      "real-matrices", po::value<std::string>(),
      "DIR: where --suite real finds index.tsv and the matrices (default matrices/real, as "
      "tools/fetch-matrices writes them)")(
      "candidates",
      "also time every kernel auto's rule could pick on each matrix, and each kind of auto's plan forced "
      "(auto=... rows)")(
      "sweep-thresholds", po::value<std::string>(),
      "LIST: all, or comma-separated names of the thresholds of auto's plan (slices_min_path, slices_max_mean, "
      "slices_max_padding, slices_max_bytes, slice_kernel, short_slice_kernel): time auto's plan at several values "
      "of each on the sweep's own generated matrices (not --suite, --matrix or --spec; smaller with --quick), with "
      "cuSPARSE's algorithms, and summarize each threshold last; --csv FILE gets the sweep's rows "
      "(docs/performance.md)")("matrix", po::value<std::vector<std::string>>()->composing(),
                               "FILE.mtx[.gz]: a Matrix Market file (repeatable)")(
      "spec", po::value<std::vector<std::string>>()->composing(),
      "\"KIND key=value ...\": a generated matrix (repeatable), e.g. "
      "\"random rows=1000000 cols=1000000 per_row=8\"")(
      "kernel", po::value<std::vector<std::string>>()->composing(),
      "TEXT: run only kernels whose name contains TEXT (repeatable); cusparse_csr_alg1 "
      "always runs as the baseline")("iterations", po::value<int>(),
                                     "timed calls per kernel, at least (default 50, --quick 10)")(
      "min-time", po::value<double>(), "seconds of timed calls per kernel, at least (default 0.3, --quick 0.02)")(
      "max-time", po::value<double>(),
      "stop timing a slow kernel after this many seconds, whatever --iterations says "
      "(default 5, --quick 1)")("warmup", po::value<int>()->default_value(5), "untimed calls before timing")(
      "csv", po::value<std::string>(), "FILE: write every result row as CSV")(
      "quick", "small matrices and short timing: a smoke test, not a measurement")(
      "seed", po::value<std::uint64_t>(), "seed of the x vector (default: random, printed)")(
      "device", po::value<int>()->default_value(0), "CUDA device to run on");
  return options;
}

template <typename T>
T value_or(const po::variables_map& values, const char* name, T fallback) {
  return values.count(name) != 0 ? values[name].as<T>() : fallback;
}

std::vector<std::string> strings(const po::variables_map& values, const char* name) {
  return value_or(values, name, std::vector<std::string>{});
}

void validate(const BenchOptions& options) {
  if (options.timing.min_runs < 1) throw UsageError("--iterations must be at least 1");
  if (!(options.timing.min_seconds >= 0)) throw UsageError("--min-time must be >= 0");
  if (!(options.timing.max_seconds > 0)) throw UsageError("--max-time must be > 0");
  if (options.timing.warmup_runs < 0) throw UsageError("--warmup must be >= 0");
  if (options.device < 0) throw UsageError("--device must be >= 0");
}

}  // namespace

BenchOptions parse_options(int argc, const char* const argv[]) {
  po::variables_map values;
  try {
    // No positional arguments: a stray word is an error, not ignored.
    const po::positional_options_description no_positionals;
    po::store(po::command_line_parser(argc, argv).options(option_table()).positional(no_positionals).run(), values);
    po::notify(values);
  } catch (const po::error& error) {
    throw UsageError(error.what());
  }

  BenchOptions options;
  options.help = values.count("help") != 0;
  options.list = values.count("list") != 0;
  options.plans = values.count("plans") != 0;
  if (values.count("write-cases") != 0) options.write_cases = values["write-cases"].as<std::string>();
  const bool quick = values.count("quick") != 0;

  options.sources.quick = quick;
  options.sources.suite_names = strings(values, "suite");
  for (const std::string& file : strings(values, "matrix")) options.sources.matrix_files.emplace_back(file);
  options.sources.specs = strings(values, "spec");
  if (options.sources.suite_names.empty() && options.sources.matrix_files.empty() && options.sources.specs.empty()) {
    options.sources.suite_names.push_back("all");
  }
  if (values.count("real-matrices") != 0) options.sources.real_folder = values["real-matrices"].as<std::string>();
  options.kernel_filters = strings(values, "kernel");
  options.candidates = values.count("candidates") != 0;
  if (values.count("sweep-thresholds") != 0) {
    for (const char* other : {"suite", "matrix", "spec", "candidates", "plans", "write-cases", "kernel", "list"}) {
      if (values.count(other) != 0) {
        throw UsageError(std::string("--sweep-thresholds runs its own matrices and kernels: not with --") + other);
      }
    }
    std::istringstream list(values["sweep-thresholds"].as<std::string>());
    for (std::string name; std::getline(list, name, ',');) {
      if (!name.empty()) options.sweep_thresholds.push_back(name);
    }
    if (options.sweep_thresholds.empty()) throw UsageError("--sweep-thresholds: no threshold named");
  }

  options.timing.warmup_runs = values["warmup"].as<int>();
  options.timing.min_runs = value_or(values, "iterations", quick ? 10 : 50);
  options.timing.min_seconds = value_or(values, "min-time", quick ? 0.02 : 0.3);
  options.timing.max_seconds = value_or(values, "max-time", quick ? 1.0 : 5.0);
  if (values.count("csv") != 0) options.csv_path = values["csv"].as<std::string>();
  options.seed = value_or(values, "seed", std::uint64_t{std::random_device{}()});
  options.device = values["device"].as<int>();
  // 1 GiB each way: far beyond L2, so the copy measures device memory.
  options.copy_bytes = quick ? std::size_t{64} << 20 : std::size_t{1} << 30;
  validate(options);
  return options;
}

std::string help_text() {
  std::ostringstream text;
  text << kUsage << '\n' << kDescription << '\n' << option_table() << kMetrics;
  return text.str();
}

bool kernel_selected(const std::vector<std::string>& filters, const std::string& kernel_name) {
  if (filters.empty()) return true;
  for (const std::string& filter : filters) {
    if (kernel_name.find(filter) != std::string::npos) return true;
  }
  return false;
}

}  // namespace spmv::bench
