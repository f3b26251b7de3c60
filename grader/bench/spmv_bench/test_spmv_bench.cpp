// Host-side parts of spmv-bench: the sliced ELL layout handed to cuSPARSE,
// the matrix list, the command line, the kernel catalogue, the byte model
// and the report. The GPU parts run only on a GPU machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/cases.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/matrix_market.hpp"
#include "spmv_bench/kernels.hpp"
#include "spmv_bench/options.hpp"
#include "spmv_bench/report.hpp"
#include "spmv_bench/sliced_ell.hpp"
#include "spmv_bench/suite.hpp"

namespace spmv::bench {
namespace {

// 5 x 4, rows of 2, 1, 0, 3 and 1 entries.
CsrMatrix five_by_four() {
  CsrMatrix a;
  a.rows = 5;
  a.cols = 4;
  a.row_ptr = {0, 2, 3, 3, 6, 7};
  a.col_idx = {0, 2, 1, 0, 1, 3, 2};
  a.values = {1, 2, 3, 4, 5, 6, 7};
  return a;
}

TEST(SlicedEll, LaysOutSlicesColumnMajorWithPaddedLastSlice) {
  const SlicedEllMatrix sell = to_sliced_ell(five_by_four(), 2);
  // Slice 0: rows 0-1, width 2. Slice 1: rows 2-3, width 3. Slice 2: row 4
  // and a padding row, width 1.
  EXPECT_EQ(sell.slice_offsets, (std::vector<index_t>{0, 4, 10, 12}));
  EXPECT_EQ(sell.col_idx, (std::vector<index_t>{0, 1, 2, -1, /**/ -1, 0, -1, 1, -1, 3, /**/ 2, -1}));
  EXPECT_EQ(sell.values, (std::vector<value_t>{1, 3, 2, 0, /**/ 0, 4, 0, 5, 0, 6, /**/ 7, 0}));
  EXPECT_EQ(sell.nnz, 7);
  EXPECT_EQ(sell.slices(), 3);
  EXPECT_EQ(sliced_ell_slots(five_by_four(), 2), 12u);
}

// Reads row `row` back out of the layout: its entries in slot order, and
// checks that every slot after them is padding.
void expect_row_round_trips(const SlicedEllMatrix& sell, const CsrMatrix& csr, index_t row) {
  const index_t slice = row / sell.slice_size;
  const index_t local = row % sell.slice_size;
  const index_t begin = sell.slice_offsets[slice];
  const index_t width = (sell.slice_offsets[slice + 1] - begin) / sell.slice_size;
  ASSERT_GE(width, csr.row_length(row)) << "row " << row;
  for (index_t k = 0; k < width; ++k) {
    const auto slot = static_cast<std::size_t>(begin + k * sell.slice_size + local);
    if (k < csr.row_length(row)) {
      ASSERT_EQ(sell.col_idx[slot], csr.col_idx[csr.row_ptr[row] + k]) << "row " << row << " slot " << k;
      ASSERT_EQ(sell.values[slot], csr.values[csr.row_ptr[row] + k]) << "row " << row << " slot " << k;
    } else {
      ASSERT_EQ(sell.col_idx[slot], SlicedEllMatrix::kPaddingColumn) << "row " << row << " slot " << k;
      ASSERT_EQ(sell.values[slot], 0.0f) << "row " << row << " slot " << k;
    }
  }
}

TEST(SlicedEll, HoldsEveryEntryOfGeneratedMatricesInRowOrder) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Skewed rows, empty rows, and a row count that is not a multiple of 32.
  const std::vector<std::string> specs = {
      "powerlaw rows=3001 cols=2000 alpha=1.5 max_row=700 seed=" + std::to_string(seed),
      "random rows=1037 cols=900 per_row=9 empty_fraction=0.2 seed=" + std::to_string(seed),
  };
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec);
    const CsrMatrix csr = gen::generate(spec);
    SlicedEllLimits any_padding;
    any_padding.max_slots_per_entry = 1e9;
    for (const index_t slice_size : {1, 7, 32}) {
      const SlicedEllMatrix sell = to_sliced_ell(csr, slice_size, any_padding);
      ASSERT_EQ(sell.slots(), sliced_ell_slots(csr, slice_size));
      ASSERT_EQ(sell.slice_offsets.back(), static_cast<index_t>(sell.slots()));
      ASSERT_EQ(sell.slices(), (csr.rows + slice_size - 1) / slice_size);
      for (index_t row = 0; row < csr.rows; ++row) expect_row_round_trips(sell, csr, row);
    }
  }
}

