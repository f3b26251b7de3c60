#include "pictures.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace spmv::ta {
namespace {

// Cell of `index` among `count` when `cells` cells cover them evenly.
std::uint32_t cell_of(std::int64_t index, std::int64_t count, std::uint32_t cells) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(index) * cells / static_cast<std::uint64_t>(count));
}

std::uint32_t scaled_side(std::int64_t side, std::int64_t longest_side, std::uint32_t longest) {
  const auto scaled =
      static_cast<std::uint32_t>(static_cast<std::uint64_t>(side) * longest / static_cast<std::uint64_t>(longest_side));
  return std::clamp(scaled, std::min(kMinSpySide, longest), longest);
}

// SVG shades in 16 steps: neighbouring cells then often share a shade and
// merge into one rectangle, which keeps the file small.
std::uint8_t svg_shade(std::uint8_t gray) {
  constexpr int kStep = 17;
  return static_cast<std::uint8_t>((gray + kStep / 2) / kStep * kStep);
}

std::string svg_gray(std::uint8_t gray) {
  std::ostringstream text;
  text << "rgb(" << int{gray} << ',' << int{gray} << ',' << int{gray} << ')';
  return text.str();
}

// `view_box` in the drawing's own units; the spy plot draws in raster cells
// and lets the viewer stretch them to the picture's pixels.
std::string svg_open(PictureSize picture, const std::string& view_box, const std::string& title) {
  std::ostringstream text;
  text << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << picture.width << "\" height=\"" << picture.height
       << "\" viewBox=\"" << view_box << "\" preserveAspectRatio=\"none\""
       << " shape-rendering=\"crispEdges\">\n"
       << "<title>" << title << "</title>\n";
  return text.str();
}

struct Bar {
  std::uint32_t left = 0;
  std::uint32_t right = 0;  // exclusive
  std::uint32_t height = 0;
  std::size_t bucket = 0;
};

// Bars over [0, plot_width) x [0, plot_height), heights by log2(1 + rows).
std::vector<Bar> histogram_bars(const RowLengthHistogram& histogram, std::uint32_t plot_width,
                                std::uint32_t plot_height) {
  const auto& counts = histogram.rows_in_bucket;
  std::vector<Bar> bars;
  if (counts.empty()) return bars;
  const double top = std::log2(1.0 + static_cast<double>(*std::max_element(counts.begin(), counts.end())));
  const auto slots = static_cast<std::uint32_t>(counts.size());
  for (std::uint32_t i = 0; i < slots; ++i) {
    Bar bar;
    bar.bucket = i;
    bar.left = cell_of(i, slots, plot_width);
    bar.right = cell_of(i + 1, slots, plot_width);
    const std::uint32_t gap = (bar.right - bar.left) / 8;
    bar.left += gap;
    bar.right -= (bar.right - bar.left > 1) ? std::max(gap, 1u) : 0;
    if (counts[i] > 0) {
      const double share = std::log2(1.0 + static_cast<double>(counts[i])) / top;
      bar.height = std::max(1u, static_cast<std::uint32_t>(std::lround(share * plot_height)));
    }
    bars.push_back(bar);
  }
  return bars;
}

constexpr std::uint8_t kBarGray = 64;

// At most four characters, so labels fit under narrow bars: 7, 512, 12k, 1.5M.
// `unit` is 1000 for counts and 1024 for the powers of two of row lengths.
std::string short_number(std::int64_t value, double unit) {
  static constexpr const char* kSuffixes[] = {"", "k", "M", "G"};
  double scaled = static_cast<double>(value);
  std::size_t suffix = 0;
  while (scaled >= unit && suffix + 1 < std::size(kSuffixes)) {
    scaled /= unit;
    ++suffix;
  }
  std::ostringstream text;
  if (suffix > 0 && scaled < 10)
    text.precision(2);
  else
    text.precision(3);
  text << scaled << kSuffixes[suffix];
  return text.str();
}

}  // namespace

PictureSize spy_size(index_t rows, index_t cols, std::uint32_t longest) {
  const std::int64_t longest_side = std::max<std::int64_t>({rows, cols, 1});
  return {scaled_side(std::max(cols, 1), longest_side, longest), scaled_side(std::max(rows, 1), longest_side, longest)};
}

DensityRaster density_raster(const CsrMatrix& a, PictureSize picture) {
  DensityRaster raster;
  raster.width = std::max(1u, std::min(picture.width, static_cast<std::uint32_t>(std::max(a.cols, 1))));
  raster.height = std::max(1u, std::min(picture.height, static_cast<std::uint32_t>(std::max(a.rows, 1))));
  raster.counts.assign(static_cast<std::size_t>(raster.width) * raster.height, 0);
  for (index_t row = 0; row < a.rows; ++row) {
    std::uint32_t* cells =
        raster.counts.data() + static_cast<std::size_t>(cell_of(row, a.rows, raster.height)) * raster.width;
    for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
      ++cells[cell_of(a.col_idx[k], a.cols, raster.width)];
    }
  }
  raster.max_count = raster.counts.empty() ? 0 : *std::max_element(raster.counts.begin(), raster.counts.end());
  return raster;
}

