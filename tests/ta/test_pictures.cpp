// The spy raster, its gray levels, the histogram picture, and the SVG text.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>
#include <set>
#include <utility>

#include "pictures.hpp"
#include "sparse_test_support.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/generators.hpp"

namespace spmv::ta {
namespace {

TEST(DensityRaster, DiagonalLightsTheDiagonalPixels) {
  const CsrMatrix a = gen::diagonal(64, 5);
  const PictureSize size = spy_size(a.rows, a.cols, 64);
  ASSERT_EQ(size.width, 64u);
  ASSERT_EQ(size.height, 64u);
  const DensityRaster raster = density_raster(a, size);
  ASSERT_EQ(raster.width, 64u);
  ASSERT_EQ(raster.height, 64u);
  EXPECT_EQ(raster.max_count, 1u);
  const GrayImage image = render_spy(raster, size);
  for (std::uint32_t y = 0; y < 64; ++y) {
    for (std::uint32_t x = 0; x < 64; ++x) {
      EXPECT_EQ(raster.count(x, y), x == y ? 1u : 0u) << "cell " << x << ", " << y;
      EXPECT_EQ(image.at(x, y), x == y ? kBlack : kWhite) << "pixel " << x << ", " << y;
    }
  }
}

TEST(DensityRaster, CellsOfALargeDiagonalCountTheirEntries) {
  // 1000 rows on 100 cells: each diagonal cell holds 10 entries, the rest none.
  const CsrMatrix a = gen::diagonal(1000, 9);
  const DensityRaster raster = density_raster(a, spy_size(a.rows, a.cols, 100));
  ASSERT_EQ(raster.width, 100u);
  for (std::uint32_t y = 0; y < 100; ++y) {
    for (std::uint32_t x = 0; x < 100; ++x) EXPECT_EQ(raster.count(x, y), x == y ? 10u : 0u) << x << ", " << y;
  }
  EXPECT_EQ(raster.max_count, 10u);
}

TEST(DensityRaster, SmallMatrixIsScaledUpCellByCell) {
  // The teaching kit's 4x4 on 8x8 pixels: each entry is a 2x2 black block.
  const CsrMatrix a = test::TeachingKit::csr();
  const PictureSize size = spy_size(a.rows, a.cols, 8);
  const DensityRaster raster = density_raster(a, size);
  EXPECT_EQ(raster.width, 4u);
  EXPECT_EQ(raster.height, 4u);
  const GrayImage image = render_spy(raster, size);
  const auto coo = to_coo(a);
  std::set<std::pair<std::uint32_t, std::uint32_t>> entries;
  for (index_t e = 0; e < coo.nnz(); ++e) {
    entries.emplace(static_cast<std::uint32_t>(coo.col_idx[e]), static_cast<std::uint32_t>(coo.row_idx[e]));
  }
  for (std::uint32_t y = 0; y < 8; ++y) {
    for (std::uint32_t x = 0; x < 8; ++x) {
      EXPECT_EQ(image.at(x, y), entries.contains({x / 2, y / 2}) ? kBlack : kWhite) << "pixel " << x << ", " << y;
    }
  }
}

TEST(DensityRaster, RandomMatrixCountsEveryEntryInItsCell) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const auto rows = std::uniform_int_distribution<index_t>(50, 3000)(rng);
  const auto cols = std::uniform_int_distribution<index_t>(50, 3000)(rng);
  const CsrMatrix a = gen::uniform_random(rows, cols, 7, rng());
  const PictureSize size = spy_size(rows, cols, 97);
  const DensityRaster raster = density_raster(a, size);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> expected;
  for (index_t r = 0; r < rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      // The cell whose share of the columns (rows) holds this one.
      const auto x = static_cast<std::uint32_t>(std::int64_t{a.col_idx[k]} * raster.width / cols);
      const auto y = static_cast<std::uint32_t>(std::int64_t{r} * raster.height / rows);
      ++expected[{x, y}];
    }
  }
  std::uint64_t total = 0;
  for (std::uint32_t y = 0; y < raster.height; ++y) {
    for (std::uint32_t x = 0; x < raster.width; ++x) {
      const auto it = expected.find({x, y});
      EXPECT_EQ(raster.count(x, y), it == expected.end() ? 0u : it->second) << "cell " << x << ", " << y;
      total += raster.count(x, y);
    }
  }
  EXPECT_EQ(total, static_cast<std::uint64_t>(a.nnz()));
}

TEST(SpySize, KeepsTheAspectRatioWithAFloor) {
  const PictureSize wide = spy_size(100, 400, 512);
  EXPECT_EQ(wide.width, 512u);
  EXPECT_EQ(wide.height, 128u);
  const PictureSize tall = spy_size(1000000, 10, 512);
  EXPECT_EQ(tall.height, 512u);
  EXPECT_EQ(tall.width, kMinSpySide);
  const PictureSize empty = spy_size(0, 0, 64);
  EXPECT_EQ(empty.width, 64u);
  EXPECT_EQ(empty.height, 64u);
}

