// auto's plan (reference/include/spmv/reference/csr_auto_plan.hpp) on the
// GPU: every kind of plan, as chosen and forced, built from the uploaded
// matrix and run through the run protocol as the grader runs a kernel
// (kernel_check.hpp: twice, guard zones around y, inputs unchanged, the
// two runs equal bit for bit), against golden, on fresh random inputs:
//  - the chosen plan on shapes that pick each kind (packed slices with all
//    three encodings and a partial last slice, and of the short batch;
//    planned tiles of the small and the large shape; the rule);
//  - each kind forced on every conformance matrix (matrix_cases.cpp: empty
//    rows, rows == 1, a row of 120k entries, rows at tile edges, more rows
//    than a grid, ...);
//  - plans of two matrices alive together and run in turn, several times
//    (the planned tiles' arrival counts must be back at 0 after each run);
//  - a matrix holding a value with the padding bits (packed slices refuse
//    it; the chosen plan falls back to the rule);
//  - packed slices run by each shape their kernel is built for
//    (plan::PlanSettings' slice_kernel and short_slice_kernel).
// Without a GPU every test reports itself skipped.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernel_check.hpp"
#include "matrix_cases.hpp"
#include "plan_matrices.hpp"
#include "sparse_test_support.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/reference/csr_auto_plan.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {
namespace {

using reference::CsrAutoPlan;
using reference::PlanKind;
using reference::PlanRequest;
namespace plan = reference::plan;

// The plan the entries below run: a plan is of one matrix, so each test
// builds it on the uploaded matrix the run protocol then launches with.
const CsrAutoPlan* g_plan = nullptr;

spmv_status launch_plan(const void* /*view*/, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  return static_cast<spmv_status>(g_plan->run(x, y, stream));
}

// Packed slices, planned tiles and most of the rule's kernels give the same
// bits every run; the rule's csr_merge adds cut rows atomically (the name
// "auto" lets two runs differ, kernel_check.cpp).
constexpr spmv_kernel_entry kRepeatable{"auto_plan", SPMV_FORMAT_CSR, "auto's plan", &launch_plan, nullptr};
constexpr spmv_kernel_entry kMayVary{"auto", SPMV_FORMAT_CSR, "auto's plan (the rule's csr_merge)", &launch_plan,
                                     nullptr};

const spmv_kernel_entry& entry_for(const CsrAutoPlan& built) {
  const bool atomics =
      built.kind() == PlanKind::kRule && built.summary().rule.kernel == reference::CsrAutoChoice::Kernel::kMerge;
  return atomics ? kMayVary : kRepeatable;
}

std::string describe(const PlanRequest& request) {
  if (!request.kind) return "the chosen plan";
  std::string text = std::string("forced ") + reference::plan_kind_name(*request.kind);
  if (request.tile_threads != 0) text += " of " + std::to_string(request.tile_threads) + " threads";
  if (request.tile_thread_items != 0) text += " x " + std::to_string(request.tile_thread_items) + " items";
  return text;
}

// Builds the plan of `request` (with `settings`) on each layout of `a`,
// checks it is of `expected` kind (when given), and runs it through the
// run protocol against golden. Returns the plans' summaries.
std::vector<reference::PlanSummary> expect_plan_matches_golden(const CsrMatrix& a, const PlanRequest& request,
                                                               std::optional<PlanKind> expected, std::uint64_t seed,
                                                               runner::Executor& executor,
                                                               const plan::PlanSettings& settings = {}) {
  SCOPED_TRACE(describe(request));
  const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), seed);
  std::vector<UploadedMatrix> layouts = uploaded_layouts(SPMV_FORMAT_CSR, a);
  std::vector<reference::PlanSummary> summaries;
  for (UploadedMatrix& layout : layouts) {
    const CsrAutoPlan built =
        CsrAutoPlan::build(*static_cast<const spmv_csr_view*>(layout.view()), executor.stream(), request, settings);
    SCOPED_TRACE("plan: " + built.summary().description);
    const PlanKind wanted = request.kind ? *request.kind : expected.value_or(built.kind());
    EXPECT_EQ(built.kind(), wanted) << "plan kind " << reference::plan_kind_name(built.kind());
    g_plan = &built;
    std::vector<UploadedMatrix> one;
    one.push_back(std::move(layout));
    expect_matches_golden(entry_for(built), one, a, x, executor);
    g_plan = nullptr;
    summaries.push_back(built.summary());
  }
  return summaries;
}

