// The host side of auto's plan (reference/include/spmv/reference/
// plan_layout.hpp): the packed slices and merge tiles laid out from CSR,
// their CPU products, and the choice of plan. No GPU needed.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "matrix_cases.hpp"
#include "plan_matrices.hpp"
#include "sparse_test_support.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/reference/plan_layout.hpp"

namespace spmv::test {
namespace {

namespace plan = reference::plan;
using reference::CsrAutoChoice;
using reference::PlanKind;
using reference::RowLengthStats;
using Kernel = CsrAutoChoice::Kernel;
using plan::SliceEncoding;

plan::HostCsr host_view(const CsrMatrix& a) { return {a.rows, a.cols, a.row_ptr, a.col_idx, a.values}; }

float padding() { return std::bit_cast<float>(plan::kPaddingBits); }

// 5 x 5 tridiagonal, values 1 .. 13 in row order.
CsrMatrix tridiagonal_5() {
  CsrMatrix a;
  a.rows = 5;
  a.cols = 5;
  a.row_ptr = {0, 2, 5, 8, 11, 13};
  a.col_idx = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4};
  a.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  return a;
}

TEST(PlanSlices, ABandIsOneDiagonalSliceWithoutColumnIndices) {
  const std::optional<plan::PackedSlices> packed = plan::pack_slices(host_view(tridiagonal_5()));
  ASSERT_TRUE(packed.has_value());
  ASSERT_EQ(packed->slices(), 1);
  EXPECT_EQ(packed->headers[0], (plan::SliceHeader{0, 0, 0, 3 * 4 + 0}));
  EXPECT_EQ(packed->headers[0].encoding(), SliceEncoding::kDiagonals);
  EXPECT_EQ(packed->diagonals, (std::vector<std::int32_t>{-1, 0, 1}));
  EXPECT_TRUE(packed->narrow.empty());
  EXPECT_TRUE(packed->wide.empty());
  // Slot k of row r at k * 32 + r: diagonal -1, 0, +1; rows 5-31 padding.
  const float p = padding();
  const std::vector<std::vector<float>> slots = {
      {p, 3, 6, 9, 12},   // diagonal -1
      {1, 4, 7, 10, 13},  // diagonal 0
      {2, 5, 8, 11, p},   // diagonal +1
  };
  ASSERT_EQ(packed->values.size(), 96u);
  for (std::size_t k = 0; k < 3; ++k) {
    for (std::size_t row = 0; row < 32; ++row) {
      const float expected = row < 5 ? slots[k][row] : p;
      EXPECT_EQ(std::bit_cast<std::uint32_t>(packed->values[k * 32 + row]), std::bit_cast<std::uint32_t>(expected))
          << "slot " << k << " row " << row;
    }
  }
  EXPECT_EQ(packed->slices_by_encoding, (std::array<std::int64_t, 3>{1, 0, 0}));
  EXPECT_EQ(packed->bytes(), 16 + 96 * 4 + 3 * 4);
  EXPECT_EQ(plan::sliced_ell_slots(tridiagonal_5().row_ptr), 96);
}

// 32 rows of two entries, columns 0 and `far`: 64 diagonals, one span.
CsrMatrix two_columns(index_t far) {
  CsrMatrix a;
  a.rows = 32;
  a.cols = far + 1;
  a.row_ptr.clear();
  for (index_t row = 0; row <= 32; ++row) a.row_ptr.push_back(2 * row);
  for (index_t row = 0; row < 32; ++row) {
    a.col_idx.push_back(0);
    a.col_idx.push_back(far);
  }
  a.values = random_vector(64, 3);
  return a;
}

TEST(PlanSlices, ASpanOf65535ColumnsIsNarrowAndOneMoreIsWide) {
  const std::optional<plan::PackedSlices> narrow = plan::pack_slices(host_view(two_columns(65535)));
  ASSERT_TRUE(narrow.has_value());
  EXPECT_EQ(narrow->headers[0].encoding(), SliceEncoding::kNarrow);
  EXPECT_EQ(narrow->headers[0].width(), 2);
  EXPECT_EQ(narrow->headers[0].base, 0);
  EXPECT_EQ(narrow->narrow[0], 0);
  EXPECT_EQ(narrow->narrow[32], 65535);
  EXPECT_TRUE(narrow->wide.empty());

  const std::optional<plan::PackedSlices> wide = plan::pack_slices(host_view(two_columns(65536)));
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->headers[0].encoding(), SliceEncoding::kWide);
  EXPECT_EQ(wide->wide[32 + 7], 65536);
  EXPECT_TRUE(wide->narrow.empty());
}

TEST(PlanSlices, AValueWithThePaddingBitsGetsNoPackedSlices) {
  CsrMatrix a = tridiagonal_5();
  a.values[7] = padding();
  EXPECT_FALSE(plan::pack_slices(host_view(a)).has_value());
  a.values[7] = std::bit_cast<float>(0x7fc00000U);  // an ordinary NaN is a value like any other
  EXPECT_TRUE(plan::pack_slices(host_view(a)).has_value());
}

// The layout read back entry by entry: every (row, column, value) of A
// once, in column order, and nothing else.
CsrMatrix unpack(const plan::PackedSlices& packed) {
  CsrMatrix a;
  a.rows = packed.rows;
  a.cols = packed.cols;
  a.row_ptr.assign(static_cast<std::size_t>(packed.rows) + 1, 0);
  std::vector<std::vector<std::pair<index_t, float>>> rows(static_cast<std::size_t>(packed.rows));
  for (std::int64_t slice = 0; slice < packed.slices(); ++slice) {
    const plan::SliceHeader& h = packed.headers[static_cast<std::size_t>(slice)];
    for (std::int64_t lane = 0; lane < 32; ++lane) {
      const std::int64_t row = slice * 32 + lane;
      for (std::int64_t k = 0; k < h.width(); ++k) {
        const auto slot = static_cast<std::size_t>(32 * k + lane);
        const float value = packed.values[static_cast<std::size_t>(32 * std::int64_t{h.value_group}) + slot];
        if (std::bit_cast<std::uint32_t>(value) == plan::kPaddingBits) continue;
        EXPECT_LT(row, packed.rows) << "an entry in a row past the matrix, slice " << slice;
        std::int64_t column = 0;
        if (h.encoding() == SliceEncoding::kDiagonals) {
          column = row + packed.diagonals.at(static_cast<std::size_t>(h.index + k));
        } else if (h.encoding() == SliceEncoding::kNarrow) {
          column = h.base + packed.narrow.at(static_cast<std::size_t>(32 * std::int64_t{h.index}) + slot);
        } else {
          column = packed.wide.at(static_cast<std::size_t>(32 * std::int64_t{h.index}) + slot);
        }
        if (row < packed.rows) rows[static_cast<std::size_t>(row)].emplace_back(static_cast<index_t>(column), value);
      }
    }
  }
  for (std::size_t row = 0; row < rows.size(); ++row) {
    for (const auto& [column, value] : rows[row]) {
      a.col_idx.push_back(column);
      a.values.push_back(value);
    }
    a.row_ptr[row + 1] = a.nnz();
  }
  return a;
}