std::uint8_t density_gray(std::uint32_t count, std::uint32_t max_count) {
  if (count == 0) return kWhite;
  const double fullness = max_count <= 1 ? 1.0 : std::log(count) / std::log(max_count);
  return static_cast<std::uint8_t>(std::lround(kLightestEntry * (1.0 - std::min(fullness, 1.0))));
}

GrayImage render_spy(const DensityRaster& raster, PictureSize picture) {
  GrayImage image(picture.width, picture.height);
  for (std::uint32_t y = 0; y < picture.height; ++y) {
    const std::uint32_t cell_y = cell_of(y, picture.height, raster.height);
    for (std::uint32_t x = 0; x < picture.width; ++x) {
      image.at(x, y) = density_gray(raster.count(cell_of(x, picture.width, raster.width), cell_y), raster.max_count);
    }
  }
  return image;
}

std::string spy_svg(const DensityRaster& raster, PictureSize picture) {
  std::ostringstream svg;
  svg << svg_open(picture, "0 0 " + std::to_string(raster.width) + ' ' + std::to_string(raster.height),
                  "sparsity pattern, darker = more entries per cell (log scale)")
      << "<rect width=\"" << raster.width << "\" height=\"" << raster.height << "\" fill=\"white\"/>\n";
  // One rectangle per run of equally shaded cells in a raster row.
  for (std::uint32_t y = 0; y < raster.height; ++y) {
    for (std::uint32_t x = 0; x < raster.width;) {
      const std::uint8_t shade = svg_shade(density_gray(raster.count(x, y), raster.max_count));
      std::uint32_t end = x + 1;
      while (end < raster.width && svg_shade(density_gray(raster.count(end, y), raster.max_count)) == shade) ++end;
      if (raster.count(x, y) != 0) {
        svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << end - x << "\" height=\"1\" fill=\""
            << svg_gray(shade) << "\"/>\n";
      }
      x = end;
    }
  }
  svg << "</svg>\n";
  return svg.str();
}

PictureSize histogram_size(std::uint32_t width) { return {width, std::max(kMinSpySide, width / 2)}; }

GrayImage render_histogram(const RowLengthHistogram& histogram, PictureSize picture) {
  GrayImage image(picture.width, picture.height);
  if (picture.height < 2) return image;  // no room for an axis and a bar
  const std::uint32_t axis_y = picture.height - 1;
  for (std::uint32_t x = 0; x < picture.width; ++x) image.at(x, axis_y) = kBlack;
  for (const Bar& bar : histogram_bars(histogram, picture.width, axis_y)) {
    for (std::uint32_t y = axis_y - bar.height; y < axis_y; ++y) {
      for (std::uint32_t x = bar.left; x < bar.right; ++x) image.at(x, y) = kBarGray;
    }
  }
  return image;
}

std::string histogram_svg(const RowLengthHistogram& histogram, PictureSize picture) {
  // Room above the bars for the counts and below the axis for the buckets.
  constexpr std::uint32_t kMargin = 16;
  const std::uint32_t plot_height =
      picture.height > 3 * kMargin ? picture.height - 2 * kMargin : std::max(picture.height, 2u);
  const std::uint32_t axis_y = kMargin + plot_height;
  const std::uint32_t full_height = axis_y + kMargin;
  std::ostringstream svg;
  svg << svg_open({picture.width, full_height},
                  "0 0 " + std::to_string(picture.width) + ' ' + std::to_string(full_height),
                  "rows per row length: bars are log2 buckets labelled with their shortest length (k = 1024), "
                  "heights on a log scale of the row count")
      << "<rect width=\"" << picture.width << "\" height=\"" << full_height << "\" fill=\"white\"/>\n"
      << "<line x1=\"0\" y1=\"" << axis_y << "\" x2=\"" << picture.width << "\" y2=\"" << axis_y
      << "\" stroke=\"black\"/>\n"
      << "<g font-family=\"sans-serif\" font-size=\"10\" text-anchor=\"middle\">\n";
  for (const Bar& bar : histogram_bars(histogram, picture.width, plot_height - 1)) {
    const std::int64_t rows = histogram.rows_in_bucket[bar.bucket];
    const double middle = (bar.left + bar.right) / 2.0;
    const std::string label = RowLengthHistogram::bucket_label(bar.bucket);
    // The title (a tooltip in browsers) carries the exact bucket and count.
    svg << "<rect x=\"" << bar.left << "\" y=\"" << axis_y - bar.height << "\" width=\"" << bar.right - bar.left
        << "\" height=\"" << bar.height << "\" fill=\"" << svg_gray(kBarGray) << "\"><title>length " << label << ": "
        << rows << " rows</title></rect>\n"
        << "<text x=\"" << middle << "\" y=\"" << axis_y - bar.height - 3 << "\">" << short_number(rows, 1000)
        << "</text>\n"
        << "<text x=\"" << middle << "\" y=\"" << axis_y + 12 << "\">"
        << short_number(RowLengthHistogram::bucket_low(bar.bucket), 1024) << "</text>\n";
  }
  svg << "</g>\n</svg>\n";
  return svg.str();
}

}  // namespace spmv::ta
