// Synthetic matrices: determinism per seed, exact shapes and entry counts,
// structure, value range, the power law's cap and tail, and spec parsing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sparse_test_support.hpp"
#include "spmv/core/generators.hpp"

namespace spmv {
namespace {

using test::expect_same;

std::string with_seed(const std::string& spec, std::uint64_t seed) { return spec + " seed=" + std::to_string(seed); }

// Every kind, small.
const std::vector<std::string> kSpecs = {
    "stencil2d nx=13 ny=9",
    "stencil3d7 nx=5 ny=6 nz=7",
    "stencil3d27 nx=4 ny=5 nz=3",
    "random rows=200 cols=150 per_row=6",
    "random rows=60 cols=50 per_row=30",
    "tall rows=300 cols=20 per_row=4",
    "wide rows=20 cols=300 per_row=40",
    "powerlaw rows=500 cols=400 alpha=1.5 max_row=300",
    "banded n=80 half_bandwidth=4",
    "blockdiag blocks=6 block_size=5",
    "arrow n=50",
    "diagonal n=40",
    "one",
    "empty rows=5 cols=3",
    "random rows=200 cols=150 per_row=6 empty_fraction=0.3",
};

// Structure drawn from the seed (the others only draw values).
bool has_random_structure(const std::string& spec) {
  for (const char* kind : {"random", "tall", "wide", "powerlaw"}) {
    if (spec.starts_with(kind)) return true;
  }
  return spec.find("empty_fraction") != std::string::npos;
}

void expect_values_in_range(const CsrMatrix& a) {
  int outside = 0;
  for (std::size_t e = 0; e < a.values.size() && outside < 5; ++e) {
    const float magnitude = std::fabs(a.values[e]);
    if (!(magnitude >= 0.25F && magnitude <= 1.0F)) {
      ADD_FAILURE() << "entry " << e << " has value " << a.values[e] << ", expected [-1, -0.25] U [0.25, 1]";
      ++outside;
    }
  }
  if (a.values.size() >= 100) {
    const auto negative = std::count_if(a.values.begin(), a.values.end(), [](float v) { return v < 0; });
    EXPECT_GT(negative, 0);
    EXPECT_LT(static_cast<std::size_t>(negative), a.values.size());
  }
}

TEST(Generators, SameSeedSameMatrixOtherSeedOtherMatrix) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  for (const std::string& spec : kSpecs) {
    SCOPED_TRACE(spec);
    const CsrMatrix a = gen::generate(with_seed(spec, seed));
    ASSERT_NO_THROW(a.validate());
    expect_values_in_range(a);
    expect_same(gen::generate(with_seed(spec, seed)), a);
    if (a.nnz() == 0) continue;
    const CsrMatrix b = gen::generate(with_seed(spec, seed + 1));
    EXPECT_NE(test::bits_of(b.values), test::bits_of(a.values));
    if (has_random_structure(spec)) {
      EXPECT_NE(b.col_idx, a.col_idx);
    }
  }
}

struct Grid {
  index_t nx;
  index_t ny;
  index_t nz;
};

Grid random_grid(std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<index_t> extent(1, 24);
  return {extent(engine), extent(engine), extent(engine)};
}

// Columns of grid point (x, y, z): every point of the 3x3x3 box around it
// inside the grid, within Manhattan distance 1 for the 7-point stencil.
std::vector<index_t> stencil_columns(const Grid& g, index_t x, index_t y, index_t z, bool box) {
  std::vector<index_t> columns;
  for (index_t cz = z - 1; cz <= z + 1; ++cz) {
    for (index_t cy = y - 1; cy <= y + 1; ++cy) {
      for (index_t cx = x - 1; cx <= x + 1; ++cx) {
        if (cx < 0 || cy < 0 || cz < 0 || cx >= g.nx || cy >= g.ny || cz >= g.nz) continue;
        const int distance = std::abs(cx - x) + std::abs(cy - y) + std::abs(cz - z);
        if (box || distance <= 1) columns.push_back(cx + g.nx * (cy + g.ny * cz));
      }
    }
  }
  return columns;
}

void expect_stencil_structure(const CsrMatrix& a, const Grid& g, bool box) {
  ASSERT_EQ(a.rows, g.nx * g.ny * g.nz);
  ASSERT_EQ(a.cols, a.rows);
  for (index_t z = 0; z < g.nz; ++z) {
    for (index_t y = 0; y < g.ny; ++y) {
      for (index_t x = 0; x < g.nx; ++x) {
        const index_t row = x + g.nx * (y + g.ny * z);
        const std::vector<index_t> columns(a.col_idx.begin() + a.row_ptr[row], a.col_idx.begin() + a.row_ptr[row + 1]);
        ASSERT_EQ(columns, stencil_columns(g, x, y, z, box)) << "row " << row;
      }
    }
  }
}

TEST(Generators, StencilShapesAndCounts) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  const Grid g = random_grid(seed);
  SCOPED_TRACE(::testing::Message() << "grid " << g.nx << " x " << g.ny << " x " << g.nz);