TEST(SlicedEll, RefusesBeyondTheByteLimitBeforeAllocating) {
  const CsrMatrix csr = five_by_four();
  SlicedEllLimits limits;
  limits.memory.max_bytes = 12 * 8 - 1;  // one byte short of the 12 slots
  EXPECT_THROW(to_sliced_ell(csr, 2, limits), ConversionRefused);
  limits.memory.max_bytes = 12 * 8;
  EXPECT_NO_THROW(to_sliced_ell(csr, 2, limits));
  EXPECT_THROW(to_sliced_ell(csr, 0), std::invalid_argument);
}

TEST(SlicedEll, RefusesMostlyPadding) {
  // 12 slots for 7 entries.
  SlicedEllLimits limits;
  limits.max_slots_per_entry = 12.0 / 7.0 * 0.99;
  EXPECT_THROW(to_sliced_ell(five_by_four(), 2, limits), ConversionRefused);
  limits.max_slots_per_entry = 12.0 / 7.0 * 1.01;
  EXPECT_NO_THROW(to_sliced_ell(five_by_four(), 2, limits));
  try {
    to_sliced_ell(gen::generate("arrow n=64"), 32);  // row 0 holds 64 entries, the rest 2
    FAIL() << "expected a refusal: 32 * 64 + 32 * 2 slots for 190 entries";
  } catch (const ConversionRefused& refused) {
    EXPECT_NE(std::string(refused.what()).find("mostly padding"), std::string::npos) << refused.what();
  }
}

TEST(ByteModel, CountsValuesIndicesRowPointersXAndY) {
  const MatrixStats stats{.rows = 3, .cols = 4, .nnz = 5, .max_row_length = 2};
  // 8 * 5 + 4 * (3 + 1) + 4 * 4 + 4 * 3
  EXPECT_EQ(model_bytes(stats), 84.0);
}

TEST(ByteModel, DerivesRatesFromTheMedian) {
  const MatrixStats stats{.rows = 1000000, .cols = 1000000, .nnz = 4000000, .max_row_length = 4};
  TimingResult timing;
  timing.median_ms = 0.5;
  const Metrics m = metrics_of(stats, timing, 2000.0, 0.75);
  EXPECT_DOUBLE_EQ(m.gflops, 2.0 * 4e6 / 0.5e-3 * 1e-9);
  EXPECT_DOUBLE_EQ(m.gb_per_s, model_bytes(stats) / 0.5e-3 * 1e-9);
  EXPECT_DOUBLE_EQ(m.percent_of_copy, 100.0 * m.gb_per_s / 2000.0);
  ASSERT_TRUE(m.speedup.has_value());
  EXPECT_DOUBLE_EQ(*m.speedup, 1.5);
  EXPECT_FALSE(metrics_of(stats, timing, 2000.0, std::nullopt).speedup.has_value());
}

TEST(Suite, EveryEntryHasAValidFullAndQuickSpec) {
  for (const SuiteEntry& entry : benchmark_suite()) {
    EXPECT_LE(entry.name.size(), kLabelWidth) << entry.name;
    EXPECT_NO_THROW(gen::parse_spec(std::string(entry.spec))) << entry.name;
    EXPECT_NO_THROW(gen::parse_spec(std::string(entry.quick_spec))) << entry.name;
  }
}

TEST(Suite, QuickSizesAreSmallButNotTrivial) {
  for (const SuiteEntry& entry : benchmark_suite()) {
    const CsrMatrix a = gen::generate(std::string(entry.quick_spec));
    EXPECT_GE(a.nnz(), 100000) << entry.quick_spec;
    EXPECT_LE(a.nnz(), 2000000) << entry.quick_spec;
  }
}

TEST(Suite, ResolvesAllQuickAndRepeatedSources) {
  SourceRequest request;
  request.suite_names = {"all"};
  const auto all = resolve_sources(request);
  ASSERT_EQ(all.size(), benchmark_suite().size());
  EXPECT_EQ(all.front().origin, benchmark_suite().front().spec);

  request.quick = true;
  request.suite_names = {"powerlaw"};
  request.specs = {"random rows=10 cols=10 per_row=2", "random rows=20 cols=20 per_row=2"};
  const auto mixed = resolve_sources(request);
  ASSERT_EQ(mixed.size(), 3u);
  EXPECT_EQ(mixed[0].label, "powerlaw");
  EXPECT_NE(mixed[0].origin.find("max_row=20000"), std::string::npos) << mixed[0].origin;
  EXPECT_EQ(mixed[1].label, "random");
  EXPECT_EQ(mixed[2].label, "random#2");
}

TEST(Suite, RejectsUnknownNamesBadSpecsAndMissingFiles) {
  SourceRequest request;
  request.suite_names = {"stencil5"};
  EXPECT_THROW(resolve_sources(request), std::invalid_argument);
  request.suite_names = {};
  request.specs = {"random rows=10 cols=10"};  // per_row missing
  EXPECT_THROW(resolve_sources(request), std::invalid_argument);
  request.specs = {};
  request.matrix_files = {"/nonexistent/matrix.mtx"};
  EXPECT_THROW(resolve_sources(request), std::invalid_argument);
}