// A host product through a plan's layout, `product(x, y)`, on a fresh x
// into a poisoned y, against the golden result.
template <typename Product>
void expect_product_right(const CsrMatrix& a, std::uint64_t seed, Product product) {
  const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), seed);
  std::vector<float> y(static_cast<std::size_t>(a.rows), std::bit_cast<float>(kPoisonBits));
  product(x, y);
  const ToleranceVerdict verdict = check_result(a, x, golden_spmv(a, x), y);
  EXPECT_TRUE(verdict.passed) << verdict.describe();
}

void expect_packs_and_multiplies(const CsrMatrix& a, std::uint64_t seed) {
  const std::optional<plan::PackedSlices> packed = plan::pack_slices(host_view(a));
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(packed->slices(), (a.rows + 31) / 32);
  expect_same(unpack(*packed), a);
  expect_product_right(a, seed, [&](const auto& x, auto& y) { plan::packed_slices_spmv(*packed, x, y); });
}

TEST(PlanSlices, EveryEncodingHoldsItsEntriesAndMultipliesRight) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  // A partial last slice (rows not a multiple of 32), every encoding.
  const index_t rows = 32 * std::uniform_int_distribution<index_t>(20, 60)(rng) + 17;
  const CsrMatrix a = mixed_slices(rows, 200'000, rng());
  const std::optional<plan::PackedSlices> packed = plan::pack_slices(host_view(a));
  ASSERT_TRUE(packed.has_value());
  for (const SliceEncoding encoding : {SliceEncoding::kDiagonals, SliceEncoding::kNarrow, SliceEncoding::kWide}) {
    EXPECT_GT(packed->slices_by_encoding[static_cast<std::size_t>(encoding)], 0) << plan::encoding_name(encoding);
  }
  // Fewer bytes than CSR's values, columns and row pointers.
  EXPECT_LT(packed->bytes(), 8 * std::int64_t{a.nnz()} + 4 * (std::int64_t{a.rows} + 1));
  expect_packs_and_multiplies(a, rng());
}