  const CsrMatrix five = gen::stencil_2d_5pt(g.nx, g.ny, seed);
  EXPECT_EQ(five.nnz(), 5 * g.nx * g.ny - 2 * g.nx - 2 * g.ny);
  expect_stencil_structure(five, {g.nx, g.ny, 1}, false);

  const CsrMatrix seven = gen::stencil_3d_7pt(g.nx, g.ny, g.nz, seed);
  EXPECT_EQ(seven.nnz(), 7 * g.nx * g.ny * g.nz - 2 * (g.ny * g.nz + g.nx * g.nz + g.nx * g.ny));
  expect_stencil_structure(seven, g, false);

  const CsrMatrix box = gen::stencil_3d_27pt(g.nx, g.ny, g.nz, seed);
  EXPECT_EQ(box.nnz(), (3 * g.nx - 2) * (3 * g.ny - 2) * (3 * g.nz - 2));
  expect_stencil_structure(box, g, true);
}

TEST(Generators, RandomRowsHaveDistinctColumnsSpreadOverAllColumns) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  // Sparse rows (rejection) and dense rows (selection sampling): 20
  // expected hits per column either way, so an unused column means bias.
  for (const auto& [rows, per_row] : {std::pair{2000, 10}, std::pair{100, 200}}) {
    const CsrMatrix a = gen::uniform_random(rows, 1000, per_row, seed);
    ASSERT_NO_THROW(a.validate());  // columns within a row strictly increase
    EXPECT_EQ(a.nnz(), rows * per_row);
    for (index_t r = 0; r < a.rows; ++r) ASSERT_EQ(a.row_length(r), per_row) << "row " << r;
    std::vector<int> hits(1000, 0);
    for (const index_t c : a.col_idx) ++hits[c];
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 0), 0) << per_row << " per row";
  }
  const CsrMatrix full = gen::uniform_random(3, 17, 17, seed);
  for (index_t r = 0; r < 3; ++r) {
    for (index_t k = 0; k < 17; ++k) EXPECT_EQ(full.col_idx[full.row_ptr[r] + k], k);
  }
}

TEST(Generators, RectangularShapes) {
  const CsrMatrix tall = gen::generate("tall rows=300 cols=20 per_row=4 seed=5");
  EXPECT_EQ(tall.rows, 300);
  EXPECT_EQ(tall.cols, 20);
  EXPECT_EQ(tall.nnz(), 1200);
  const CsrMatrix wide = gen::generate("wide rows=20 cols=300 per_row=40 seed=5");
  EXPECT_EQ(wide.rows, 20);
  EXPECT_EQ(wide.cols, 300);
  EXPECT_EQ(wide.nnz(), 800);
}