BenchOptions parse(std::vector<const char*> arguments) {
  arguments.insert(arguments.begin(), "spmv-bench");
  return parse_options(static_cast<int>(arguments.size()), arguments.data());
}

TEST(Options, DefaultsToTheWholeSuite) {
  const BenchOptions options = parse({});
  EXPECT_EQ(options.sources.suite_names, std::vector<std::string>{"all"});
  EXPECT_EQ(options.timing.min_runs, 50);
  EXPECT_FALSE(options.sources.quick);
  EXPECT_FALSE(options.csv_path.has_value());
}

TEST(Options, QuickShortensTimingUnlessTold) {
  const BenchOptions quick = parse({"--quick"});
  EXPECT_TRUE(quick.sources.quick);
  EXPECT_EQ(quick.timing.min_runs, 10);
  EXPECT_LT(quick.copy_bytes, parse({}).copy_bytes);
  EXPECT_EQ(parse({"--quick", "--iterations", "7"}).timing.min_runs, 7);
}

TEST(Options, CollectsRepeatedSourcesAndFilters) {
  const BenchOptions options =
      parse({"--spec", "diagonal n=10", "--spec", "arrow n=5", "--kernel", "csr", "--kernel", "ell", "--csv", "o.csv"});
  EXPECT_TRUE(options.sources.suite_names.empty());
  EXPECT_EQ(options.sources.specs, (std::vector<std::string>{"diagonal n=10", "arrow n=5"}));
  EXPECT_EQ(options.kernel_filters, (std::vector<std::string>{"csr", "ell"}));
  ASSERT_TRUE(options.csv_path.has_value());
  EXPECT_EQ(options.csv_path->string(), "o.csv");
}

TEST(Options, PlansAndCandidatesAreFlags) {
  EXPECT_FALSE(parse({}).plans);
  EXPECT_TRUE(parse({"--plans", "--suite", "stencil2d"}).plans);
  EXPECT_TRUE(parse({"--candidates"}).candidates);
}

TEST(Options, SweepThresholdsTakesAListAndNoMatricesOrKernelsOfItsOwn) {
  EXPECT_TRUE(parse({}).sweep_thresholds.empty());
  EXPECT_EQ(parse({"--sweep-thresholds", "all"}).sweep_thresholds, std::vector<std::string>{"all"});
  EXPECT_EQ(
      parse({"--sweep-thresholds", "slices_max_mean,,slice_kernel", "--quick", "--min-time", "0.1"}).sweep_thresholds,
      (std::vector<std::string>{"slices_max_mean", "slice_kernel"}));
  EXPECT_THROW(parse({"--sweep-thresholds", ","}), UsageError);
  EXPECT_THROW(parse({"--sweep-thresholds"}), UsageError);
  for (const std::vector<const char*>& other : {std::vector<const char*>{"--suite", "all"},
                                                {"--spec", "diagonal n=5"},
                                                {"--candidates"},
                                                {"--plans"},
                                                {"--kernel", "auto"},
                                                {"--matrix", "a.mtx"}}) {
    std::vector<const char*> arguments = {"--sweep-thresholds", "all"};
    arguments.insert(arguments.end(), other.begin(), other.end());
    EXPECT_THROW(parse(arguments), UsageError) << other.front();
  }
}

TEST(Options, RejectsBadValuesAndUnknownOptions) {
  EXPECT_THROW(parse({"--iterations", "0"}), UsageError);
  EXPECT_THROW(parse({"--iterations", "many"}), UsageError);
  EXPECT_THROW(parse({"--max-time", "0"}), UsageError);
  EXPECT_THROW(parse({"--bogus"}), UsageError);
  EXPECT_THROW(parse({"stray"}), UsageError);
}

TEST(Options, HelpStatesTheByteModel) {
  EXPECT_NE(help_text().find("8*nnz + 4*(rows+1) + 4*cols + 4*rows"), std::string::npos);
}

TEST(Options, KernelFilterMatchesSubstrings) {
  EXPECT_TRUE(kernel_selected({}, "jds"));
  EXPECT_TRUE(kernel_selected({"csr"}, "cusparse_csr_alg2"));
  EXPECT_TRUE(kernel_selected({"zzz", "vec"}, "csr_vector"));
  EXPECT_FALSE(kernel_selected({"ell"}, "csr_scalar"));
}