class PlanTest : public testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the kernels are tested on a GPU only";
    executor_ = runner::make_device_executor(0);
  }
  std::unique_ptr<runner::Executor> executor_;
};

// ---- The chosen plan on shapes that pick each kind

TEST_F(PlanTest, LargeStencilGetsDiagonalSlices) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = gen::stencil_2d_5pt(600, 600, seed);  // 360,000 rows: past the small matrices
  for (const reference::PlanSummary& summary : expect_plan_matches_golden(a, {}, PlanKind::kSlices, seed, *executor_)) {
    EXPECT_EQ(summary.slices_by_encoding[0], summary.slices) << "every slice of a stencil lies on its diagonals";
  }
}

TEST_F(PlanTest, LargeMixedRowsGetSlicesOfEveryEncodingWithAPartialLastSlice) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = mixed_slices(32 * 12'000 + 17, 300'000, seed);
  for (const reference::PlanSummary& summary : expect_plan_matches_golden(a, {}, PlanKind::kSlices, seed, *executor_)) {
    for (std::size_t encoding = 0; encoding < 3; ++encoding) {
      EXPECT_GT(summary.slices_by_encoding[encoding], 0)
          << plan::encoding_name(static_cast<plan::SliceEncoding>(encoding));
    }
  }
}

TEST_F(PlanTest, LargeShortRowsGetSlicesOfTheShortBatch) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  // Rows of two random columns (shortrows of spmv-bench's suite, smaller),
  // then rows of 0-2 forced (empty rows, a partial last slice).
  for (const reference::PlanSummary& summary : expect_plan_matches_golden(
           gen::uniform_random(600'000, 600'000, 2, seed), {}, PlanKind::kSlices, seed, *executor_)) {
    EXPECT_EQ(summary.max_width, 2);
    EXPECT_EQ(summary.slices_by_encoding[2], summary.slices) << "random columns over 600,000: 32-bit";
  }
  for (const reference::PlanSummary& summary :
       expect_plan_matches_golden(rows_of_lengths(32 * 40 + 9, 70'000, {2, 1, 0, 2, 2, 0}, seed),
                                  {PlanKind::kSlices, 0, 0}, PlanKind::kSlices, seed, *executor_)) {
    EXPECT_EQ(summary.max_width, 2);
  }
}

// Short rows and a few long ones (up to 9000 entries, beyond
// kAutoSmallLongRowMax), clustered: the rule's one-launch merge, planned.
CsrMatrix small_with_long_rows(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<index_t> short_row(0, 12);
  std::vector<index_t> lengths;
  for (int i = 0; i < 4000; ++i) lengths.push_back(short_row(rng));
  const std::vector<index_t> long_rows = {1600, 1700, 1248, 1249, 9000, 0, 0, 5000};
  lengths.insert(lengths.begin() + static_cast<std::ptrdiff_t>(rng() % 4000), long_rows.begin(), long_rows.end());
  return rows_of_lengths(static_cast<index_t>(lengths.size()), 12'000, lengths, seed);
}

TEST_F(PlanTest, SmallMatricesWithLongRowsGetPlannedTiles) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  for (const CsrMatrix& a : {small_with_long_rows(seed), gen::arrow(3000, seed)}) {
    for (const reference::PlanSummary& summary :
         expect_plan_matches_golden(a, {}, PlanKind::kTiles, seed, *executor_)) {
      EXPECT_EQ(summary.tile_threads, 128);  // tuning::kPlanSmallTiles
      EXPECT_EQ(summary.tile_thread_items, 3);
      EXPECT_GT(summary.cut_rows, 0);
    }
  }
}

// tuning::kPlanTilesForLargeSkewed is off (powerlaw on the H100: planned
// tiles 0.939x cuSPARSE, the rule's csr_merge 1.006x): the rule's csr_merge.
// Forced, the tiles of csr_merge's shape still run right.
TEST_F(PlanTest, LargeSkewedRowsKeepTheRulesMergeAndForcedTilesOfItsShapeRunRight) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = gen::power_law(300'000, 300'000, 2.0, 30'000, seed);
  for (const reference::PlanSummary& summary : expect_plan_matches_golden(a, {}, PlanKind::kRule, seed, *executor_)) {
    EXPECT_EQ(summary.rule.kernel, reference::CsrAutoChoice::Kernel::kMerge);
  }
  for (const reference::PlanSummary& summary :
       expect_plan_matches_golden(a, {PlanKind::kTiles, 0, 0}, PlanKind::kTiles, seed, *executor_)) {
    EXPECT_EQ(summary.tile_threads, 512);
    EXPECT_EQ(summary.tile_thread_items, 5);
  }
}