std::vector<index_t> lengths_of(const CsrMatrix& a) {
  std::vector<index_t> lengths;
  for (index_t r = 0; r < a.rows; ++r) lengths.push_back(a.row_length(r));
  return lengths;
}

TEST(Generators, PowerLawRespectsTheCap) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  // Cap from max_row, then from cols; both reached by some row.
  for (const auto& [cols, max_row, alpha] : {std::tuple{1000, 40, 2.0}, std::tuple{30, 1000, 1.0}}) {
    const CsrMatrix a = gen::power_law(20000, cols, alpha, max_row, seed);
    ASSERT_NO_THROW(a.validate());
    const std::vector<index_t> lengths = lengths_of(a);
    const index_t cap = std::min(cols, max_row);
    EXPECT_EQ(*std::min_element(lengths.begin(), lengths.end()), 1);
    EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), cap);
  }
}

TEST(Generators, PowerLawHasAHeavyTail) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = gen::power_law(200000, 200000, 2.0, 50000, seed);
  const std::vector<index_t> lengths = lengths_of(a);
  const auto at_least = [&](index_t k) {
    return static_cast<double>(std::count_if(lengths.begin(), lengths.end(), [k](index_t l) { return l >= k; }));
  };
  // P(len >= k) ~ k^(1 - alpha) = 1 / k: a tenth as many rows reach 100 as 10.
  const double ratio = at_least(10) / at_least(100);
  EXPECT_GT(ratio, 7.0);
  EXPECT_LT(ratio, 14.0);
  const double mean = static_cast<double>(a.nnz()) / a.rows;
  EXPECT_GT(*std::max_element(lengths.begin(), lengths.end()), 100 * mean);
  EXPECT_GT(at_least(1) - at_least(2), at_least(2) - at_least(3));  // length 1 most common
}

TEST(Generators, PowerLawReachesRowsBeyond100kEntries) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  // alpha 0.5 on [1, 150001): about 18% of rows pass 100000 entries.
  const CsrMatrix a = gen::power_law(100, 200000, 0.5, 150000, seed);
  ASSERT_NO_THROW(a.validate());
  const std::vector<index_t> lengths = lengths_of(a);
  const index_t longest = *std::max_element(lengths.begin(), lengths.end());
  EXPECT_GT(longest, 100000);
  EXPECT_LE(longest, 150000);
}

TEST(Generators, BandedBlockArrowDiagonalEmpty) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix band = gen::banded(60, 4, seed);
  EXPECT_EQ(band.nnz(), 60 * 9 - 4 * 5);
  for (index_t r = 0; r < band.rows; ++r) {
    for (index_t e = band.row_ptr[r]; e < band.row_ptr[r + 1]; ++e) {
      EXPECT_LE(std::abs(band.col_idx[e] - r), 4);
    }
  }
  EXPECT_EQ(gen::banded(5, 9, seed).nnz(), 25);  // the band covers everything

  const CsrMatrix blocks = gen::block_diagonal(6, 5, seed);
  EXPECT_EQ(blocks.rows, 30);
  EXPECT_EQ(blocks.nnz(), 6 * 25);
  for (index_t r = 0; r < blocks.rows; ++r) {
    EXPECT_EQ(blocks.row_length(r), 5);
    for (index_t e = blocks.row_ptr[r]; e < blocks.row_ptr[r + 1]; ++e) {
      EXPECT_EQ(blocks.col_idx[e] / 5, r / 5);
    }
  }

  const CsrMatrix arrow = gen::arrow(50, seed);
  EXPECT_EQ(arrow.nnz(), 3 * 50 - 2);
  EXPECT_EQ(arrow.row_length(0), 50);
  for (index_t r = 1; r < arrow.rows; ++r) {
    EXPECT_EQ(arrow.row_length(r), 2);
    EXPECT_EQ(arrow.col_idx[arrow.row_ptr[r]], 0);
    EXPECT_EQ(arrow.col_idx[arrow.row_ptr[r] + 1], r);
  }

  const CsrMatrix diagonal = gen::diagonal(40, seed);
  EXPECT_EQ(diagonal.nnz(), 40);
  for (index_t r = 0; r < 40; ++r) EXPECT_EQ(diagonal.col_idx[r], r);

  const CsrMatrix none = gen::empty(4, 7);
  EXPECT_EQ(none.rows, 4);
  EXPECT_EQ(none.cols, 7);
  EXPECT_EQ(none.nnz(), 0);
  EXPECT_NO_THROW(none.validate());

  const CsrMatrix one = gen::generate("one seed=" + std::to_string(seed));
  EXPECT_EQ(one.rows, 1);
  EXPECT_EQ(one.cols, 1);
  EXPECT_EQ(one.nnz(), 1);
}