spmv_status fake_csr_launch(const spmv_csr_view*, const float*, float*, void*, cudaStream_t) {
  return SPMV_NOT_IMPLEMENTED;
}
spmv_status fake_jds_launch(const spmv_jds_view*, const float*, float*, void*, cudaStream_t) {
  return SPMV_NOT_IMPLEMENTED;
}

TEST(Catalogue, PutsTheBaselineFirstAndTheTableInOrder) {
  static constexpr spmv_kernel_entry kEntries[] = {
      contract::kernel_entry<&fake_jds_launch>("jds_fake", "a JDS kernel"),
      contract::kernel_entry<&fake_csr_launch>("csr_fake", "a CSR kernel"),
  };
  const spmv_plugin plugin = contract::make_plugin("fake", kEntries);
  const std::vector<KernelInfo> kernels = kernel_catalogue(plugin);
  std::vector<std::string> names;
  for (const KernelInfo& kernel : kernels) names.push_back(kernel.name);
  EXPECT_EQ(names, (std::vector<std::string>{kBaselineKernel, "jds_fake", "csr_fake", "cusparse_csr_alg2",
                                             "cusparse_coo_alg1", "cusparse_sell_alg1"}));
  EXPECT_EQ(kernels[1].provider, "fake");
  EXPECT_EQ(kernels[1].host_format, host_format(SPMV_FORMAT_JDS));
  EXPECT_FALSE(kernels[2].host_format.has_value());  // CSR is always uploaded
  EXPECT_EQ(kernels[5].host_format, HostFormat::kSlicedEll);
}

spmv_status fake_sell_launch(const spmv_sell_view*, const float*, float*, void*, cudaStream_t) {
  return SPMV_NOT_IMPLEMENTED;
}

TEST(Catalogue, ASellKernelAsksForTheSellWorkload) {
  static constexpr spmv_kernel_entry kEntries[] = {
      contract::kernel_entry<&fake_sell_launch>("sell_fake", "a SELL-C-sigma kernel"),
  };
  const spmv_plugin plugin = contract::make_plugin("fake", kEntries);
  const std::vector<KernelInfo> kernels = kernel_catalogue(plugin);
  ASSERT_GE(kernels.size(), 2U);
  EXPECT_EQ(kernels[1].name, "sell_fake");
  EXPECT_EQ(kernels[1].format, "sell");
  EXPECT_EQ(kernels[1].host_format, host_format(SPMV_FORMAT_SELL));
}

// The table's CSR "auto" is listed as auto_csr, followed by auto with a
// plan (the verdict's subject); their makers need a GPU, the list does not.
TEST(Catalogue, ListsTheTablesAutoAsAutoCsrFollowedByThePlannedAuto) {
  static constexpr spmv_kernel_entry kEntries[] = {
      contract::kernel_entry<&fake_csr_launch>("csr_fake", "a CSR kernel"),
      contract::kernel_entry<&fake_csr_launch>("auto", "picks a kernel"),
      contract::kernel_entry<&fake_jds_launch>("jds_fake", "a JDS kernel"),
  };
  const spmv_plugin plugin = contract::make_plugin("fake", kEntries);
  const std::vector<KernelInfo> kernels = kernel_catalogue(plugin);
  std::vector<std::string> names;
  for (const KernelInfo& kernel : kernels) names.push_back(kernel.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{kBaselineKernel, "csr_fake", kTableAutoKernel, kPlannedAutoKernel, "jds_fake",
                                      "cusparse_csr_alg2", "cusparse_coo_alg1", "cusparse_sell_alg1"}));
  EXPECT_NE(kernels[2].description.find("picks a kernel"), std::string::npos) << kernels[2].description;
  EXPECT_TRUE(kernels[2].note != nullptr);  // what the table's auto picked
  EXPECT_EQ(kernels[3].format, "csr");
  EXPECT_FALSE(kernels[3].host_format.has_value());
  EXPECT_NE(kernels[3].description.find("before timing"), std::string::npos) << kernels[3].description;
}

TEST(Catalogue, CandidatesEndWithEachKindOfPlanForced) {
  const std::vector<KernelInfo> candidates = auto_candidate_kernels(five_by_four());
  ASSERT_GE(candidates.size(), 3u);
  EXPECT_EQ(candidates[candidates.size() - 3].name, "auto=plan-slices");
  EXPECT_EQ(candidates[candidates.size() - 2].name, "auto=plan-tiles");
  EXPECT_EQ(candidates[candidates.size() - 1].name, "auto=plan-rule");
}