TEST_F(PlanTest, SmallRegularAndLongRowsKeepTheRule) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  expect_plan_matches_golden(gen::stencil_2d_5pt(64, 48, seed), {}, PlanKind::kRule, seed, *executor_);
  expect_plan_matches_golden(rows_of_lengths(1200, 100'000, {2000}, seed), {}, PlanKind::kRule, seed, *executor_);
}

// ---- Every shape the packed slices' kernel is built for (plan::PlanSettings)

std::string shape_name(plan::SliceKernelShape shape) {
  return std::to_string(shape.loads) + " loads x " + std::to_string(shape.min_blocks) + " blocks";
}

// The long slices' kernel in each shape, on slices of every encoding (rows
// of 0-5: a batch of 4 and one of 1) and on rows of 27 (batches of 4, 8 and
// 16 each ending part-way).
TEST_F(PlanTest, EveryLongSlicesKernelShapeRunsRight) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix mixed = mixed_slices(32 * 300 + 5, 200'000, seed);
  const CsrMatrix stencil27 = gen::stencil_3d_27pt(20, 20, 20, seed);
  for (const plan::SliceKernelShape shape : plan::slice_kernel_shapes()) {
    SCOPED_TRACE(shape_name(shape));
    plan::PlanSettings settings;
    settings.slice_kernel = shape;
    for (const CsrMatrix* a : {&mixed, &stencil27}) {
      for (const reference::PlanSummary& summary :
           expect_plan_matches_golden(*a, {PlanKind::kSlices, 0, 0}, PlanKind::kSlices, seed, *executor_, settings)) {
        EXPECT_EQ(summary.slice_kernel, shape);
      }
    }
  }
}

// The short slices' kernel in each shape, on rows of at most its loads
// (empty rows, a partial last slice); rows one longer take the long kernel.
TEST_F(PlanTest, EveryShortSlicesKernelShapeRunsRight) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  for (const plan::SliceKernelShape shape : plan::short_slice_kernel_shapes()) {
    SCOPED_TRACE(shape_name(shape));
    plan::PlanSettings settings;
    settings.short_slice_kernel = shape;
    const index_t loads = shape.loads;
    const CsrMatrix fits = rows_of_lengths(32 * 40 + 9, 70'000, {loads, 0, 1, loads, loads - 1}, seed);
    for (const reference::PlanSummary& summary :
         expect_plan_matches_golden(fits, {PlanKind::kSlices, 0, 0}, PlanKind::kSlices, seed, *executor_, settings)) {
      EXPECT_EQ(summary.slice_kernel, shape);
    }
    const CsrMatrix wider = rows_of_lengths(32 * 40 + 9, 70'000, {loads + 1, 0, loads}, seed);
    for (const reference::PlanSummary& summary :
         expect_plan_matches_golden(wider, {PlanKind::kSlices, 0, 0}, PlanKind::kSlices, seed, *executor_, settings)) {
      EXPECT_EQ(summary.slice_kernel, settings.slice_kernel);
    }
  }
}

// ---- Two plans alive together, run in turn

TEST_F(PlanTest, TwoPlansRunInTurnEachTimeRight) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix first = small_with_long_rows(seed);
  const CsrMatrix second = rows_of_lengths(
      60, 9000, {2047, 2047, 2048, 0, 2049, 1, 4095, 4096, 2046, 0, 0, 2527, 2526, 2528, 5055, 2016}, seed + 1);
  const std::vector<float> x_first = random_vector(static_cast<std::size_t>(first.cols), seed);
  const std::vector<float> x_second = random_vector(static_cast<std::size_t>(second.cols), seed + 2);
  std::vector<UploadedMatrix> first_layouts = uploaded_layouts(SPMV_FORMAT_CSR, first);
  std::vector<UploadedMatrix> second_layouts = uploaded_layouts(SPMV_FORMAT_CSR, second);
  ASSERT_EQ(first_layouts.size(), 1u);  // the plans below are of these layouts
  ASSERT_EQ(second_layouts.size(), 1u);
  const auto view = [](const std::vector<UploadedMatrix>& layouts) {
    return *static_cast<const spmv_csr_view*>(layouts.front().view());
  };
  const PlanRequest tiles{PlanKind::kTiles, 64, 1};  // many tiles, many cut rows
  const CsrAutoPlan first_plan = CsrAutoPlan::build(view(first_layouts), executor_->stream(), tiles);
  const CsrAutoPlan second_plan = CsrAutoPlan::build(view(second_layouts), executor_->stream(), tiles);
  ASSERT_GT(first_plan.summary().cut_rows, 0);
  ASSERT_GT(second_plan.summary().cut_rows, 0);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    g_plan = &first_plan;
    expect_matches_golden(kRepeatable, first_layouts, first, x_first, *executor_);
    g_plan = &second_plan;
    expect_matches_golden(kRepeatable, second_layouts, second, x_second, *executor_);
  }
  g_plan = nullptr;
}