TEST(Generators, WithEmptyRowsEmptiesExactlyTheFractionAndKeepsTheRest) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix a = gen::uniform_random(1000, 50, 3, seed);
  const auto emptied_rows = [&](std::uint64_t emptying_seed) {
    const CsrMatrix b = gen::with_empty_rows(a, 0.25, emptying_seed);
    EXPECT_NO_THROW(b.validate());
    std::set<index_t> emptied;
    for (index_t r = 0; r < a.rows; ++r) {
      if (b.row_length(r) == 0) {
        emptied.insert(r);
        continue;
      }
      const auto row = [r](const CsrMatrix& m, const auto& array) {
        return std::vector(array.begin() + m.row_ptr[r], array.begin() + m.row_ptr[r + 1]);
      };
      EXPECT_EQ(row(b, b.col_idx), row(a, a.col_idx)) << "row " << r;
      EXPECT_EQ(test::bits_of(row(b, b.values)), test::bits_of(row(a, a.values))) << "row " << r;
    }
    return emptied;
  };
  const std::set<index_t> first = emptied_rows(seed);
  EXPECT_EQ(first.size(), 250U);
  EXPECT_NE(emptied_rows(seed + 1), first);
  EXPECT_EQ(gen::with_empty_rows(a, 1.0, seed).nnz(), 0);
  EXPECT_THROW(static_cast<void>(gen::with_empty_rows(a, 1.5, seed)), std::invalid_argument);
}

TEST(GeneratorSpecs, ParseSplitsKindAndKeys) {
  const gen::GeneratorSpec spec = gen::parse_spec("  stencil2d   nx=2048 ny=2048\tseed=7 ");
  EXPECT_EQ(spec.kind, "stencil2d");
  EXPECT_EQ(spec.params, (std::map<std::string, std::string>{{"nx", "2048"}, {"ny", "2048"}, {"seed", "7"}}));
}

TEST(GeneratorSpecs, GenerateMatchesTheFunctions) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  expect_same(gen::generate(with_seed("stencil2d nx=9 ny=4", seed)), gen::stencil_2d_5pt(9, 4, seed));
  expect_same(gen::generate(with_seed("stencil3d27 nx=3 ny=4 nz=5", seed)), gen::stencil_3d_27pt(3, 4, 5, seed));
  expect_same(gen::generate(with_seed("powerlaw rows=300 cols=200 alpha=1.5 max_row=100", seed)),
              gen::power_law(300, 200, 1.5, 100, seed));
  expect_same(gen::generate(with_seed("banded n=30 half_bandwidth=2 empty_fraction=0.5", seed)),
              gen::with_empty_rows(gen::banded(30, 2, seed), 0.5, seed));
  expect_same(gen::generate("diagonal n=5"), gen::diagonal(5, 1));  // seed defaults to 1
  const gen::GeneratorSpec spec{"blockdiag", {{"blocks", "3"}, {"block_size", "4"}, {"seed", std::to_string(seed)}}};
  expect_same(gen::generate(spec), gen::block_diagonal(3, 4, seed));
}