// csr_rows with 8 and with 16 loads in flight, on every matrix.
TEST(Catalogue, CandidatesHoldCsrRowsWithEightAndSixteenLoads) {
  CsrMatrix long_row;
  long_row.rows = 2;
  long_row.cols = 600;
  long_row.row_ptr = {0, 600, 601};
  for (index_t j = 0; j < 601; ++j) long_row.col_idx.push_back(j < 600 ? j : 0);
  long_row.values.assign(601, 1.0F);
  for (const CsrMatrix& a : {five_by_four(), long_row}) {
    std::vector<std::string> names;
    for (const KernelInfo& kernel : auto_candidate_kernels(a)) names.push_back(kernel.name);
    EXPECT_EQ(std::count(names.begin(), names.end(), "auto=rows"), 1) << a.rows << " rows";
    EXPECT_EQ(std::count(names.begin(), names.end(), "auto=rows16"), 1) << a.rows << " rows";
  }
}

// A small matrix with a row of more than 512 entries (rajat01, EVA,
// adder_dcop_05, hangGlider_2): the planned tiles in each of the twelve
// small shapes, threads x items, before the three kinds of plan.
TEST(Catalogue, SmallMatricesWithALongRowGetEveryPlannedTileShape) {
  CsrMatrix a;
  a.rows = 3;
  a.cols = 600;
  a.row_ptr = {0, 1, 601, 602};
  for (index_t j = 0; j < 602; ++j) a.col_idx.push_back(j < 1 ? 0 : j < 601 ? j - 1 : 5);
  a.values.assign(602, 1.0F);
  const std::vector<KernelInfo> candidates = auto_candidate_kernels(a);
  std::vector<std::string> shapes;
  for (const KernelInfo& kernel : candidates) {
    if (kernel.name.rfind("auto=plan-tiles", 0) == 0 && kernel.name != "auto=plan-tiles") {
      shapes.push_back(kernel.name);
    }
  }
  EXPECT_EQ(shapes, (std::vector<std::string>{"auto=plan-tiles64x1", "auto=plan-tiles64x2", "auto=plan-tiles64x3",
                                              "auto=plan-tiles64x5", "auto=plan-tiles128x1", "auto=plan-tiles128x2",
                                              "auto=plan-tiles128x3", "auto=plan-tiles128x5", "auto=plan-tiles256x1",
                                              "auto=plan-tiles256x2", "auto=plan-tiles256x3", "auto=plan-tiles256x5"}));
  ASSERT_GE(candidates.size(), 15u);
  EXPECT_EQ(candidates[candidates.size() - 4].name, "auto=plan-tiles256x5");
  EXPECT_EQ(candidates[candidates.size() - 3].name, "auto=plan-slices");
  // Rows of at most 512 entries: none.
  for (const KernelInfo& kernel : auto_candidate_kernels(five_by_four())) {
    EXPECT_EQ(kernel.name.find("auto=plan-tiles6"), std::string::npos) << kernel.name;
  }
}

TEST(Catalogue, RejectsATableOfAnotherAbiOrOfHostKernels) {
  static constexpr spmv_kernel_entry kEntries[] = {
      contract::kernel_entry<&fake_csr_launch>("csr_fake", "a CSR kernel"),
  };
  spmv_plugin plugin = contract::make_plugin("fake", kEntries);
  plugin.abi_version = SPMV_PLUGIN_ABI_VERSION + 1;
  EXPECT_THROW(kernel_catalogue(plugin), std::runtime_error);
  plugin = contract::make_plugin("fake", kEntries, SPMV_MEMORY_HOST);
  EXPECT_THROW(kernel_catalogue(plugin), std::runtime_error);
}

HostWorkload workload_named(const std::string& label, const MatrixStats& stats) {
  HostWorkload host;
  host.source = MatrixSource{label, "spec of " + label, false, {}, {}, {}, false, {}};
  host.stats = stats;
  return host;
}

ResultRow row_of(const std::string& matrix, const std::string& kernel, Outcome outcome, double ms) {
  ResultRow row;
  row.matrix = matrix;
  row.kernel = kernel;
  row.provider = "p";
  row.format = "csr";
  row.outcome = outcome;
  row.timing.median_ms = ms;
  row.timing.samples = 10;
  row.detail = outcome == Outcome::kTimed ? "" : "why, with a comma";
  return row;
}

std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of('\n');
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start + 1, end - start);
}