TEST(DensityGray, EmptyWhiteFullestBlackLogScaleBetween) {
  EXPECT_EQ(density_gray(0, 100), kWhite);
  EXPECT_EQ(density_gray(100, 100), kBlack);
  EXPECT_EQ(density_gray(1, 100), kLightestEntry);
  EXPECT_EQ(density_gray(1, 1), kBlack);
  // log scale: 10 of 100 is half way.
  EXPECT_EQ(density_gray(10, 100), kLightestEntry / 2);
  for (std::uint32_t count = 1; count < 100; ++count) {
    EXPECT_GE(density_gray(count, 100), density_gray(count + 1, 100)) << count;
  }
}

TEST(HistogramPicture, BarsFollowTheCountsOnALogScale) {
  RowLengthHistogram histogram;
  histogram.rows_in_bucket = {3, 0, 1023, 31};  // log2(1 + count): 2, 0, 10, 5
  const PictureSize size{400, 111};
  const GrayImage image = render_histogram(histogram, size);
  const auto bar_height = [&](std::uint32_t bucket) {
    const std::uint32_t x = bucket * 100 + 50;  // the middle of the bucket's slot
    std::uint32_t height = 0;
    for (std::uint32_t y = 0; y + 1 < size.height; ++y) height += image.at(x, y) != kWhite;
    return height;
  };
  // The plot is 110 pixels high above the axis row.
  EXPECT_EQ(bar_height(2), 110u);
  EXPECT_EQ(bar_height(3), 55u);
  EXPECT_EQ(bar_height(0), 22u);
  EXPECT_EQ(bar_height(1), 0u);
  for (std::uint32_t x = 0; x < size.width; ++x) EXPECT_EQ(image.at(x, size.height - 1), kBlack) << "axis at " << x;
}

// Tags open and close in order; attribute quotes pair up.
void expect_well_formed(const std::string& svg) {
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << "XML declaration first";
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  std::vector<std::string> open;
  const std::regex tag(R"(<(/?)([a-zA-Z?][\w-]*)([^<>]*?)(/?)>)");
  std::size_t tags = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    ++tags;
    const auto& m = *it;
    const std::string name = m[2];
    const std::string attributes = m[3];
    EXPECT_EQ(std::count(attributes.begin(), attributes.end(), '"') % 2, 0) << m.str();
    if (name == "?xml") continue;
    if (m[1] == "/") {
      ASSERT_FALSE(open.empty()) << "closing " << name << " with nothing open";
      EXPECT_EQ(open.back(), name) << "closing tag out of order";
      open.pop_back();
    } else if (m[4] != "/") {
      open.push_back(name);
    }
  }
  EXPECT_TRUE(open.empty()) << open.size() << " tags left open, first " << (open.empty() ? "" : open.front());
  EXPECT_EQ(static_cast<std::size_t>(std::count(svg.begin(), svg.end(), '<')), tags) << "a stray '<'";
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST(Svg, SpyPlotOfADiagonalHasOneRectanglePerEntry) {
  const CsrMatrix a = gen::diagonal(8, 2);
  const PictureSize size = spy_size(a.rows, a.cols, 256);
  const std::string svg = spy_svg(density_raster(a, size), size);
  expect_well_formed(svg);
  EXPECT_NE(svg.find("viewBox=\"0 0 8 8\""), std::string::npos);
  EXPECT_EQ(occurrences(svg, "<rect"), 1u + 8u) << "the background and one per diagonal entry";
  for (int i = 0; i < 8; ++i) {
    const std::string cell = "<rect x=\"" + std::to_string(i) + "\" y=\"" + std::to_string(i) + "\" width=\"1\"";
    EXPECT_NE(svg.find(cell), std::string::npos) << "no rectangle at " << i;
  }
}

TEST(Svg, SpyPlotMergesRunsOfEqualShade) {
  // A full row of 8 equal entries is one rectangle.
  const CsrMatrix a = gen::arrow(8, 4);
  const PictureSize size = spy_size(a.rows, a.cols, 8);
  const std::string svg = spy_svg(density_raster(a, size), size);
  expect_well_formed(svg);
  EXPECT_NE(svg.find("<rect x=\"0\" y=\"0\" width=\"8\" height=\"1\""), std::string::npos) << svg;
}

TEST(Svg, HistogramHasABarAndLabelsPerBucket) {
  RowLengthHistogram histogram;
  histogram.rows_in_bucket = {4, 0, 2500, 17};
  const std::string svg = histogram_svg(histogram, histogram_size(512));
  expect_well_formed(svg);
  EXPECT_NE(svg.find("<title>length 0: 4 rows</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>length 1: 0 rows</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>length 2-3: 2500 rows</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>length 4-7: 17 rows</title>"), std::string::npos);
  EXPECT_NE(svg.find(">2.5k</text>"), std::string::npos) << "short count label";
}

}  // namespace
}  // namespace spmv::ta