// ---- The padding bits

TEST_F(PlanTest, AValueWithThePaddingBitsGetsTheRuleNotSlices) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  CsrMatrix a = gen::stencil_2d_5pt(600, 600, seed);
  a.values[12'345] = std::bit_cast<float>(plan::kPaddingBits);
  const std::vector<UploadedMatrix> layouts = uploaded_layouts(SPMV_FORMAT_CSR, a);
  const auto& view = *static_cast<const spmv_csr_view*>(layouts.front().view());
  EXPECT_EQ(CsrAutoPlan::build(view, executor_->stream()).kind(), PlanKind::kRule);
  EXPECT_THROW(CsrAutoPlan::build(view, executor_->stream(), PlanRequest{PlanKind::kSlices, 0, 0}),
               std::invalid_argument);
}

// ---- Each kind forced on every conformance matrix

// Packed slices pad a slice to its longest row: beyond this many slots the
// case is not run forced (the single row of 3M entries: 96M slots, a thread
// walking 3M of them).
constexpr std::int64_t kMostForcedSlots = std::int64_t{1} << 24;

class ForcedPlanTest : public PlanTest {
 public:
  ForcedPlanTest(PlanRequest request, const MatrixCase& matrix_case) : request_(request), case_(matrix_case) {}

 protected:
  void TestBody() override {
    const std::uint64_t seed = fresh_seed();
    SPMV_TRACE_SEED(seed);
    const CsrMatrix a = case_.make(seed);
    if (request_.kind == PlanKind::kSlices && plan::sliced_ell_slots(a.row_ptr) > kMostForcedSlots) {
      GTEST_SKIP() << "packed slices of this matrix: " << plan::sliced_ell_slots(a.row_ptr)
                   << " slots, beyond this test's size";
    }
    expect_plan_matches_golden(a, request_, std::nullopt, seed, *executor_);
  }

 private:
  PlanRequest request_;
  const MatrixCase& case_;
};

struct ForcedKind {
  std::string suite;
  PlanRequest request;
};

// Each kind forced, and the planned tiles in every shape the kernel is
// built for: csr_merge's (ForcedTiles512x5) and each small one
// (ForcedTiles64x1 .. ForcedTiles256x5).
const std::vector<ForcedKind>& forced_kinds() {
  static const std::vector<ForcedKind> kinds = [] {
    std::vector<ForcedKind> list = {{"ForcedSlices", {PlanKind::kSlices, 0, 0}},
                                    {"ForcedTiles512x5", {PlanKind::kTiles, 512, 5}}};
    for (const plan::TileShape& shape : plan::small_tile_shapes()) {
      list.push_back({"ForcedTiles" + std::to_string(shape.threads) + "x" + std::to_string(shape.items),
                      {PlanKind::kTiles, shape.threads, shape.items}});
    }
    list.push_back({"ForcedRule", {PlanKind::kRule, 0, 0}});
    return list;
  }();
  return kinds;
}

const bool kForcedRegistered = [] {
  for (const ForcedKind& kind : forced_kinds()) {
    for (const MatrixCase& matrix_case : matrix_cases()) {
      testing::RegisterTest(
          kind.suite.c_str(), matrix_case.name, nullptr, nullptr, __FILE__, __LINE__,
          [&kind, &matrix_case]() -> testing::Test* { return new ForcedPlanTest(kind.request, matrix_case); });
    }
  }
  return true;
}();

TEST_F(PlanTest, ForcedSlicesOnSmallMixedRowsOfEveryEncoding) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (const index_t rows : {1, 31, 33, 32 * 50 + 5}) {
    SCOPED_TRACE(std::to_string(rows) + " rows");
    const CsrMatrix a = mixed_slices(rows, 200'000, rng());
    expect_plan_matches_golden(a, {PlanKind::kSlices, 0, 0}, PlanKind::kSlices, rng(), *executor_);
  }
}

}  // namespace
}  // namespace spmv::test