TEST(Report, SummarizesEveryOutcomeLastAndWritesCsv) {
  const std::filesystem::path csv =
      std::filesystem::temp_directory_path() / ("spmv_bench_report_" + std::to_string(std::random_device{}()) + ".csv");
  std::ostringstream out;
  {
    Report report(out, csv);
    report.set_copy_bandwidth(1000.0);
    // 1e6 x 1e6 with 1e7 entries: 8e7 + 4e6 + 4 + 4e6 + 4e6 bytes
    const MatrixStats stats{.rows = 1000000, .cols = 1000000, .nnz = 10000000, .max_row_length = 10};
    report.begin_matrix(workload_named("m1", stats));
    report.add(row_of("m1", kBaselineKernel, Outcome::kTimed, 0.2));
    report.add(row_of("m1", "fast", Outcome::kTimed, 0.1));
    report.add(row_of("m1", "broken", Outcome::kWrong, 0));
    report.add(row_of("m1", "padded", Outcome::kNotApplicable, 0));
    EXPECT_FALSE(out.str().empty());
    report.print_summary();
    EXPECT_TRUE(report.any_failure());  // the WRONG row
  }
  const std::string text = out.str();
  EXPECT_EQ(last_line(text), "4 kernel runs: 2 timed, 1 WRONG, 1 n/a, 0 not implemented, 0 FAILED");
  const double fast_gb_per_s = (8e7 + 4e6 + 4 + 4e6 + 4e6) / 0.1e-3 * 1e-9;
  EXPECT_NE(text.find(std::to_string(static_cast<long>(fast_gb_per_s + 0.5))), std::string::npos) << text;
  EXPECT_NE(text.find("2.00x"), std::string::npos) << text;

  std::ifstream file(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  std::filesystem::remove(csv);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].rfind("matrix,origin,rows", 0), 0u);
  EXPECT_NE(lines[3].find(",WRONG,"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("\"why, with a comma\""), std::string::npos) << lines[3];
}

TEST(Report, AllCorrectRunIsNoFailure) {
  std::ostringstream out;
  Report report(out, std::nullopt);
  report.begin_matrix(workload_named("m", MatrixStats{.rows = 10, .cols = 10, .nnz = 30, .max_row_length = 3}));
  report.add(row_of("m", kBaselineKernel, Outcome::kTimed, 0.01));
  report.add(row_of("m", "stub", Outcome::kNotImplemented, 0));
  EXPECT_FALSE(report.any_failure());
  EXPECT_THROW(report.add(row_of("other", "x", Outcome::kTimed, 1)), std::logic_error);
}

// The verdict compares auto with the fastest cuSPARSE kernel of any format
// and with the same-size copy, and sums the suites up in geometric means.
TEST(Report, VerdictComparesAutoWithTheFastestCusparseKernel) {
  std::ostringstream out;
  Report report(out, std::nullopt);
  report.set_copy_bandwidth(1000.0);
  HostWorkload host = workload_named("m", MatrixStats{.rows = 1000, .cols = 1000, .nnz = 5000, .max_row_length = 5});
  host.source.suite = std::string(kRealSuite);
  host.source.kind = "fem";
  report.begin_matrix(host);
  TimingResult copy;
  copy.median_ms = 0.004;
  report.set_matrix_copy(copy);
  ResultRow alg1 = row_of("m", kBaselineKernel, Outcome::kTimed, 0.010);
  alg1.provider = kCusparseProvider;
  ResultRow sell = row_of("m", "cusparse_sell_alg1", Outcome::kTimed, 0.006);
  sell.provider = kCusparseProvider;
  ResultRow automatic = row_of("m", kPlannedAutoKernel, Outcome::kTimed, 0.005);
  automatic.detail = "auto picked packed slices: 100.0% diagonals\nplan built before timing: 12.5 ms";
  ResultRow table_auto = row_of("m", kTableAutoKernel, Outcome::kTimed, 0.008);
  table_auto.detail = "auto picked csr_rows";
  report.add(alg1);
  report.add(table_auto);
  report.add(automatic);
  report.add(sell);
  report.print_summary();
  const std::string text = out.str();
  EXPECT_NE(text.find("1.200x"), std::string::npos) << text;  // 0.006 / 0.005
  EXPECT_NE(text.find("0.750x"), std::string::npos) << text;  // auto_csr: 0.006 / 0.008
  EXPECT_NE(text.find("80.0"), std::string::npos) << text;    // copy 0.004 of 0.005
  EXPECT_NE(text.find("real suite:"), std::string::npos) << text;
  const std::size_t auto_line = text.find("auto vs the fastest cuSPARSE, real suite:");
  const std::size_t table_line = text.find("auto_csr vs the fastest cuSPARSE, real suite:");
  ASSERT_NE(auto_line, std::string::npos) << text;
  ASSERT_NE(table_line, std::string::npos) << text;
  EXPECT_NE(text.substr(auto_line, table_line - auto_line).find("geometric mean 1.200x"), std::string::npos) << text;
  EXPECT_NE(text.find("geometric mean 0.750x", table_line), std::string::npos) << text;
  // The verdict's line holds the first line of auto's note; the notes hold
  // both, the second indented under the first.
  const std::string verdict = text.substr(text.find("Verdict:"));
  EXPECT_NE(verdict.find("packed slices: 100.0% diagonals\n"), std::string::npos) << verdict;
  EXPECT_EQ(verdict.find("12.5 ms"), std::string::npos) << verdict;
  EXPECT_NE(text.find("diagonals\n" + std::string(kLabelWidth + 20 + 4, ' ') + "plan built"), std::string::npos)
      << text;
  EXPECT_DOUBLE_EQ(geometric_mean({2.0, 8.0}), 4.0);
}