TEST(PlanSlices, GeneratedMatricesEmptyRowsAndASingleRow) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<std::string, CsrMatrix>> matrices = {
      {"stencil 2d", gen::stencil_2d_5pt(37, 29, rng())},
      {"stencil 3d 27", gen::stencil_3d_27pt(9, 8, 7, rng())},
      {"power law", gen::power_law(3001, 2000, 1.5, 700, rng())},
      {"random, empty rows", gen::with_empty_rows(gen::uniform_random(1037, 90'000, 9, rng()), 0.3, rng())},
      {"one row", rows_of_lengths(1, 70'000, {5000}, rng())},
      {"one by one", gen::diagonal(1, rng())},
      {"no entries", gen::empty(70, 50)},
      {"no rows", gen::empty(0, 8)},
  };
  for (const auto& [name, a] : matrices) {
    SCOPED_TRACE(name);
    expect_packs_and_multiplies(a, rng());
  }
}

TEST(PlanSlices, SlicesWithTheSameDiagonalsShareThem) {
  const std::optional<plan::PackedSlices> packed = plan::pack_slices(host_view(gen::stencil_2d_5pt(256, 256, 1)));
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(packed->slices_by_encoding[0], packed->slices());
  // The first and last rows of the grid lack a diagonal; the rest share five.
  EXPECT_LE(packed->diagonals.size(), 5u * 4);
  EXPECT_LT(packed->bytes(), 4 * std::int64_t{gen::stencil_2d_5pt(256, 256, 1).nnz()} * 102 / 100 + 16 * 2048);
}

// ---- Merge tiles

TEST(PlanTiles, AHandCheckedPartition) {
  // Rows of 5, 0 and 1 entries: the path is e0 e1 e2 | e3 e4 R0 | R1 e5 R2.
  const std::vector<std::int32_t> row_ptr = {0, 5, 5, 6};
  const plan::MergeTiles tiles = plan::plan_merge_tiles(row_ptr, 3, 0);
  EXPECT_EQ(tiles.starts, (std::vector<plan::TileStart>{{0, 0}, {0, 3}, {1, 5}, {3, 6}}));
  // Row 0 is cut after its third entry: tile 0 hands over its end, tile 1
  // its start; the other rows are whole.
  EXPECT_EQ(tiles.seams, (std::vector<plan::TileSeam>{{-1, -1, 0, 0}, {0, 1, -1, -1}, {-1, -1, -1, -1}}));
  EXPECT_EQ(tiles.cut_rows, (std::vector<plan::CutRow>{{0, 2, 0, 0}}));
  EXPECT_EQ(tiles.part_slots, 2);
}

// Every tile start is a point of the merge path within `max_shift` of its
// even place, every tile holds at most `tile_items` items, only rows longer
// than 2 x max_shift are cut, every cut row's parts are handed over once
// each, and the tiles' product is right.
void expect_tiles_hold(const CsrMatrix& a, int tile_items, int max_shift, std::uint64_t seed) {
  SCOPED_TRACE("tiles of " + std::to_string(tile_items) + " items, shifts up to " + std::to_string(max_shift));
  const plan::MergeTiles tiles = plan::plan_merge_tiles(a.row_ptr, tile_items, max_shift);
  const std::int64_t path = std::int64_t{a.rows} + a.nnz();
  const std::int64_t spacing = max_shift > 0 ? tile_items - 2 * max_shift - 1 : tile_items;
  // One fewer where the last boundary moved to the path's end.
  ASSERT_LE(tiles.tiles(), (path + spacing - 1) / spacing);
  ASSERT_GE(tiles.tiles(), (path + spacing - 1) / spacing - (max_shift > 0 ? 1 : 0));
  ASSERT_EQ(tiles.starts.size(), static_cast<std::size_t>(tiles.tiles()) + 1);
  for (std::size_t t = 0; t < tiles.starts.size(); ++t) {
    const plan::TileStart s = tiles.starts[t];
    const std::int64_t even = std::min<std::int64_t>(static_cast<std::int64_t>(t) * spacing, path);
    const std::int64_t diagonal = std::int64_t{s.row} + s.entry;
    if (t == 0 || t + 1 == tiles.starts.size()) {
      ASSERT_EQ(diagonal, t == 0 ? 0 : path) << "tile " << t;
    } else {
      ASSERT_GE(diagonal, even - max_shift) << "tile " << t;
      ASSERT_LE(diagonal, even + max_shift + 1) << "tile " << t;
    }
    if (t > 0) {
      const std::int64_t items = diagonal - tiles.starts[t - 1].row - tiles.starts[t - 1].entry;
      ASSERT_GE(items, 1) << "tile " << t - 1;
      ASSERT_LE(items, tile_items) << "tile " << t - 1;
    }
    ASSERT_GE(s.row, 0);
    ASSERT_LE(s.row, a.rows);
    ASSERT_LE(a.row_ptr[s.row], s.entry) << "tile " << t;  // the rows before it end at or before its entry
    if (s.row < a.rows) {
      ASSERT_GE(a.row_ptr[s.row + 1], s.entry) << "tile " << t;  // and its row does not end before it
      if (max_shift > 0 && s.entry > a.row_ptr[s.row] && t + 1 < tiles.starts.size()) {
        EXPECT_GT(s.entry - a.row_ptr[s.row], max_shift) << "tile " << t << " cuts a row near its start";
        EXPECT_GT(a.row_ptr[s.row + 1] - s.entry, max_shift) << "tile " << t << " cuts a row near its end";
      }
    }
  }
  std::vector<int> uses(static_cast<std::size_t>(tiles.part_slots), 0);
  for (const plan::TileSeam& seam : tiles.seams) {
    for (const auto& [cut, slot] :
         {std::pair{seam.first_cut, seam.first_slot}, std::pair{seam.last_cut, seam.last_slot}}) {
      if (cut < 0) continue;
      const plan::CutRow& row = tiles.cut_rows.at(static_cast<std::size_t>(cut));
      ASSERT_GE(slot, row.first_slot);
      ASSERT_LT(slot, row.first_slot + row.parts);
      ++uses.at(static_cast<std::size_t>(slot));
    }
  }
  for (std::size_t slot = 0; slot < uses.size(); ++slot) ASSERT_EQ(uses[slot], 1) << "part slot " << slot;
  for (const plan::CutRow& row : tiles.cut_rows) {
    EXPECT_GE(row.parts, 2) << "row " << row.row;
    EXPECT_GT(a.row_length(row.row), 2 * max_shift) << "row " << row.row;
  }

  expect_product_right(a, seed, [&](const auto& x, auto& y) { plan::merge_tiles_spmv(tiles, host_view(a), x, y); });
}

TEST(PlanTiles, LongAndEmptyRowsAcrossTilesOfEverySize) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<std::string, CsrMatrix>> matrices = {
      {"rows at tile edges",
       rows_of_lengths(60, 9000, {1247, 1248, 1249, 0, 2527, 1, 2528, 4095, 0, 0, 2526, 5055, 7}, rng())},
      {"power law", gen::power_law(3001, 2000, 1.5, 1900, rng())},
      {"short rows", gen::uniform_random(5000, 5000, 7, rng())},
      {"mostly empty", gen::with_empty_rows(gen::uniform_random(3000, 400, 3, rng()), 0.9, rng())},
      {"one row", rows_of_lengths(1, 20'000, {20'000}, rng())},
      {"one by one", gen::diagonal(1, rng())},
      {"no entries", gen::empty(70, 50)},
      {"no rows", gen::empty(0, 8)},
  };
  for (const auto& [name, a] : matrices) {
    SCOPED_TRACE(name);
    for (const auto& [tile_items, max_shift] :
         {std::pair{1, 0}, {7, 0}, {15, 3}, {123, 0}, {123, 20}, {608, 32}, {1248, 0}, {1248, 32}, {2528, 32}}) {
      expect_tiles_hold(a, tile_items, max_shift, rng());
    }
  }
}

TEST(PlanTiles, ShiftedBoundariesCutOnlyLongRows) {
  // Rows of 10 and one of 200: even tiles of 41 items cut many rows of 10;
  // shifted by up to 5, none of them.
  std::vector<std::int32_t> lengths(300, 10);
  lengths[150] = 200;
  const CsrMatrix a = rows_of_lengths(300, 1000, lengths, 5);
  const plan::MergeTiles even = plan::plan_merge_tiles(a.row_ptr, 41, 0);
  const plan::MergeTiles shifted = plan::plan_merge_tiles(a.row_ptr, 41 + 11, 5);
  EXPECT_GT(even.cut_rows.size(), 10u);
  ASSERT_EQ(shifted.cut_rows.size(), 1u);
  EXPECT_EQ(shifted.cut_rows[0].row, 150);
}

TEST(PlanTiles, RefusesATileOfNoItems) {
  const std::vector<std::int32_t> row_ptr = {0, 1};
  EXPECT_THROW(plan::plan_merge_tiles(row_ptr, 0, 0), std::invalid_argument);
  EXPECT_THROW(plan::plan_merge_tiles(row_ptr, 130, 32), std::invalid_argument);  // spacing 65, moves of 65
  EXPECT_NO_THROW(plan::plan_merge_tiles(row_ptr, 131, 32));
  EXPECT_THROW(plan::plan_merge_tiles(row_ptr, 8, -1), std::invalid_argument);
}

// Every small-matrix shape of the planned tile kernel, as lay_out_plan
// cuts its tiles (tile items threads x items - 32, boundaries shifted by
// planned_tile_shift): the tiles hold, on the long and empty rows above.
TEST(PlanTiles, EverySmallShapeLaysOutItsTiles) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const std::vector<plan::TileShape> shapes = plan::small_tile_shapes();
  ASSERT_EQ(shapes.size(), 12u);
  EXPECT_EQ(shapes.front(), (plan::TileShape{64, 1}));
  EXPECT_EQ(shapes.back(), (plan::TileShape{256, 5}));
  const std::vector<std::pair<std::string, CsrMatrix>> matrices = {
      {"rows at tile edges",
       rows_of_lengths(60, 9000, {1247, 1248, 1249, 0, 31, 32, 33, 95, 96, 97, 159, 160, 1, 2527, 0, 0, 7}, rng())},
      {"rajat01-like", rows_of_lengths(300, 2000, {1442, 3, 0, 5, 552, 9, 1310, 2}, rng())},
      {"power law", gen::power_law(3001, 2000, 1.5, 1900, rng())},
      {"mostly empty", gen::with_empty_rows(gen::uniform_random(3000, 400, 3, rng()), 0.9, rng())},
      {"one row", rows_of_lengths(1, 5000, {5000}, rng())},
      {"no entries", gen::empty(70, 50)},
  };
  for (const plan::TileShape& shape : shapes) {
    SCOPED_TRACE(std::to_string(shape.threads) + " threads x " + std::to_string(shape.items) + " items");
    EXPECT_TRUE(plan::is_planned_tile_shape(shape.threads, shape.items));
    const int tile_items = plan::merge_tile_items(shape.threads, shape.items);
    EXPECT_EQ(tile_items, shape.threads * shape.items - 32);
    const int shift = plan::planned_tile_shift(tile_items);
    EXPECT_EQ(shift, std::min(32, tile_items / 8));
    for (const auto& [name, a] : matrices) {
      SCOPED_TRACE(name);
      expect_tiles_hold(a, tile_items, shift, rng());
      const plan::HostPlan laid = plan::lay_out_plan(host_view(a), {PlanKind::kTiles, shape.threads, shape.items});
      ASSERT_TRUE(laid.tiles.has_value());
      EXPECT_EQ(laid.tiles->tile_items, tile_items);
      EXPECT_EQ(laid.tiles->starts, plan::plan_merge_tiles(a.row_ptr, tile_items, shift).starts);
    }
  }
  EXPECT_TRUE(plan::is_planned_tile_shape(512, 5));  // csr_merge's
  EXPECT_FALSE(plan::is_planned_tile_shape(512, 3));
  EXPECT_FALSE(plan::is_planned_tile_shape(256, 4));
  EXPECT_EQ(plan::planned_tile_shift(plan::merge_tile_items(256, 5)), 32);  // the default shape's, unchanged
}

// Smaller tiles cut a long row into more parts: 64 x 1 tiles (32 items,
// shifts of 4, spaced 23 apart) cut a row of 1442 into some 60, 256 x 5
// tiles (spaced 1183 apart) into 2 or 3.
TEST(PlanTiles, SmallerShapesCutLongRowsIntoMoreParts) {
  const CsrMatrix a = rows_of_lengths(200, 3000, {1442, 3, 0, 5}, 11);
  const auto parts_of_longest = [&](plan::TileShape shape) {
    const plan::HostPlan laid = plan::lay_out_plan(host_view(a), {PlanKind::kTiles, shape.threads, shape.items});
    std::int32_t most = 0;
    for (const plan::CutRow& row : laid.tiles->cut_rows) most = std::max(most, row.parts);
    return most;
  };
  EXPECT_GE(parts_of_longest({64, 1}), 1442 / 32);
  EXPECT_LE(parts_of_longest({256, 5}), 3);
}

// ---- The choice

TEST(PlanChoice, RegularLargeMatricesGetPackedSlices) {
  // stencil2d of spmv-bench's suite (2048 x 2048, rows of 3-5; its sliced
  // ELL pads by 0.1%), shortrows (rows of 2), random (rows of 16), stencil27.
  const RowLengthStats stencil2d{4'194'304, 4'194'304, 20'963'328, 5, 4096};
  const PlanKind slices = PlanKind::kSlices;
  EXPECT_EQ(plan::choose_plan(stencil2d, reference::choose_csr_kernel(stencil2d), 20'971'520).kind, slices);
  const RowLengthStats shortrows{12'000'000, 12'000'000, 24'000'000, 2, 11'000'000};
  EXPECT_EQ(plan::choose_plan(shortrows, reference::choose_csr_kernel(shortrows), 24'000'000).kind, slices);
  const RowLengthStats random{2'000'000, 2'000'000, 32'000'000, 16, 1'999'000};
  EXPECT_EQ(plan::choose_plan(random, reference::choose_csr_kernel(random), 32'000'000).kind, slices);
  const RowLengthStats stencil27{1'000'000, 1'000'000, 26'463'592, 27, 20'202};
  EXPECT_EQ(plan::choose_plan(stencil27, reference::choose_csr_kernel(stencil27), 27'000'000).kind, slices);
}

TEST(PlanChoice, PaddedLongOrSmallMatricesKeepTheRule) {
  // Padding beyond kPlanSlicesMaxPadding (105%).
  const RowLengthStats spread{2'000'000, 2'000'000, 20'000'000, 28, 1'999'000};
  const CsrAutoChoice rule = reference::choose_csr_kernel(spread);
  EXPECT_EQ(plan::choose_plan(spread, rule, 41'000'000).kind, PlanKind::kSlices);
  const plan::PlanChoice padded = plan::choose_plan(spread, rule, 41'000'032);
  EXPECT_EQ(padded.kind, PlanKind::kRule);
  EXPECT_EQ(padded.rule, rule);
  // longrows: rows of 2000, beyond kPlanSlicesMaxMean.
  const RowLengthStats longrows{12'000, 1'000'000, 24'000'000, 2000, 999'000};
  EXPECT_EQ(plan::choose_plan(longrows, reference::choose_csr_kernel(longrows), 24'000'000).kind, PlanKind::kRule);
  // delaunay_n16: small (a merge path of 458,686 items, under
  // kPlanSlicesMinPath's 2^19), the rule's csr_rows.
  const RowLengthStats delaunay{65'536, 65'536, 393'150, 17, 65'000};
  const plan::PlanChoice small = plan::choose_plan(delaunay, reference::choose_csr_kernel(delaunay), 400'000);
  EXPECT_EQ(small.kind, PlanKind::kRule);
  EXPECT_EQ(small.rule.kernel, Kernel::kRows);
  // No entries.
  EXPECT_EQ(plan::choose_plan(RowLengthStats{70, 50, 0, 0, 0}, CsrAutoChoice{Kernel::kScalar, 1}, 0).kind,
            PlanKind::kRule);
}

// Small matrices (a merge path of at most tuning::kAutoSmallPath items) get
// packed slices only for a mean row below tuning::kPlanSmallSlicesMaxMean
// (16): on the H200, bcsstk33 (mean 67.7) ran 14.53 us on slices against
// 5.89 for the rule; atco_enc1 (mean 4.2) 5.15 against 4.99.
TEST(PlanChoice, SmallMatricesWithLongerRowsKeepTheRule) {
  const RowLengthStats bcsstk33{8738, 8738, 591'904, 141, 8737};
  const CsrAutoChoice rule33 = reference::choose_csr_kernel(bcsstk33);
  EXPECT_EQ(plan::choose_plan(bcsstk33, rule33, 600'000).kind, PlanKind::kRule);
  const RowLengthStats atco{152'744, 152'744, 641'139, 11, 152'000};
  EXPECT_EQ(plan::choose_plan(atco, reference::choose_csr_kernel(atco), 700'000).kind, PlanKind::kSlices);
  // Means on either side of 16, small and past kAutoSmallPath.
  const auto rows_of = [](std::int64_t rows, std::int64_t length) {
    return RowLengthStats{rows, rows, rows * length, length, 100};
  };
  for (const auto& [stats, kind] :
       {std::pair{rows_of(40'000, 15), PlanKind::kSlices}, std::pair{rows_of(40'000, 16), PlanKind::kRule},
        std::pair{rows_of(70'000, 16), PlanKind::kSlices}}) {
    EXPECT_EQ(plan::choose_plan(stats, reference::choose_csr_kernel(stats), stats.nnz).kind, kind)
        << stats.rows << " rows of " << stats.max_row;
  }
}

// Chosen tiles stay only where at most 1/8 of the tiles' count are cut
// rows (tuning::kPlanTilesMaxCutShare; on the H200, wiki-Vote's 107 cut rows
// in 391 tiles ran 8.29 us against the rule's one-launch merge's 6.82).
TEST(PlanLayOut, TilesWithManyCutRowsFallBackToTheRule) {
  plan::MergeTiles tiles;
  tiles.seams.resize(16);
  tiles.cut_rows.resize(2);
  EXPECT_TRUE(plan::keeps_planned_tiles(tiles));
  tiles.cut_rows.resize(3);
  EXPECT_FALSE(plan::keeps_planned_tiles(tiles));
  // 300 rows of 1600 (the one-launch merge): every row cut, 300 cut rows in
  // some 1700 tiles.
  const CsrMatrix long_rows = rows_of_lengths(300, 2000, std::vector<index_t>(300, 1600), 5);
  const plan::HostPlan laid = plan::lay_out_plan(host_view(long_rows));
  EXPECT_EQ(laid.choice.kind, PlanKind::kRule);
  EXPECT_EQ(laid.choice.rule.kernel, Kernel::kMergeSingle);
  EXPECT_FALSE(laid.tiles.has_value());
  EXPECT_EQ(laid.choice.tile_threads, 0);
  EXPECT_EQ(laid.description, "the rule's csr_merge (one launch, 256 threads/tile)");
  // Forced, they stay.
  const plan::HostPlan forced = plan::lay_out_plan(host_view(long_rows), {PlanKind::kTiles, 0, 0});
  EXPECT_EQ(forced.choice.kind, PlanKind::kTiles);
  ASSERT_TRUE(forced.tiles.has_value());
  EXPECT_FALSE(plan::keeps_planned_tiles(*forced.tiles));
  // A small arrow (one row of 3000): few cut rows, the tiles stay.
  const plan::HostPlan arrow = plan::lay_out_plan(host_view(gen::arrow(3000, 7)));
  EXPECT_EQ(arrow.choice.kind, PlanKind::kTiles);
  ASSERT_TRUE(arrow.tiles.has_value());
  EXPECT_TRUE(plan::keeps_planned_tiles(*arrow.tiles));
}

TEST(PlanChoice, TheRulesMergeTilesArePlanned) {
  // rajat01: row blocks overflow their stage; settled, the one-launch merge.
  const RowLengthStats rajat01{6833, 6833, 43'250, 1442, 6832};
  const CsrAutoChoice settled = reference::settle_row_blocks(reference::choose_csr_kernel(rajat01), 3577);
  ASSERT_EQ(settled.kernel, Kernel::kMergeSingle);
  const plan::PlanChoice small = plan::choose_plan(rajat01, settled, 6833 * 100);
  EXPECT_EQ(small.kind, PlanKind::kTiles);
  EXPECT_EQ(small.tile_threads, 128);  // tuning::kPlanSmallTiles
  EXPECT_EQ(small.tile_thread_items, 3);
  // astro-ph: skewed rows of up to 360 (tuning::kAutoSmallMergeRow: 512),
  // blocks of them too many; the rule's one-launch merge runs as it is.
  const RowLengthStats astro{16'706, 16'706, 242'502, 360, 16'700};
  const CsrAutoChoice astro_rule = reference::choose_csr_kernel(astro);
  ASSERT_EQ(astro_rule.kernel, Kernel::kMergeSingle);
  EXPECT_EQ(plan::choose_plan(astro, astro_rule, 16'706 * 40).kind, PlanKind::kRule);
  // powerlaw: the rule's csr_merge (tuning::kPlanTilesForLargeSkewed is
  // off: the planned tiles measured 0.939x cuSPARSE there, csr_merge 1.006x).
  const RowLengthStats powerlaw{2'000'000, 2'000'000, 22'300'000, 136'849, 1'999'000};
  const CsrAutoChoice merge = reference::choose_csr_kernel(powerlaw);
  ASSERT_EQ(merge.kernel, Kernel::kMerge);
  const plan::PlanChoice large = plan::choose_plan(powerlaw, merge, 1'000'000'000);
  EXPECT_EQ(large.kind, PlanKind::kRule);
  EXPECT_EQ(large.rule, merge);
  EXPECT_EQ(large.tile_threads, 0);
}

TEST(PlanChoice, FromTheArrays) {
  // A stencil past the small matrices: packed slices; a small arrow (a row
  // of 3000): the one-launch merge, planned; a small stencil: the rule.
  const CsrMatrix stencil = gen::stencil_2d_5pt(512, 512, 7);
  EXPECT_EQ(plan::choose_plan(host_view(stencil)).kind, PlanKind::kSlices);
  const plan::PlanChoice arrow = plan::choose_plan(host_view(gen::arrow(3000, 7)));
  EXPECT_EQ(arrow.kind, PlanKind::kTiles);
  EXPECT_EQ(arrow.tile_threads, 128);  // tuning::kPlanSmallTiles
  EXPECT_EQ(arrow.tile_thread_items, 3);
  EXPECT_EQ(plan::choose_plan(host_view(gen::stencil_2d_5pt(64, 64, 7))).kind, PlanKind::kRule);
  EXPECT_EQ(plan::choose_plan(host_view(gen::empty(0, 3))).kind, PlanKind::kRule);
}

TEST(PlanLayOut, LaysOutTheChosenOrTheForcedKind) {
  const CsrMatrix stencil = gen::stencil_2d_5pt(512, 512, 7);
  const plan::HostPlan chosen = plan::lay_out_plan(host_view(stencil));
  EXPECT_EQ(chosen.choice.kind, PlanKind::kSlices);
  ASSERT_TRUE(chosen.slices.has_value());
  EXPECT_FALSE(chosen.tiles.has_value());
  EXPECT_EQ(chosen.description, plan::describe_slices(*chosen.slices));

  // Forced tiles on a large matrix: csr_merge's shape; on a small one, the
  // small tiles' shape (tuning::kPlanSmallTiles); or the threads asked for.
  const plan::HostPlan large_tiles = plan::lay_out_plan(host_view(stencil), {PlanKind::kTiles, 0, 0});
  ASSERT_TRUE(large_tiles.tiles.has_value());
  EXPECT_EQ(large_tiles.choice.tile_threads, 512);
  EXPECT_EQ(large_tiles.choice.tile_thread_items, 5);
  EXPECT_EQ(large_tiles.tiles->tile_items, plan::merge_tile_items(512));
  const CsrMatrix small = gen::stencil_2d_5pt(64, 64, 7);
  const plan::HostPlan small_tiles = plan::lay_out_plan(host_view(small), {PlanKind::kTiles, 0, 0});
  EXPECT_EQ(small_tiles.choice.tile_threads, 128);  // tuning::kPlanSmallTiles
  EXPECT_EQ(small_tiles.choice.tile_thread_items, 3);
  EXPECT_EQ(small_tiles.description.find("merge tiles: "), 0u) << small_tiles.description;
  EXPECT_NE(small_tiles.description.find(" of 128 threads x 3 items, "), std::string::npos) << small_tiles.description;
  EXPECT_EQ(plan::lay_out_plan(host_view(small), {PlanKind::kTiles, 128, 0}).tiles->tile_items, 128 * 5 - 32);
  const plan::HostPlan shaped = plan::lay_out_plan(host_view(small), {PlanKind::kTiles, 64, 3});
  EXPECT_EQ(shaped.choice.tile_threads, 64);
  EXPECT_EQ(shaped.choice.tile_thread_items, 3);
  EXPECT_EQ(shaped.tiles->tile_items, 64 * 3 - 32);
  EXPECT_THROW(plan::lay_out_plan(host_view(small), {PlanKind::kTiles, 96, 0}), std::invalid_argument);
  EXPECT_THROW(plan::lay_out_plan(host_view(small), {PlanKind::kTiles, 128, 4}), std::invalid_argument);
  EXPECT_THROW(plan::lay_out_plan(host_view(small), {PlanKind::kTiles, 512, 1}), std::invalid_argument);
  EXPECT_THROW(plan::lay_out_plan(host_view(small), {PlanKind::kTiles, 32, 5}), std::invalid_argument);

  const plan::HostPlan rule = plan::lay_out_plan(host_view(small));
  EXPECT_EQ(rule.choice.kind, PlanKind::kRule);
  EXPECT_EQ(rule.description, "the rule's csr_rows");
  EXPECT_FALSE(rule.slices.has_value());
  const plan::HostPlan forced_slices = plan::lay_out_plan(host_view(small), {PlanKind::kSlices, 0, 0});
  EXPECT_EQ(forced_slices.choice.kind, PlanKind::kSlices);
  EXPECT_TRUE(forced_slices.slices.has_value());
}

TEST(PlanLayOut, PackedSlicesStayOnlyWhereTheySaveBytes) {
  // 5 x 5 tridiagonal: 412 bytes of slices + 40 of x and y, against CSR's
  // 8 x 13 + 4 x 6 + 40.
  const std::optional<plan::PackedSlices> packed = plan::pack_slices(host_view(tridiagonal_5()));
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(plan::product_bytes(*packed), 412 + 40);
  EXPECT_EQ(plan::product_bytes(host_view(tridiagonal_5())), 104 + 24 + 40);
  // Random columns past the small matrices, rows of 11 and 13 in turn:
  // 32-bit slices 13 slots wide (8% padding) would move 1.04 of CSR's
  // bytes; the rule stays. Rows of 12: 0.97, and rows of 2: 0.875, the
  // slices stay. Forced, the slices stay either way.
  const CsrMatrix padded = rows_of_lengths(100'000, 100'000, {11, 13}, 3);
  EXPECT_EQ(plan::choose_plan(host_view(padded)).kind, PlanKind::kSlices);
  EXPECT_EQ(plan::lay_out_plan(host_view(padded)).choice.kind, PlanKind::kRule);
  EXPECT_FALSE(plan::lay_out_plan(host_view(padded)).slices.has_value());
  EXPECT_EQ(plan::lay_out_plan(host_view(padded), {PlanKind::kSlices, 0, 0}).choice.kind, PlanKind::kSlices);
  const CsrMatrix random = gen::uniform_random(100'000, 100'000, 12, 3);
  EXPECT_EQ(plan::lay_out_plan(host_view(random)).choice.kind, PlanKind::kSlices);
  const CsrMatrix pairs = gen::uniform_random(600'000, 600'000, 2, 3);
  EXPECT_EQ(plan::lay_out_plan(host_view(pairs)).choice.kind, PlanKind::kSlices);
}

TEST(PlanLayOut, PaddingBitsInAValueFallBackToTheRuleUnlessSlicesAreForced) {
  CsrMatrix stencil = gen::stencil_2d_5pt(512, 512, 7);
  stencil.values[1000] = padding();
  const plan::HostPlan chosen = plan::lay_out_plan(host_view(stencil));
  EXPECT_EQ(chosen.choice.kind, PlanKind::kRule);
  EXPECT_EQ(chosen.choice.rule.kernel, Kernel::kScalar);
  EXPECT_THROW(plan::lay_out_plan(host_view(stencil), {PlanKind::kSlices, 0, 0}), std::invalid_argument);
}

// ---- The settings: tuning.hpp's thresholds as run-time parameters

TEST(PlanSettings, DefaultsAreTuningsValuesAndTheChoicesWithoutSettings) {
  const plan::PlanSettings defaults;
  EXPECT_EQ(defaults.slices_min_path, std::int64_t{1} << 19);              // tuning::kPlanSlicesMinPath
  EXPECT_EQ(defaults.slices_max_mean, 260.0);                              // kPlanSlicesMaxMean
  EXPECT_EQ(defaults.slices_max_padding, 1.05);                            // kPlanSlicesMaxPadding
  EXPECT_EQ(defaults.slices_max_bytes, 1.0);                               // kPlanSlicesMaxBytes
  EXPECT_EQ(defaults.slice_kernel, (plan::SliceKernelShape{4, 4}));        // kPlanSliceLoads x kPlanSliceMinBlocks
  EXPECT_EQ(defaults.short_slice_kernel, (plan::SliceKernelShape{2, 8}));  // kPlanShortSlice...
  EXPECT_NO_THROW(plan::check_settings(defaults));
  // The defaults passed or left out: the same choice and layout on shapes
  // that give each kind (the choices themselves are the tests above).
  for (const CsrMatrix& a : {gen::stencil_2d_5pt(512, 512, 7), gen::arrow(3000, 7), gen::stencil_2d_5pt(64, 64, 7),
                             gen::uniform_random(100'000, 100'000, 12, 3), gen::uniform_random(600'000, 600'000, 2, 3),
                             mixed_slices(32 * 300 + 5, 200'000, 5)}) {
    const plan::HostPlan laid = plan::lay_out_plan(host_view(a));
    const plan::HostPlan with_defaults = plan::lay_out_plan(host_view(a), {}, defaults);
    EXPECT_EQ(plan::choose_plan(host_view(a)), plan::choose_plan(host_view(a), defaults));
    EXPECT_EQ(laid.choice, with_defaults.choice);
    EXPECT_EQ(laid.description, with_defaults.description);
    EXPECT_EQ(laid.slice_kernel, with_defaults.slice_kernel);
  }
}

TEST(PlanSettings, TheMeanTheMergePathAndThePaddingBoundsMoveTheChoice) {
  // stencil27 of spmv-bench's suite: a mean of 26.46, padding 2%.
  const RowLengthStats stencil27{1'000'000, 1'000'000, 26'463'592, 27, 20'202};
  const CsrAutoChoice rule27 = reference::choose_csr_kernel(stencil27);
  plan::PlanSettings settings;
  settings.slices_max_mean = 26.4;
  EXPECT_EQ(plan::choose_plan(stencil27, rule27, 27'000'000, settings).kind, PlanKind::kRule);
  settings.slices_max_mean = 26.5;
  EXPECT_EQ(plan::choose_plan(stencil27, rule27, 27'000'000, settings).kind, PlanKind::kSlices);
  // longrows (rows of 2000) takes packed slices once the mean allows it.
  const RowLengthStats longrows{12'000, 1'000'000, 24'000'000, 2000, 999'000};
  settings.slices_max_mean = 2000;
  EXPECT_EQ(plan::choose_plan(longrows, reference::choose_csr_kernel(longrows), 24'000'000, settings).kind,
            PlanKind::kSlices);

  // Padding of exactly 10%, then 15%: kept up to the bound, inclusive.
  const RowLengthStats spread{2'000'000, 2'000'000, 20'000'000, 16, 1'999'000};
  const CsrAutoChoice rule = reference::choose_csr_kernel(spread);
  plan::PlanSettings padding;
  padding.slices_max_padding = 0.0999;
  EXPECT_EQ(plan::choose_plan(spread, rule, 22'000'000, padding).kind, PlanKind::kRule);
  padding.slices_max_padding = 0.10;
  EXPECT_EQ(plan::choose_plan(spread, rule, 22'000'000, padding).kind, PlanKind::kSlices);
  EXPECT_EQ(plan::choose_plan(spread, rule, 23'000'000, padding).kind, PlanKind::kRule);
  padding.slices_max_padding = 0.15;
  EXPECT_EQ(plan::choose_plan(spread, rule, 23'000'000, padding).kind, PlanKind::kSlices);

  // The merge path: 512 x 512 has 1,570,816 items, 64 x 64 20,224.
  const CsrMatrix stencil = gen::stencil_2d_5pt(512, 512, 7);
  plan::PlanSettings path;
  path.slices_min_path = 1'570'816;
  EXPECT_EQ(plan::choose_plan(host_view(stencil), path).kind, PlanKind::kRule);
  path.slices_min_path = 1'570'815;
  EXPECT_EQ(plan::choose_plan(host_view(stencil), path).kind, PlanKind::kSlices);
  path.slices_min_path = 0;
  EXPECT_EQ(plan::lay_out_plan(host_view(gen::stencil_2d_5pt(64, 64, 7)), {}, path).choice.kind, PlanKind::kSlices);

  // No setting takes the planned tiles from a small matrix with a long row.
  plan::PlanSettings all_slices;
  all_slices.slices_min_path = 0;
  all_slices.slices_max_mean = 1e9;
  all_slices.slices_max_padding = 1e9;
  all_slices.slices_max_bytes = 1e9;
  EXPECT_EQ(plan::choose_plan(host_view(gen::arrow(3000, 7)), all_slices).kind, PlanKind::kTiles);
  plan::PlanSettings no_slices;
  no_slices.slices_max_mean = 0;
  EXPECT_EQ(plan::choose_plan(host_view(stencil), no_slices).kind, PlanKind::kRule);
}

TEST(PlanSettings, TheBytesBoundKeepsOrDropsTheLaidOutSlices) {
  // Rows of 12 random columns: 0.97 of CSR's bytes; rows of 2: 0.875.
  const CsrMatrix random = gen::uniform_random(100'000, 100'000, 12, 3);
  plan::PlanSettings settings;
  settings.slices_max_bytes = 0.98;
  const plan::HostPlan kept = plan::lay_out_plan(host_view(random), {}, settings);
  EXPECT_EQ(kept.choice.kind, PlanKind::kSlices);
  ASSERT_TRUE(kept.slices.has_value());
  const double ratio = static_cast<double>(plan::product_bytes(*kept.slices)) /
                       static_cast<double>(plan::product_bytes(host_view(random)));
  EXPECT_GT(ratio, 0.96);
  EXPECT_LT(ratio, 0.98);
  settings.slices_max_bytes = ratio - 1e-6;
  EXPECT_EQ(plan::lay_out_plan(host_view(random), {}, settings).choice.kind, PlanKind::kRule);
  settings.slices_max_bytes = ratio + 1e-6;
  EXPECT_EQ(plan::lay_out_plan(host_view(random), {}, settings).choice.kind, PlanKind::kSlices);
  const CsrMatrix pairs = gen::uniform_random(600'000, 600'000, 2, 3);
  settings.slices_max_bytes = 0.87;
  EXPECT_EQ(plan::lay_out_plan(host_view(pairs), {}, settings).choice.kind, PlanKind::kRule);
  // Forced, the slices stay whatever the bound.
  settings.slices_max_bytes = 0.0;
  EXPECT_EQ(plan::lay_out_plan(host_view(pairs), {PlanKind::kSlices, 0, 0}, settings).choice.kind, PlanKind::kSlices);

  // laid_out_kind, which lay_out_plan and spmv-bench's sweep share.
  plan::PlanChoice slices;
  slices.kind = PlanKind::kSlices;
  const plan::PlanSettings defaults;
  EXPECT_EQ(plan::laid_out_kind(slices, 1000, 1000, defaults), PlanKind::kSlices);  // kPlanSlicesMaxBytes: 1
  EXPECT_EQ(plan::laid_out_kind(slices, 1001, 1000, defaults), PlanKind::kRule);
  EXPECT_EQ(plan::laid_out_kind(slices, std::nullopt, 1000, defaults), PlanKind::kRule);
  plan::PlanChoice tiles;
  tiles.kind = PlanKind::kTiles;
  EXPECT_EQ(plan::laid_out_kind(tiles, std::nullopt, 1000, defaults), PlanKind::kTiles);
  EXPECT_EQ(plan::laid_out_kind(plan::PlanChoice{}, 1, 1000, defaults), PlanKind::kRule);
}

TEST(PlanSettings, TheSlicesKernelShapeIsTheSettingsAndOnlyABuiltOne) {
  using Shape = plan::SliceKernelShape;
  EXPECT_EQ(plan::slice_kernel_shapes(),
            (std::vector<Shape>{{4, 4}, {4, 6}, {4, 8}, {8, 4}, {8, 6}, {8, 8}, {16, 4}, {16, 6}, {16, 8}}));
  EXPECT_EQ(plan::short_slice_kernel_shapes(), (std::vector<Shape>{{1, 6}, {1, 8}, {2, 6}, {2, 8}, {4, 6}, {4, 8}}));
  plan::PlanSettings settings;
  EXPECT_EQ(plan::slice_kernel_for(0, settings), (Shape{2, 8}));
  EXPECT_EQ(plan::slice_kernel_for(2, settings), (Shape{2, 8}));
  EXPECT_EQ(plan::slice_kernel_for(3, settings), (Shape{4, 4}));
  settings.short_slice_kernel = {4, 6};
  settings.slice_kernel = {16, 4};
  EXPECT_EQ(plan::slice_kernel_for(4, settings), (Shape{4, 6}));
  EXPECT_EQ(plan::slice_kernel_for(5, settings), (Shape{16, 4}));

  // Laid out: the stencil's slices of 5 take the long kernel, pairs the
  // short one unless its loads are fewer than 2.
  const CsrMatrix stencil = gen::stencil_2d_5pt(512, 512, 7);
  const CsrMatrix pairs = gen::uniform_random(600'000, 600'000, 2, 3);
  EXPECT_EQ(plan::lay_out_plan(host_view(stencil)).slice_kernel, (Shape{4, 4}));
  EXPECT_EQ(plan::lay_out_plan(host_view(pairs)).slice_kernel, (Shape{2, 8}));
  EXPECT_EQ(plan::lay_out_plan(host_view(stencil), {}, settings).slice_kernel, (Shape{16, 4}));
  EXPECT_EQ(plan::lay_out_plan(host_view(pairs), {}, settings).slice_kernel, (Shape{4, 6}));
  plan::PlanSettings one_load;
  one_load.short_slice_kernel = {1, 8};
  EXPECT_EQ(plan::lay_out_plan(host_view(pairs), {}, one_load).slice_kernel, (Shape{4, 4}));
  EXPECT_EQ(plan::lay_out_plan(host_view(gen::stencil_2d_5pt(64, 64, 7))).slice_kernel, (Shape{}))
      << "no slices, no kernel shape";

  // Shapes the kernel is not built for, and NaN thresholds, are refused.
  for (const auto& [long_shape, short_shape] : std::vector<std::pair<Shape, Shape>>{
           {{3, 6}, {2, 8}}, {{8, 5}, {2, 8}}, {{8, 6}, {8, 6}}, {{8, 6}, {2, 4}}, {{1, 8}, {2, 8}}}) {
    plan::PlanSettings bad;
    bad.slice_kernel = long_shape;
    bad.short_slice_kernel = short_shape;
    EXPECT_THROW(plan::check_settings(bad), std::invalid_argument)
        << long_shape.loads << "x" << long_shape.min_blocks << ", " << short_shape.loads << "x"
        << short_shape.min_blocks;
    EXPECT_THROW(plan::lay_out_plan(host_view(stencil), {}, bad), std::invalid_argument);
  }
  plan::PlanSettings nan;
  nan.slices_max_mean = std::nan("");
  EXPECT_THROW(plan::check_settings(nan), std::invalid_argument);
}

TEST(PlanChoice, RowStatisticsAndBlocksFromTheArrays) {
  const CsrMatrix a = tridiagonal_5();
  const RowLengthStats stats = plan::row_length_stats(host_view(a));
  EXPECT_EQ(stats.rows, 5);
  EXPECT_EQ(stats.nnz, 13);
  EXPECT_EQ(stats.max_row, 3);
  EXPECT_EQ(stats.max_span, 2);
  EXPECT_EQ(plan::largest_block_entries(a.row_ptr, 2), 6);  // rows 1-2 or 2-3
  EXPECT_EQ(plan::largest_block_entries(a.row_ptr, 5), 13);
  EXPECT_EQ(plan::largest_block_entries(a.row_ptr, 7), 13);
}

TEST(PlanChoice, Descriptions) {
  const std::optional<plan::PackedSlices> packed = plan::pack_slices(host_view(tridiagonal_5()));
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(plan::describe_slices(*packed),
            "packed slices: 100.0% diagonals, 0.0% 16-bit, 0.0% 32-bit (31.69 bytes an entry)");  // 412 / 13
  const std::vector<std::int32_t> row_ptr = {0, 5, 5, 6};
  EXPECT_EQ(plan::describe_tiles(plan::plan_merge_tiles(row_ptr, 3, 0), 256, 5),
            "merge tiles: 3 tiles of 256 threads x 5 items, 1 cut rows");
  EXPECT_STREQ(reference::plan_kind_name(PlanKind::kSlices), "slices");
}

}  // namespace
}  // namespace spmv::test
