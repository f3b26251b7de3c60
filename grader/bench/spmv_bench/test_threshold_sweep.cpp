// The host side of spmv-bench --sweep-thresholds (threshold_sweep.hpp):
// its generators, that each series' matrices lie on both sides of the
// threshold's default (and that the threshold is what decides there), that
// its picks are what plan::lay_out_plan lays out, the plans it times, and
// its rows and summary from given times. No GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "spmv/core/generators.hpp"
#include "spmv/reference/plan_layout.hpp"
#include "spmv_bench/threshold_sweep.hpp"

namespace spmv::bench::sweep {
namespace {

using reference::PlanKind;

plan::HostCsr host_view(const CsrMatrix& a) { return {a.rows, a.cols, a.row_ptr, a.col_idx, a.values}; }

// Every row's columns distinct and ascending, within the matrix.
void expect_well_formed(const CsrMatrix& a) {
  ASSERT_EQ(a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1);
  ASSERT_EQ(a.col_idx.size(), a.values.size());
  for (index_t row = 0; row < a.rows; ++row) {
    for (index_t j = a.row_ptr[row]; j < a.row_ptr[row + 1]; ++j) {
      ASSERT_GE(a.col_idx[j], 0) << "row " << row;
      ASSERT_LT(a.col_idx[j], a.cols) << "row " << row;
      if (j > a.row_ptr[row]) {
        ASSERT_LT(a.col_idx[j - 1], a.col_idx[j]) << "row " << row;
      }
      ASSERT_NE(a.values[j], 0.0F);
    }
  }
}

TEST(SweepGenerators, ASpreadBandHasRowsOfMeanPlusMinusSpreadAroundTheDiagonal) {
  const CsrMatrix a = spread_band(1000, 16, 4, 7);
  expect_well_formed(a);
  std::set<index_t> lengths;
  for (index_t row = 0; row < a.rows; ++row) {
    const index_t length = a.row_length(row);
    lengths.insert(length);
    ASSERT_GE(length, 12);
    ASSERT_LE(length, 20);
    const index_t first = a.col_idx[a.row_ptr[row]];
    EXPECT_EQ(a.col_idx[a.row_ptr[row + 1] - 1], first + length - 1) << "consecutive columns, row " << row;
    if (row >= 10 && row < a.rows - 10) {
      EXPECT_EQ(first, row - length / 2) << "centred, row " << row;
    }
  }
  EXPECT_EQ(lengths.size(), 9u) << "every length of 12 .. 20 drawn";
  // The same seed, the same matrix; no spread, rows of the mean.
  EXPECT_EQ(spread_band(1000, 16, 4, 7).col_idx, a.col_idx);
  const CsrMatrix even = spread_band(100, 16, 0, 7);
  EXPECT_EQ(even.nnz(), 1600);
  EXPECT_THROW(spread_band(100, 4, 5, 7), std::invalid_argument);
}

TEST(SweepGenerators, ASpreadRandomHasRowsOfMeanPlusMinusSpreadAnywhere) {
  const CsrMatrix a = spread_random(4000, 100'000, 16, 1, 5);
  expect_well_formed(a);
  EXPECT_EQ(a.cols, 100'000);
  std::set<index_t> lengths;
  index_t low = a.cols;
  index_t high = 0;
  for (index_t row = 0; row < a.rows; ++row) {
    lengths.insert(a.row_length(row));
    low = std::min(low, a.col_idx[a.row_ptr[row]]);
    high = std::max(high, a.col_idx[a.row_ptr[row + 1] - 1]);
  }
  EXPECT_EQ(lengths, (std::set<index_t>{15, 16, 17}));
  EXPECT_GT(high - low, 65'535) << "columns beyond a 16-bit span";
  EXPECT_EQ(spread_random(4000, 100'000, 16, 1, 5).col_idx, a.col_idx);
  // Padded slices of 32-bit columns: more bytes than CSR's.
  const plan::HostCsr host = host_view(a);
  const std::optional<plan::PackedSlices> packed = plan::pack_slices(host);
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(packed->slices_by_encoding[2], packed->slices());
  EXPECT_GT(plan::product_bytes(*packed), plan::product_bytes(host));
  EXPECT_THROW(spread_random(100, 100, 4, 5, 7), std::invalid_argument);
  EXPECT_THROW(spread_random(100, 20, 16, 5, 7), std::invalid_argument);
}

TEST(SweepGenerators, AWindowMixHasItsShareOfSlicesWithinTheWindow) {
  constexpr index_t kSlices = 2000;  // 64,000 columns: 512 random ones never span under the window
  const CsrMatrix a = window_mix(32 * kSlices, 16, 0.25, 3);
  expect_well_formed(a);
  std::vector<bool> narrow;
  for (index_t slice = 0; slice < kSlices; ++slice) {
    index_t low = a.cols;
    index_t high = 0;
    for (index_t row = 32 * slice; row < 32 * (slice + 1); ++row) {
      ASSERT_EQ(a.row_length(row), 16);
      low = std::min(low, a.col_idx[a.row_ptr[row]]);
      high = std::max(high, a.col_idx[a.row_ptr[row + 1] - 1]);
    }
    narrow.push_back(high - low < kWindow);
  }
  EXPECT_EQ(std::count(narrow.begin(), narrow.end(), true), kSlices / 4);
  for (index_t slice = 0; slice < kSlices; ++slice) EXPECT_EQ(narrow[slice], slice % 4 == 3) << "slice " << slice;
  EXPECT_EQ(window_mix(32 * kSlices, 16, 0.25, 3).col_idx, a.col_idx);
  EXPECT_THROW(window_mix(kWindow - 1, 16, 0.5, 3), std::invalid_argument);
  EXPECT_THROW(window_mix(kWindow, 16, 1.5, 3), std::invalid_argument);
}

// ---- The series

TEST(SweepSeries, NamesSelectThresholdsAllIsEveryOne) {
  EXPECT_EQ(thresholds_named({"all"}).size(), kThresholds.size());
  EXPECT_EQ(thresholds_named({"slice_kernel", "slices_max_mean", "slice_kernel"}),
            (std::vector<Threshold>{Threshold::kSlicesMaxMean, Threshold::kSliceKernel}));
  EXPECT_THROW(thresholds_named({"slices_max_means"}), std::invalid_argument);
  for (const Threshold threshold : kThresholds) {
    EXPECT_EQ(thresholds_named({std::string(info(threshold).name)}), std::vector<Threshold>{threshold});
  }
}

TEST(SweepSeries, EachHasAscendingValuesWithTheDefaultOnce) {
  const SweepPlan plan = plan_sweep(thresholds_named({"all"}), true);
  ASSERT_EQ(plan.series.size(), kThresholds.size());
  const plan::PlanSettings defaults;
  for (const Series& series : plan.series) {
    SCOPED_TRACE(std::string(info(series.threshold).name));
    EXPECT_EQ(std::count_if(series.values.begin(), series.values.end(), [](const Value& v) { return v.is_default; }),
              1);
    for (std::size_t i = 0; i < series.values.size(); ++i) {
      const Value& value = series.values[i];
      EXPECT_EQ(value.is_default, value.settings == defaults) << value.label;
      EXPECT_NO_THROW(plan::check_settings(value.settings)) << value.label;
      // Only this threshold differs from the defaults.
      plan::PlanSettings others = value.settings;
      switch (series.threshold) {
        case Threshold::kSlicesMinPath: others.slices_min_path = defaults.slices_min_path; break;
        case Threshold::kSlicesMaxMean: others.slices_max_mean = defaults.slices_max_mean; break;
        case Threshold::kSlicesMaxPadding: others.slices_max_padding = defaults.slices_max_padding; break;
        case Threshold::kSlicesMaxBytes: others.slices_max_bytes = defaults.slices_max_bytes; break;
        case Threshold::kSliceKernel: others.slice_kernel = defaults.slice_kernel; break;
        case Threshold::kShortSliceKernel: others.short_slice_kernel = defaults.short_slice_kernel; break;
      }
      EXPECT_EQ(others, defaults) << value.label;
      if (is_switch(series.threshold) && i > 0) {
        EXPECT_LT(series.values[i - 1].number, value.number);
      }
    }
    if (is_switch(series.threshold)) {
      EXPECT_GE(series.values.size(), 7u);
    } else {
      EXPECT_EQ(series.values.size(), (series.threshold == Threshold::kSliceKernel ? 9u : 6u));
    }
  }
  EXPECT_EQ(value_in(Threshold::kSlicesMaxMean, defaults), 260.0);
  EXPECT_EQ(value_in(Threshold::kSlicesMinPath, defaults), 1 << 19);
}

TEST(SweepSeries, TheFullSizesAreTheQuickOnesSixteenTimesOverAndEveryMatrixOnce) {
  const SweepPlan quick = plan_sweep(thresholds_named({"all"}), true);
  const SweepPlan full = plan_sweep(thresholds_named({"all"}), false);
  ASSERT_EQ(quick.matrices.size(), full.matrices.size());
  std::set<std::string> labels;
  for (std::size_t i = 0; i < full.matrices.size(); ++i) {
    const MatrixSource& source = full.matrices[i];
    EXPECT_TRUE(labels.insert(source.label).second) << source.label << " twice";
    EXPECT_EQ(source.label, quick.matrices[i].label);
    EXPECT_LE(source.label.size(), kLabelWidth) << source.label;
    if (!source.generate) {
      EXPECT_NO_THROW(gen::parse_spec(source.origin)) << source.origin;
    }
  }
  for (std::size_t s = 0; s < full.series.size(); ++s) EXPECT_EQ(full.series[s].matrices, quick.series[s].matrices);
  // A series of one threshold holds its own matrices only.
  const SweepPlan mean = plan_sweep({Threshold::kSlicesMaxMean}, false);
  ASSERT_EQ(mean.series.size(), 1u);
  EXPECT_EQ(mean.matrices.size(), 11u);
  EXPECT_EQ(mean.matrices.front().origin, "banded n=1411764 half_bandwidth=8");
}

// The quick sweep's matrices and their figures, computed once.
class QuickSweep : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    plan_ = new SweepPlan(plan_sweep(thresholds_named({"all"}), true));
    matrices_ = new std::vector<CsrMatrix>();
    figures_ = new std::vector<MatrixFigures>();
    for (const MatrixSource& source : plan_->matrices) {
      matrices_->push_back(source.load());
      figures_->push_back(figures_of(matrices_->back()));
    }
  }
  static void TearDownTestSuite() {
    delete plan_;
    delete matrices_;
    delete figures_;
  }
  static const Series& series(Threshold threshold) {
    for (const Series& s : plan_->series) {
      if (s.threshold == threshold) return s;
    }
    throw std::logic_error("no series");
  }
  static SweepPlan* plan_;
  static std::vector<CsrMatrix>* matrices_;
  static std::vector<MatrixFigures>* figures_;
};
SweepPlan* QuickSweep::plan_ = nullptr;
std::vector<CsrMatrix>* QuickSweep::matrices_ = nullptr;
std::vector<MatrixFigures>* QuickSweep::figures_ = nullptr;

// Each switch's matrices: at least two on either side of the default, and
// on each the default lays out packed slices exactly when the matrix is on
// their side of this threshold: the other thresholds never decide.
TEST_F(QuickSweep, EachSwitchsMatricesLieOnBothSidesOfItsDefaultWhichDecides) {
  const plan::PlanSettings defaults;
  for (const Series& s : plan_->series) {
    if (!is_switch(s.threshold)) continue;
    SCOPED_TRACE(std::string(info(s.threshold).name));
    const double threshold = value_in(s.threshold, defaults);
    int slices_side = 0;
    int rule_side = 0;
    for (const std::size_t m : s.matrices) {
      const MatrixFigures& f = (*figures_)[m];
      const double figure = statistic(s.threshold, f);
      ASSERT_FALSE(std::isnan(figure)) << plan_->matrices[m].label;
      const bool on_slices_side = s.threshold == Threshold::kSlicesMinPath ? figure > threshold : figure <= threshold;
      (on_slices_side ? slices_side : rule_side) += 1;
      EXPECT_EQ(pick(s.threshold, f, defaults).kind, on_slices_side ? PlanKind::kSlices : PlanKind::kRule)
          << plan_->matrices[m].label << ": " << info(s.threshold).statistic << " " << figure;
    }
    EXPECT_GE(slices_side, 2);
    EXPECT_GE(rule_side, 2);
  }
  // The pairs that sit closest to each default.
  const auto figure_of = [&](const std::string& label, Threshold threshold) {
    for (std::size_t m = 0; m < plan_->matrices.size(); ++m) {
      if (plan_->matrices[m].label == label) return statistic(threshold, (*figures_)[m]);
    }
    throw std::logic_error("no matrix " + label);
  };
  EXPECT_LE(figure_of("s2d-295", Threshold::kSlicesMinPath), 1 << 19);
  EXPECT_GT(figure_of("s2d-296", Threshold::kSlicesMinPath), 1 << 19);
  EXPECT_LE(figure_of("s3d7-40", Threshold::kSlicesMinPath), 1 << 19);
  EXPECT_GT(figure_of("s3d7-41", Threshold::kSlicesMinPath), 1 << 19);
  EXPECT_LE(figure_of("band-h129", Threshold::kSlicesMaxMean), 260.0);
  EXPECT_GT(figure_of("band-h133", Threshold::kSlicesMaxMean), 260.0);
  EXPECT_LE(figure_of("spread-s16", Threshold::kSlicesMaxPadding), 1.05);
  EXPECT_LE(figure_of("band-e0.5", Threshold::kSlicesMaxPadding), 1.05);
  EXPECT_GT(figure_of("band-e0.6", Threshold::kSlicesMaxPadding), 1.05);
  EXPECT_LE(figure_of("rand-k16", Threshold::kSlicesMaxBytes), 1.0);
  EXPECT_GT(figure_of("rand-k32s1", Threshold::kSlicesMaxBytes), 1.0);
  // Beyond 100% padding diagonal slices move more bytes than CSR: the
  // bytes bound turns them down at every padding value tried.
  for (const char* label : {"band-e0.6", "band-e0.65"}) {
    EXPECT_GT(figure_of(label, Threshold::kSlicesMaxPadding), 1.25) << label;
    EXPECT_GT(figure_of(label, Threshold::kSlicesMaxBytes), 1.0) << label;
  }
}

// The kernel shapes' matrices: slices wider than the short kernel's
// default for the long kernel; 1 to 4 slots for the short one, so that
// each of its loads takes some and not others.
TEST_F(QuickSweep, TheKernelShapesMatricesHaveTheWidthsTheyAreThereFor) {
  const plan::PlanSettings defaults;
  for (const std::size_t m : series(Threshold::kSliceKernel).matrices) {
    EXPECT_GT((*figures_)[m].max_width, defaults.short_slice_kernel.loads) << plan_->matrices[m].label;
  }
  std::set<std::int32_t> widths;
  for (const std::size_t m : series(Threshold::kShortSliceKernel).matrices) widths.insert((*figures_)[m].max_width);
  EXPECT_EQ(widths, (std::set<std::int32_t>{1, 2, 3, 4}));
}

// What a pick says a value lays out is what plan::lay_out_plan lays out
// with those settings: for the switches on every value where the pick
// changes along the values and at both ends, for the kernel shapes on
// every value (packed slices forced).
TEST_F(QuickSweep, PicksAreWhatLayOutPlanLaysOut) {
  for (const Series& s : plan_->series) {
    SCOPED_TRACE(std::string(info(s.threshold).name));
    for (const std::size_t m : s.matrices) {
      const plan::HostCsr host = host_view((*matrices_)[m]);
      std::optional<PlanKind> previous;
      for (std::size_t i = 0; i < s.values.size(); ++i) {
        const Value& value = s.values[i];
        const Pick picked = pick(s.threshold, (*figures_)[m], value.settings);
        if (is_switch(s.threshold)) {
          const bool worth_laying_out = i == 0 || i + 1 == s.values.size() || picked.kind != previous;
          previous = picked.kind;
          if (!worth_laying_out) continue;
          const plan::HostPlan laid = plan::lay_out_plan(host, {}, value.settings);
          EXPECT_EQ(laid.choice.kind, picked.kind) << plan_->matrices[m].label << " at " << value.label;
          if (picked.kind == PlanKind::kSlices) {
            EXPECT_EQ(laid.slice_kernel, picked.slice_kernel);
          }
        } else {
          const plan::HostPlan laid = plan::lay_out_plan(host, {PlanKind::kSlices, 0, 0}, value.settings);
          EXPECT_EQ(laid.slice_kernel, picked.slice_kernel) << plan_->matrices[m].label << " at " << value.label;
          EXPECT_EQ(picked.kernel, "auto=slices-" + std::to_string(picked.slice_kernel.loads) + "x" +
                                       std::to_string(picked.slice_kernel.min_blocks));
        }
      }
    }
  }
}

TEST_F(QuickSweep, VariantsTimeEveryPickedPlanOnceAndBothKindsOfEachSwitch) {
  for (std::size_t m = 0; m < plan_->matrices.size(); ++m) {
    SCOPED_TRACE(plan_->matrices[m].label);
    const MatrixFigures& f = (*figures_)[m];
    const std::vector<Variant> variants = variants_for(*plan_, m, f);
    std::map<std::string, const Variant*> by_name;
    for (const Variant& variant : variants) {
      EXPECT_TRUE(by_name.emplace(variant.kernel, &variant).second) << variant.kernel << " twice";
    }
    bool in_a_switch = false;
    for (const Series& s : plan_->series) {
      if (std::find(s.matrices.begin(), s.matrices.end(), m) == s.matrices.end()) continue;
      in_a_switch = in_a_switch || is_switch(s.threshold);
      for (const Value& value : s.values) {
        const Pick picked = pick(s.threshold, f, value.settings);
        ASSERT_TRUE(by_name.contains(picked.kernel)) << picked.kernel;
        const Variant& variant = *by_name.at(picked.kernel);
        EXPECT_EQ(variant.expected.kind, picked.kind);
        EXPECT_EQ(variant.request.kind.value_or(picked.kind), picked.kind);
        if (picked.kind == PlanKind::kSlices) {
          EXPECT_EQ(variant.expected.slice_kernel, picked.slice_kernel);
        }
      }
    }
    if (in_a_switch) {
      ASSERT_TRUE(by_name.contains("auto"));
      EXPECT_FALSE(by_name.at("auto")->request.kind.has_value()) << "auto's plan as it is, not forced";
      EXPECT_EQ(by_name.at("auto")->settings, plan::PlanSettings{});
      const std::string other =
          by_name.at("auto")->expected.kind == PlanKind::kSlices ? "auto=plan-rule" : "auto=plan-slices";
      EXPECT_TRUE(by_name.contains(other)) << other;
    }
  }
  // rand-k3 in the short kernel's series: loads 1 and 2 leave its slices
  // of 3 to the long kernel, 4 x 4; loads 4 take them, in 6 or 8 blocks.
  const Series& shorts = series(Threshold::kShortSliceKernel);
  const std::size_t k3 = shorts.matrices[2];
  ASSERT_EQ(plan_->matrices[k3].label, "rand-k3");
  std::set<std::string> shape_kernels;
  for (const Variant& variant : variants_for(*plan_, k3, (*figures_)[k3])) {
    if (variant.kernel.starts_with("auto=slices-")) shape_kernels.insert(variant.kernel);
  }
  EXPECT_EQ(shape_kernels, (std::set<std::string>{"auto=slices-4x4", "auto=slices-4x6", "auto=slices-4x8"}));
}

// ---- Rows and summary from given times

// The mean's series with times that make packed slices faster up to a
// mean of 260 (0.2 ms against the rule's 0.3 ms) and slower beyond (0.4 ms).
TEST_F(QuickSweep, RowsAndSummaryFindTheFasterValueAndWhereThePlanChanges) {
  SweepPlan mean_plan;
  mean_plan.matrices = plan_->matrices;
  mean_plan.series.push_back(series(Threshold::kSlicesMaxMean));
  std::vector<MatrixResult> results;
  for (const std::size_t m : mean_plan.series[0].matrices) {
    MatrixResult result;
    result.matrix = m;
    result.figures = (*figures_)[m];
    const bool short_rows = result.figures.mean_row() < 260.0;
    const double slices_ms = short_rows ? 0.2 : 0.4;
    const std::string slices_kernel = short_rows ? "auto" : "auto=plan-slices";
    const std::string rule_kernel = short_rows ? "auto=plan-rule" : "auto";
    result.kernels[slices_kernel] = {"ok", slices_ms,
                                     "auto picked packed slices: 100.0% diagonals, 0.0% 16-bit, 0.0% 32-bit (4.1 "
                                     "bytes an entry)\nplan built ...; slices' kernel 4 loads x 4 blocks",
                                     ""};
    result.kernels[rule_kernel] = {"ok", 0.3, "auto picked the rule's csr_vector (8 threads/row, 4 loads/lane)\n", ""};
    result.best_cusparse = "cusparse_sell_alg1";
    result.best_cusparse_ms = 0.5;
    results.push_back(result);
  }
  const std::vector<Row> rows = rows_of(mean_plan, results);
  ASSERT_EQ(rows.size(), 11u * mean_plan.series[0].values.size());
  int by_default = 0;
  for (const Row& row : rows) {
    EXPECT_EQ(row.threshold, "slices_max_mean");
    EXPECT_EQ(row.statistic, "mean_row");
    EXPECT_EQ(row.status, "ok") << row.matrix << " " << row.value;
    ASSERT_TRUE(row.speedup.has_value());
    EXPECT_DOUBLE_EQ(*row.speedup, 0.5 / row.ms);
    if (row.chosen_by_default) {
      ++by_default;
      EXPECT_EQ(row.value, "260");
      EXPECT_EQ(row.kernel, "auto");
    }
    if (row.matrix == "band-h133" && row.value == "320") {
      EXPECT_EQ(row.kernel, "auto=plan-slices");
      EXPECT_EQ(row.ms, 0.4);
      EXPECT_EQ(row.plan, "packed slices: 100.0% diagonals, 0.0% 16-bit, 0.0% 32-bit (4.1 bytes an entry); kernel 4x4");
    }
    if (row.matrix == "band-h133" && row.value == "260") {
      EXPECT_EQ(row.plan, "the rule's csr_vector (8 threads/row, 4 loads/lane)");
    }
  }
  EXPECT_EQ(by_default, 11);

  std::ostringstream csv;
  write_csv(csv, rows);
  const std::string text = csv.str();
  EXPECT_EQ(text.substr(0, text.find('\n')), kCsvHeader);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<std::ptrdiff_t>(rows.size()) + 1);
  EXPECT_NE(text.find("\nband-h129,slices_max_mean,260,\"packed slices:"), std::string::npos) << text;

  std::ostringstream summary;
  print_summary(summary, mean_plan, results);
  const std::string said = summary.str();
  EXPECT_NE(said.find("the faster plan changes (along mean_row): between band-h129 ("), std::string::npos) << said;
  EXPECT_NE(said.find(", slices) and band-h133 ("), std::string::npos) << said;
  EXPECT_NE(said.find("(where the measured change is)"), std::string::npos) << said;
  EXPECT_NE(said.find("fastest value: 260 (1.0000x the fastest plan of each matrix); the default: 260 at 1.0000x"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("MISMATCH"), std::string::npos) << said;

  // A plan that was not the one expected: its rows say so, and no time.
  results[0].kernels["auto"].mismatch = "expected a plan of slices, the plan was: auto picked the rule's csr_scalar";
  const std::vector<Row> flagged = rows_of(mean_plan, results);
  EXPECT_EQ(std::count_if(flagged.begin(), flagged.end(), [](const Row& r) { return r.status == "MISMATCH"; }),
            std::count_if(flagged.begin(), flagged.end(),
                          [&](const Row& r) { return r.matrix == "band-h8" && r.kernel == "auto"; }));
  std::ostringstream flagged_summary;
  print_summary(flagged_summary, mean_plan, results);
  EXPECT_NE(flagged_summary.str().find("MISMATCH band-h8 auto: expected a plan of slices"), std::string::npos);
}

TEST(SweepNotes, ANoteMustNameTheExpectedKindAndSlicesKernel) {
  Variant slices;
  slices.kernel = "auto=slices-4x8";
  slices.expected.kind = PlanKind::kSlices;
  slices.expected.slice_kernel = {4, 8};
  const std::string picked = "auto picked packed slices: 0.0% diagonals, 0.0% 16-bit, 100.0% 32-bit (8.25 bytes";
  EXPECT_EQ(check_note(slices, picked + "\nplan built ...; slices' kernel 4 loads x 8 blocks"), "");
  EXPECT_NE(check_note(slices, picked + "\nplan built ...; slices' kernel 8 loads x 6 blocks"), "");
  EXPECT_NE(check_note(slices, "auto picked the rule's csr_scalar\nplan built ..."), "");
  EXPECT_NE(check_note(slices, "something else"), "");
  Variant rule;
  rule.kernel = "auto=plan-rule";
  rule.expected.kind = PlanKind::kRule;
  EXPECT_EQ(check_note(rule, "auto picked the rule's csr_stream (128 rows/block)\nplan built ..."), "");
  EXPECT_NE(check_note(rule, picked), "");
}

}  // namespace
}  // namespace spmv::bench::sweep