// The real suite's halves are summed up apart, under the suite's own line:
// the validation half's geometric mean is the figure to believe.
TEST(Report, VerdictSumsUpEachHalfOfTheRealSuiteApart) {
  std::ostringstream out;
  Report report(out, std::nullopt);
  const auto add_matrix = [&report](const std::string& label, const std::string& half, double auto_ms) {
    HostWorkload host =
        workload_named(label, MatrixStats{.rows = 1000, .cols = 1000, .nnz = 5000, .max_row_length = 5});
    host.source.suite = std::string(kRealSuite);
    host.source.kind = "network";
    host.source.half = half;
    report.begin_matrix(host);
    ResultRow alg1 = row_of(label, kBaselineKernel, Outcome::kTimed, 0.010);
    alg1.provider = kCusparseProvider;
    report.add(alg1);
    report.add(row_of(label, kPlannedAutoKernel, Outcome::kTimed, auto_ms));
    report.add(row_of(label, kTableAutoKernel, Outcome::kTimed, 0.010));
  };
  add_matrix("t1", std::string(kTuningHalf), 0.005);       // 2.000x
  add_matrix("t2", std::string(kTuningHalf), 0.0025);      // 4.000x
  add_matrix("v1", std::string(kValidationHalf), 0.0125);  // 0.800x
  report.print_summary();
  const std::string text = out.str();
  const std::string verdict = text.substr(text.find("Verdict:"));
  const auto line_of = [&verdict](const std::string& start) {
    const std::size_t at = verdict.find(start);
    return at == std::string::npos ? std::string() : verdict.substr(at, verdict.find('\n', at) - at);
  };
  const std::string suite = line_of("auto vs the fastest cuSPARSE, real suite: ");
  const std::string tuning = line_of("auto vs the fastest cuSPARSE, real suite, tuning half:");
  const std::string validation = line_of("auto vs the fastest cuSPARSE, real suite, validation half:");
  EXPECT_NE(suite.find("geometric mean 1.857x, min 0.800x, max 4.000x over 3 matrices; 1 behind"), std::string::npos)
      << verdict;
  EXPECT_NE(tuning.find("geometric mean 2.828x, min 2.000x, max 4.000x over 2 matrices; 0 behind"), std::string::npos)
      << verdict;
  EXPECT_NE(validation.find("geometric mean 0.800x, min 0.800x, max 0.800x over 1 matrices; 1 behind"),
            std::string::npos)
      << verdict;
  EXPECT_NE(line_of("auto_csr vs the fastest cuSPARSE, real suite, validation half:").find("geometric mean 1.000x"),
            std::string::npos)
      << verdict;
  // The halves follow their suite's line; one suite gives no "all matrices".
  EXPECT_LT(verdict.find(suite), verdict.find(tuning));
  EXPECT_LT(verdict.find(tuning), verdict.find(validation));
  EXPECT_EQ(verdict.find("all matrices"), std::string::npos) << verdict;
  // Each matrix's line names its half.
  EXPECT_NE(line_of("v1 ").find(" validation "), std::string::npos) << verdict;
}

// The verdict says on how many matrices auto came within 3% of the fastest
// reference kernel (itself where it is the fastest), and lists the others
// with the rule's pick and the faster kernel.
TEST(Report, VerdictListsTheMatricesWhereAutoMissedAFasterReferenceKernel) {
  std::ostringstream out;
  Report report(out, std::nullopt);
  const auto add_matrix = [&report](const std::string& label, double auto_ms, double vector_ms) {
    HostWorkload host =
        workload_named(label, MatrixStats{.rows = 1000, .cols = 1000, .nnz = 5000, .max_row_length = 5});
    host.source.suite = std::string(kRealSuite);
    host.source.half = std::string(kValidationHalf);
    report.begin_matrix(host);
    ResultRow alg1 = row_of(label, kBaselineKernel, Outcome::kTimed, 0.010);
    alg1.provider = kCusparseProvider;
    report.add(alg1);
    ResultRow automatic = row_of(label, kPlannedAutoKernel, Outcome::kTimed, auto_ms);
    automatic.detail = "auto picked csr_stream (8 rows/block)\nplan built before timing: 0.7 ms";
    report.add(automatic);
    report.add(row_of(label, "csr_vector", Outcome::kTimed, vector_ms));
    report.add(row_of(label, "csr_scalar", Outcome::kWrong, vector_ms / 2));  // wrong: never the fastest
  };
  add_matrix("fastest", 0.0050, 0.0060);  // auto itself the fastest
  add_matrix("close", 0.0051, 0.0050);    // 1.02x: within 3%
  add_matrix("missed", 0.0100, 0.0078);   // 1.282x
  report.print_summary();
  const std::string verdict = out.str().substr(out.str().find("Verdict:"));
  EXPECT_NE(verdict.find("auto within 3% of the fastest reference kernel on 2 of 3 matrices; behind it"),
            std::string::npos)
      << verdict;
  const std::size_t missed = verdict.find("  missed ");
  ASSERT_NE(missed, std::string::npos) << verdict;
  const std::string line = verdict.substr(missed, verdict.find('\n', missed) - missed);
  EXPECT_NE(line.find("validation"), std::string::npos) << line;
  EXPECT_NE(line.find("auto 10.00 us, csr_stream (8 rows/block); csr_vector 7.80 us (auto 1.282x its time)"),
            std::string::npos)
      << line;
  EXPECT_EQ(verdict.find("  close "), std::string::npos) << verdict;
  EXPECT_EQ(verdict.find("  fastest "), std::string::npos) << verdict;
}