void expect_spec_rejected(const std::string& text, const std::vector<std::string>& parts) {
  SCOPED_TRACE(text);
  try {
    static_cast<void>(gen::generate(text));
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("\"" + text + "\""), std::string::npos) << "spec text missing: " << message;
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "\"" << part << "\" missing: " << message;
    }
  }
}

TEST(GeneratorSpecs, BadSpecsNameTheSpecAndTheKey) {
  expect_spec_rejected("", {"empty"});
  expect_spec_rejected("stencil4d nx=3", {"unknown kind \"stencil4d\"", "stencil2d"});
  expect_spec_rejected("stencil2d nx=3 ny=3 nz=4", {"unknown key \"nz\"", "stencil2d nx ny"});
  expect_spec_rejected("stencil2d nx=3", {"missing key \"ny\""});
  expect_spec_rejected("stencil2d nx=abc ny=3", {"key nx", "\"abc\" is not an integer"});
  expect_spec_rejected("stencil2d nx=2.5 ny=3", {"key nx", "\"2.5\" is not an integer"});
  expect_spec_rejected("stencil2d nx=-3 ny=3", {"key nx: -3 is negative"});
  expect_spec_rejected("diagonal n=99999999999", {"key n", "int32"});
  expect_spec_rejected("stencil2d nx=3 ny", {"\"ny\" is not key=value"});
  expect_spec_rejected("stencil2d nx=3 nx=4 ny=1", {"key \"nx\" given twice"});
  expect_spec_rejected("powerlaw rows=10 cols=10 alpha=-1 max_row=5", {"key alpha", "negative"});
  expect_spec_rejected("powerlaw rows=10 cols=10 alpha=x max_row=5", {"key alpha", "not a number"});
  expect_spec_rejected("powerlaw rows=10 cols=10 alpha=inf max_row=5", {"key alpha", "not finite"});
  expect_spec_rejected("diagonal n=4 empty_fraction=1.5", {"key empty_fraction", "above 1"});
  expect_spec_rejected("diagonal n=4 seed=-1", {"key seed", "not a non-negative integer"});
  expect_spec_rejected("random rows=4 cols=3 per_row=5", {"per_row = 5 exceeds cols = 3"});
  expect_spec_rejected("tall rows=3 cols=5 per_row=1", {"rows > cols"});
  expect_spec_rejected("wide rows=5 cols=5 per_row=1", {"rows < cols"});
  expect_spec_rejected("stencil3d27 nx=2000 ny=2000 nz=2000", {"int32"});
}

TEST(GeneratorSpecs, ParseSpecChecksAsMuchAsGenerate) {
  EXPECT_THROW(static_cast<void>(gen::parse_spec("stencil2d nx=3")), std::invalid_argument);
  EXPECT_THROW(static_cast<void>(gen::parse_spec("arrow n=x")), std::invalid_argument);
  const gen::GeneratorSpec unknown_key{"arrow", {{"n", "4"}, {"width", "2"}}};
  try {
    static_cast<void>(gen::generate(unknown_key));
    ADD_FAILURE() << "accepted an unknown key";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("\"arrow n=4 width=2\": unknown key \"width\""), std::string::npos)
        << error.what();
  }
}

TEST(GeneratorSpecs, KindsAreListedWithTheirKeys) {
  std::set<std::string> kinds;
  for (const std::string& line : gen::generator_kinds()) {
    kinds.insert(line.substr(0, line.find_first_of(" :")));
  }
  const std::set<std::string> documented = {"stencil2d", "stencil3d7", "stencil3d27", "random",    "tall",
                                            "wide",      "powerlaw",   "banded",      "blockdiag", "arrow",
                                            "diagonal",  "one",        "empty"};
  EXPECT_EQ(kinds, documented);
  for (const std::string& line : gen::generator_kinds()) {
    if (line.starts_with("powerlaw")) {
      EXPECT_TRUE(line.starts_with("powerlaw rows cols alpha max_row")) << line;
    }
  }
}

}  // namespace
}  // namespace spmv
