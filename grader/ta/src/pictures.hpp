// Pictures of a matrix: a spy plot of its sparsity pattern and a bar chart
// of its row-length histogram, as grayscale images (for PNG) or SVG text.
//
// The spy plot is a density raster: a grid of at most size x size cells laid
// over the matrix, each counting the entries that fall in it, filled in one
// pass over the CSR arrays. Its cost is that pass plus the grid, never a
// mark per entry, so a 50M-entry matrix draws in well under a second.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "image.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/core/matrix_stats.hpp"

namespace spmv::ta {

struct PictureSize {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

// The spy plot's size for a rows x cols matrix: the longer side gets
// `longest` pixels, the shorter one keeps the aspect ratio, but no side
// falls below kMinSpySide (a 10^6 x 10 matrix would otherwise be a line).
inline constexpr std::uint32_t kMinSpySide = 16;
PictureSize spy_size(index_t rows, index_t cols, std::uint32_t longest);

struct DensityRaster {
  std::uint32_t width = 0;            // cells across: min(picture width, cols)
  std::uint32_t height = 0;           // cells down: min(picture height, rows)
  std::vector<std::uint32_t> counts;  // row-major, width * height
  std::uint32_t max_count = 0;

  [[nodiscard]] std::uint32_t count(std::uint32_t x, std::uint32_t y) const {
    return counts[static_cast<std::size_t>(y) * width + x];
  }
};

// Entry (r, c) lands in cell (c * width / cols, r * height / rows).
DensityRaster density_raster(const CsrMatrix& a, PictureSize picture);

// White for an empty cell; otherwise dark on a log scale of the count, from
// kLightestEntry (one entry, where the fullest cell holds many) to black (the
// fullest cell), so a lone entry stays visible next to a dense block.
inline constexpr std::uint8_t kLightestEntry = 200;
std::uint8_t density_gray(std::uint32_t count, std::uint32_t max_count);

// The raster scaled to `picture` (nearest cell), one gray level per pixel.
GrayImage render_spy(const DensityRaster& raster, PictureSize picture);
std::string spy_svg(const DensityRaster& raster, PictureSize picture);

// One bar per log2 bucket, height on a log scale of the row count (so a
// bucket of one row next to one of millions still shows). The PNG has no
// text; the SVG labels each bar with its bucket and count.
PictureSize histogram_size(std::uint32_t width);
GrayImage render_histogram(const RowLengthHistogram& histogram, PictureSize picture);
std::string histogram_svg(const RowLengthHistogram& histogram, PictureSize picture);

}  // namespace spmv::ta