TEST(Suite, RealSuiteReadsTheIndexTheFetchScriptWrites) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("spmv-bench-real-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(folder);
  write_matrix_market(folder / "tiny.mtx", five_by_four());
  const auto write_index = [&folder](const std::string& lines) {
    std::ofstream index(folder / "index.tsv");
    index << "# name\tkind\tcollection\thalf\tfile\n" << lines;
  };
  write_index(
      "a_very_long_name\tcircuit\tGroup/a_very_long_name\ttuning\ttiny.mtx\n"
      "other\tnetwork\tGroup/other\tvalidation\ttiny.mtx\n");
  SourceRequest request;
  request.suite_names = {"real"};
  request.real_folder = folder;
  const std::vector<MatrixSource> sources = resolve_sources(request);
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0].label, "a_very_lon");
  EXPECT_EQ(sources[0].suite, kRealSuite);
  EXPECT_EQ(sources[0].kind, "circuit");
  EXPECT_EQ(sources[0].half, kTuningHalf);
  EXPECT_EQ(sources[1].half, kValidationHalf);
  EXPECT_EQ(sources[0].load().nnz(), 7);
  // A half that is neither, and an index from before the split (no half).
  const auto refused = [&request](const std::string& expected) {
    try {
      resolve_sources(request);
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
      return;
    }
    ADD_FAILURE() << "accepted an index that should be refused for: " << expected;
  };
  write_index("m\tfem\tGroup/m\tboth\ttiny.mtx\n");
  refused("expected a half of tuning or validation, found \"both\"");
  write_index("m\tfem\tGroup/m\ttiny.mtx\n");
  refused("expected 5 tab-separated fields");
  write_index("missing\tfem\tGroup/missing\ttuning\tmissing.mtx.gz\n");
  refused("no file");
  std::filesystem::remove_all(folder);
  EXPECT_THROW(resolve_sources(request), std::invalid_argument);
}

// The suite written as a case folder is what spmv-grade reads: one case per
// matrix, named by its label, generating the same matrix.
TEST(Suite, WrittenCaseFolderHoldsTheSameMatrices) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("spmv-bench-cases-" + std::to_string(random()));
  const std::string extra = "random rows=" + std::to_string(50 + random() % 50) +
                            " cols=70 per_row=3 seed=" + std::to_string(random() % 1000);
  SourceRequest request;
  request.suite_names = {"all"};
  request.specs = {extra};
  request.quick = true;
  const std::vector<MatrixSource> sources = resolve_sources(request);
  write_case_folder(sources, folder);
  const std::vector<TestCase> cases = load_cases(folder);
  ASSERT_EQ(cases.size(), sources.size());
  std::map<std::string, const TestCase*> by_name;
  for (const TestCase& test_case : cases) by_name[test_case.name] = &test_case;
  const TestCase* extra_case = nullptr;
  for (const MatrixSource& source : sources) {
    std::string name = source.label;
    for (char& c : name) {
      if (c == '#') c = '-';
    }
    ASSERT_TRUE(by_name.count(name)) << name;
    EXPECT_EQ(by_name[name]->generator, source.origin);
    if (source.origin == extra) extra_case = by_name[name];
  }
  ASSERT_NE(extra_case, nullptr);
  const CsrMatrix generated = load_case_matrix(*extra_case, folder / "cache");
  const CsrMatrix expected = sources.back().load();
  EXPECT_EQ(generated.row_ptr, expected.row_ptr);
  EXPECT_EQ(generated.col_idx, expected.col_idx);
  EXPECT_EQ(generated.values, expected.values);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace spmv::bench
