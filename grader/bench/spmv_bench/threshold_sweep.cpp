#include "spmv_bench/threshold_sweep.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>

#include "spmv/core/generators.hpp"
#include "spmv/core/golden.hpp"
#include "spmv_bench/report.hpp"

namespace spmv::bench::sweep {
namespace {

using reference::PlanKind;

constexpr std::array<ThresholdInfo, kThresholds.size()> kInfo = {{
    {"slices_min_path", "kPlanSlicesMinPath", "merge_path"},
    {"slices_max_mean", "kPlanSlicesMaxMean", "mean_row"},
    {"slices_max_padding", "kPlanSlicesMaxPadding", "padding"},
    {"slices_max_bytes", "kPlanSlicesMaxBytes", "bytes_ratio"},
    {"slice_kernel", "kPlanSliceLoads x kPlanSliceMinBlocks", "widest_slice"},
    {"short_slice_kernel", "kPlanShortSliceLoads x kPlanShortSliceMinBlocks", "widest_slice"},
}};

std::string format(const char* spec, double value) {
  char text[64];
  std::snprintf(text, sizeof text, spec, value);
  return text;
}

std::string shape_label(plan::SliceKernelShape shape) {
  return std::to_string(shape.loads) + "x" + std::to_string(shape.min_blocks);
}

// ---- Generators

// Values as the core generators draw them (never zero, never the padding bits).
std::vector<float> values_for(std::size_t count, std::uint64_t seed) { return random_vector(count, seed); }

// The rows' lengths and a column layout for each: `columns(row, length, out)`.
template <typename Columns>
CsrMatrix assemble(index_t rows, index_t cols, const std::vector<index_t>& lengths, Columns columns,
                   std::uint64_t seed) {
  CsrMatrix a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  std::int64_t nnz = 0;
  for (index_t row = 0; row < rows; ++row) {
    nnz += lengths[static_cast<std::size_t>(row)];
    if (nnz > std::numeric_limits<index_t>::max()) throw std::invalid_argument("sweep matrix beyond int32 entries");
    a.row_ptr[static_cast<std::size_t>(row) + 1] = static_cast<index_t>(nnz);
  }
  a.col_idx.reserve(static_cast<std::size_t>(nnz));
  std::vector<index_t> row_columns;
  for (index_t row = 0; row < rows; ++row) {
    row_columns.clear();
    columns(row, lengths[static_cast<std::size_t>(row)], row_columns);
    std::sort(row_columns.begin(), row_columns.end());
    a.col_idx.insert(a.col_idx.end(), row_columns.begin(), row_columns.end());
  }
  a.values = values_for(static_cast<std::size_t>(nnz), seed ^ 0x5eed);
  return a;
}

// `count` distinct columns in [low, high), drawn from `rng`.
void draw_distinct(std::mt19937_64& rng, index_t count, index_t low, index_t high, std::vector<index_t>& out) {
  std::uniform_int_distribution<index_t> column(low, high - 1);
  while (static_cast<index_t>(out.size()) < count) {
    const index_t c = column(rng);
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
}

}  // namespace

namespace {

// Rows of mean - spread .. mean + spread entries (uniform, at most cols).
std::vector<index_t> spread_lengths(index_t rows, index_t cols, index_t mean, index_t spread, std::mt19937_64& rng) {
  std::uniform_int_distribution<index_t> length(mean - spread, mean + spread);
  std::vector<index_t> lengths(static_cast<std::size_t>(rows));
  for (index_t& row_length : lengths) row_length = std::min(length(rng), cols);
  return lengths;
}

void check_spread(const char* generator, index_t rows, index_t mean, index_t spread) {
  if (rows < 1 || mean < 1 || spread < 0 || spread > mean) {
    throw std::invalid_argument(std::string(generator) + ": needs rows >= 1 and 0 <= spread <= mean");
  }
}

}  // namespace

CsrMatrix spread_band(index_t rows, index_t mean, index_t spread, std::uint64_t seed) {
  check_spread("spread_band", rows, mean, spread);
  const index_t cols = rows;
  std::mt19937_64 rng(seed);
  return assemble(
      rows, cols, spread_lengths(rows, cols, mean, spread, rng),
      [cols](index_t row, index_t row_length, std::vector<index_t>& out) {
        const index_t first = std::clamp(row - row_length / 2, 0, cols - row_length);
        for (index_t k = 0; k < row_length; ++k) out.push_back(first + k);
      },
      seed);
}

CsrMatrix spread_random(index_t rows, index_t cols, index_t mean, index_t spread, std::uint64_t seed) {
  check_spread("spread_random", rows, mean, spread);
  if (mean + spread > cols) throw std::invalid_argument("spread_random: needs mean + spread <= cols");
  std::mt19937_64 rng(seed);
  const std::vector<index_t> lengths = spread_lengths(rows, cols, mean, spread, rng);
  return assemble(
      rows, cols, lengths,
      [&](index_t, index_t row_length, std::vector<index_t>& out) { draw_distinct(rng, row_length, 0, cols, out); },
      seed);
}

CsrMatrix window_mix(index_t rows, index_t per_row, double narrow_share, std::uint64_t seed) {
  const index_t cols = rows;
  if (cols < kWindow || per_row < 1 || per_row > kWindow || !(narrow_share >= 0.0 && narrow_share <= 1.0)) {
    throw std::invalid_argument("window_mix: needs rows >= the window, 1 <= per_row <= the window, a share in [0, 1]");
  }
  std::mt19937_64 rng(seed);
  const std::vector<index_t> lengths(static_cast<std::size_t>(rows), per_row);
  // Slice s is narrow when the running count of narrow slices, share x
  // slices, steps up at it: the narrow slices spread evenly.
  const auto narrow = [narrow_share](index_t row) {
    const auto slice = static_cast<double>(row / plan::kSliceRows);
    return std::floor((slice + 1.0) * narrow_share) > std::floor(slice * narrow_share);
  };
  return assemble(
      rows, cols, lengths,
      [&](index_t row, index_t row_length, std::vector<index_t>& out) {
        if (narrow(row)) {
          const index_t slice_first = row / plan::kSliceRows * plan::kSliceRows;
          const index_t low = std::clamp(slice_first - kWindow / 2, 0, cols - kWindow);
          draw_distinct(rng, row_length, low, low + kWindow, out);
        } else {
          draw_distinct(rng, row_length, 0, cols, out);
        }
      },
      seed);
}

// ---- Figures

const ThresholdInfo& info(Threshold threshold) { return kInfo[static_cast<std::size_t>(threshold)]; }

bool is_switch(Threshold threshold) {
  return threshold != Threshold::kSliceKernel && threshold != Threshold::kShortSliceKernel;
}

std::vector<Threshold> thresholds_named(const std::vector<std::string>& names) {
  std::set<Threshold> wanted;
  for (const std::string& name : names) {
    if (name == "all") {
      wanted.insert(kThresholds.begin(), kThresholds.end());
      continue;
    }
    const auto found = std::find_if(kThresholds.begin(), kThresholds.end(),
                                    [&](Threshold threshold) { return info(threshold).name == name; });
    if (found == kThresholds.end()) {
      std::string known = "all";
      for (const Threshold threshold : kThresholds) known += ", " + std::string(info(threshold).name);
      throw std::invalid_argument("unknown threshold \"" + name + "\"; expected one of: " + known);
    }
    wanted.insert(*found);
  }
  if (wanted.empty()) wanted.insert(kThresholds.begin(), kThresholds.end());
  return {wanted.begin(), wanted.end()};
}

double MatrixFigures::mean_row() const {
  return stats.rows > 0 ? static_cast<double>(stats.nnz) / static_cast<double>(stats.rows) : 0.0;
}

double MatrixFigures::padding() const {
  return stats.nnz > 0 ? static_cast<double>(ell_slots) / static_cast<double>(stats.nnz) - 1.0 : 0.0;
}

std::optional<double> MatrixFigures::bytes_ratio() const {
  if (!slices_bytes || csr_bytes <= 0) return std::nullopt;
  return static_cast<double>(*slices_bytes) / static_cast<double>(csr_bytes);
}

MatrixFigures figures_of(const CsrMatrix& a) {
  const plan::HostCsr host{a.rows, a.cols, a.row_ptr, a.col_idx, a.values};
  MatrixFigures figures;
  figures.stats = plan::row_length_stats(host);
  figures.rule = plan::choose_plan(host).rule;
  figures.ell_slots = plan::sliced_ell_slots(a.row_ptr);
  figures.csr_bytes = plan::product_bytes(host);
  if (const std::optional<plan::PackedSlices> packed = plan::pack_slices(host)) {
    figures.slices_bytes = plan::product_bytes(*packed);
    figures.max_width = packed->max_width();
  }
  return figures;
}

double statistic(Threshold threshold, const MatrixFigures& figures) {
  switch (threshold) {
    case Threshold::kSlicesMinPath: return static_cast<double>(figures.path());
    case Threshold::kSlicesMaxMean: return figures.mean_row();
    case Threshold::kSlicesMaxPadding: return figures.padding();
    case Threshold::kSlicesMaxBytes: return figures.bytes_ratio().value_or(std::nan(""));
    case Threshold::kSliceKernel:
    case Threshold::kShortSliceKernel: return figures.max_width;
  }
  return std::nan("");
}

double value_in(Threshold threshold, const plan::PlanSettings& settings) {
  switch (threshold) {
    case Threshold::kSlicesMinPath: return static_cast<double>(settings.slices_min_path);
    case Threshold::kSlicesMaxMean: return settings.slices_max_mean;
    case Threshold::kSlicesMaxPadding: return settings.slices_max_padding;
    case Threshold::kSlicesMaxBytes: return settings.slices_max_bytes;
    case Threshold::kSliceKernel: return settings.slice_kernel.loads;
    case Threshold::kShortSliceKernel: return settings.short_slice_kernel.loads;
  }
  return std::nan("");
}

// ---- The series

namespace {

// Rows of the large matrices: nnz about kEntries (beyond the H100's 50 MB
// L2 in every layout: 4 bytes an entry in diagonal slices is 64 MB at
// 16M entries), a sixteenth with --quick.
constexpr std::int64_t kEntries = 24'000'000;

struct Scale {
  bool quick = false;
  [[nodiscard]] index_t rows(std::int64_t full) const { return static_cast<index_t>(quick ? full / 16 : full); }
};

// `regular`: a stencil's or a band's rows (SuiteEntry::regular).
MatrixSource spec_source(std::string label, std::string spec, bool regular = false) {
  return MatrixSource{std::move(label), std::move(spec), false, "sweep", {}, {}, regular, {}};
}

MatrixSource banded_source(Scale scale, int half_bandwidth) {
  const index_t n = scale.rows(kEntries / (2 * half_bandwidth + 1));
  return spec_source("band-h" + std::to_string(half_bandwidth),
                     "banded n=" + std::to_string(n) + " half_bandwidth=" + std::to_string(half_bandwidth), true);
}

MatrixSource spread_source(Scale scale, int spread) {
  constexpr index_t kMean = 16;
  const index_t rows = scale.rows(kEntries / kMean);
  MatrixSource source = spec_source("spread-s" + std::to_string(spread),
                                    "spread_band rows=" + std::to_string(rows) + " mean=" + std::to_string(kMean) +
                                        " spread=" + std::to_string(spread) + " seed=1");
  source.generate = [rows, spread] { return spread_band(rows, kMean, spread, 1); };
  return source;
}

MatrixSource emptied_band_source(Scale scale, const char* fraction) {
  constexpr int kHalfBandwidth = 8;
  const index_t n = scale.rows(kEntries / (2 * kHalfBandwidth + 1));
  return spec_source(std::string("band-e") + fraction, "banded n=" + std::to_string(n) +
                                                           " half_bandwidth=" + std::to_string(kHalfBandwidth) +
                                                           " empty_fraction=" + fraction);
}

// Square, but at least 2^17 columns: 32-bit slices with --quick too.
MatrixSource spread_random_source(Scale scale, int mean, int spread) {
  const index_t rows = scale.rows(kEntries / mean);
  const index_t cols = std::max(rows, index_t{1} << 17);
  MatrixSource source =
      spec_source("rand-k" + std::to_string(mean) + "s" + std::to_string(spread),
                  "spread_random rows=" + std::to_string(rows) + " cols=" + std::to_string(cols) +
                      " mean=" + std::to_string(mean) + " spread=" + std::to_string(spread) + " seed=1");
  source.generate = [rows, cols, mean, spread] { return spread_random(rows, cols, mean, spread, 1); };
  return source;
}

MatrixSource random_source(Scale scale, int per_row) {
  const index_t rows = scale.rows(kEntries / per_row);
  return spec_source(
      "rand-k" + std::to_string(per_row),
      "random rows=" + std::to_string(rows) + " cols=" + std::to_string(rows) + " per_row=" + std::to_string(per_row));
}

MatrixSource window_source(Scale scale, const char* share) {
  constexpr index_t kPerRow = 16;
  const index_t rows = scale.rows(kEntries / kPerRow);
  MatrixSource source = spec_source(std::string("win-") + share, "window_mix rows=" + std::to_string(rows) +
                                                                     " per_row=" + std::to_string(kPerRow) +
                                                                     " narrow_share=" + share + " seed=1");
  const double narrow_share = std::stod(share);
  source.generate = [rows, narrow_share] { return window_mix(rows, kPerRow, narrow_share, 1); };
  return source;
}

MatrixSource stencil2d_source(int n) {
  return spec_source("s2d-" + std::to_string(n), "stencil2d nx=" + std::to_string(n) + " ny=" + std::to_string(n),
                     true);
}

MatrixSource stencil7_source(int n) {
  return spec_source("s3d7-" + std::to_string(n),
                     "stencil3d7 nx=" + std::to_string(n) + " ny=" + std::to_string(n) + " nz=" + std::to_string(n),
                     true);
}

MatrixSource suite_source(Scale scale, std::string_view name) {
  for (const SuiteEntry& entry : benchmark_suite()) {
    if (entry.name == name) {
      return spec_source(std::string(name), std::string(scale.quick ? entry.quick_spec : entry.spec), entry.regular);
    }
  }
  throw std::logic_error("no suite matrix " + std::string(name));
}

std::vector<MatrixSource> matrices_of(Threshold threshold, Scale scale) {
  std::vector<MatrixSource> matrices;
  switch (threshold) {
    case Threshold::kSlicesMinPath:
      // Merge paths from 0.4M to 6.3M items; s2d-295 and s2d-296, s3d7-40
      // and s3d7-41 lie on either side of 2^19, s2d-418 and s2d-419,
      // s3d7-51 and s3d7-52 on either side of 2^20.
      for (const int n : {256, 295, 296, 362, 418, 419, 512, 724, 1024}) matrices.push_back(stencil2d_source(n));
      for (const int n : {40, 41, 51, 52, 64}) matrices.push_back(stencil7_source(n));
      break;
    case Threshold::kSlicesMaxMean:
      // Mean rows just under 2h + 1: 17, 33, 49, 65, 97, 129, 193, 255,
      // 259, 267, 321 (band-h129 and band-h133 on either side of 260, with
      // --quick too).
      for (const int h : {8, 16, 24, 32, 48, 64, 96, 127, 129, 133, 160}) {
        matrices.push_back(banded_source(scale, h));
      }
      break;
    case Threshold::kSlicesMaxPadding:
      // Padding about spread / 16 (0-100%), and f / (1 - f) for a share f
      // of a band's rows emptied (5-186%). Diagonal slices padded beyond
      // about 100% move more bytes than CSR: there slices_max_bytes turns
      // them down whatever this threshold, and only their forced time says
      // what they would cost.
      for (const int spread : {0, 1, 2, 3, 4, 6, 8, 12, 14, 16}) matrices.push_back(spread_source(scale, spread));
      for (const char* fraction : {"0.05", "0.1", "0.2", "0.4", "0.5", "0.6", "0.65"}) {
        matrices.push_back(emptied_band_source(scale, fraction));
      }
      break;
    case Threshold::kSlicesMaxBytes:
      // 32-bit slices of random rows of k: (8k + 8.5) / (8k + 12) of CSR's
      // bytes, 0.83 (k = 1) to 0.98 (k = 16); rows of 16 with a share of
      // 16-bit slices: 0.92, 0.86, 0.80; random rows of 32 +- 1 and 16 +- 1
      // or 2 entries, whose padding costs more than the row pointers save:
      // just above 1.
      for (const int per_row : {1, 2, 3, 4, 8, 16}) matrices.push_back(random_source(scale, per_row));
      for (const char* share : {"0.25", "0.5", "0.75"}) matrices.push_back(window_source(scale, share));
      matrices.push_back(spread_random_source(scale, 32, 1));
      matrices.push_back(spread_random_source(scale, 16, 1));
      matrices.push_back(spread_random_source(scale, 16, 2));
      break;
    case Threshold::kSliceKernel:
      // Slices of 5 to 27 slots, diagonal, 32-bit; all wider than the short
      // kernel's 2 slots.
      for (const std::string_view name : {"stencil2d", "stencil27", "stencil7"}) {
        matrices.push_back(suite_source(scale, name));
      }
      matrices.push_back(banded_source(scale, 12));
      matrices.push_back(spread_source(scale, 4));
      matrices.push_back(random_source(scale, 8));
      break;
    case Threshold::kShortSliceKernel:
      // Slices of 1 to 4 slots: the short kernel's loads decide which take it.
      for (const int per_row : {1, 2, 3, 4}) matrices.push_back(random_source(scale, per_row));
      break;
  }
  return matrices;
}

// The values tried: the list, with the default added if it is not in it.
std::vector<Value> switch_values(Threshold threshold, std::vector<double> numbers) {
  const plan::PlanSettings defaults;
  const auto set = [threshold](plan::PlanSettings& settings, double number) {
    switch (threshold) {
      case Threshold::kSlicesMinPath: settings.slices_min_path = static_cast<std::int64_t>(number); break;
      case Threshold::kSlicesMaxMean: settings.slices_max_mean = number; break;
      case Threshold::kSlicesMaxPadding: settings.slices_max_padding = number; break;
      case Threshold::kSlicesMaxBytes: settings.slices_max_bytes = number; break;
      default: throw std::logic_error("not a switch");
    }
  };
  const double default_number = value_in(threshold, defaults);
  if (std::find(numbers.begin(), numbers.end(), default_number) == numbers.end()) numbers.push_back(default_number);
  std::sort(numbers.begin(), numbers.end());
  std::vector<Value> values;
  for (const double number : numbers) {
    Value value;
    value.number = number;
    set(value.settings, number);
    value.is_default = value.settings == defaults;
    if (threshold == Threshold::kSlicesMinPath) {
      const auto items = static_cast<std::int64_t>(number);
      const bool power = items > 0 && (items & (items - 1)) == 0;
      value.label =
          power ? "2^" + std::to_string(std::countr_zero(static_cast<std::uint64_t>(items))) : std::to_string(items);
    } else {
      value.label = format("%g", number);
    }
    values.push_back(std::move(value));
  }
  return values;
}

std::vector<Value> shape_values(Threshold threshold) {
  const plan::PlanSettings defaults;
  const bool short_kernel = threshold == Threshold::kShortSliceKernel;
  std::vector<Value> values;
  for (const plan::SliceKernelShape shape :
       short_kernel ? plan::short_slice_kernel_shapes() : plan::slice_kernel_shapes()) {
    Value value;
    (short_kernel ? value.settings.short_slice_kernel : value.settings.slice_kernel) = shape;
    value.number = shape.loads;
    value.label = shape_label(shape);
    value.is_default = value.settings == defaults;
    values.push_back(std::move(value));
  }
  return values;
}

std::vector<Value> values_of(Threshold threshold) {
  switch (threshold) {
    case Threshold::kSlicesMinPath:
      return switch_values(threshold, {0, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22, 1 << 23});
    case Threshold::kSlicesMaxMean: return switch_values(threshold, {16, 32, 48, 64, 96, 128, 192, 256, 260, 320, 512});
    case Threshold::kSlicesMaxPadding:
      return switch_values(threshold, {0, 0.05, 0.08, 0.10, 0.12, 0.15, 0.20, 0.30, 0.40, 0.60, 0.75, 0.90, 1.00, 1.05,
                                       1.25, 1.50, 2.00});
    case Threshold::kSlicesMaxBytes:
      return switch_values(threshold,
                           {0.75, 0.80, 0.85, 0.88, 0.90, 0.91, 0.92, 0.94, 0.96, 0.98, 1.00, 1.02, 1.05, 1.10});
    case Threshold::kSliceKernel:
    case Threshold::kShortSliceKernel: return shape_values(threshold);
  }
  return {};
}

}  // namespace

SweepPlan plan_sweep(const std::vector<Threshold>& thresholds, bool quick) {
  SweepPlan sweep;
  const Scale scale{quick};
  for (const Threshold threshold : kThresholds) {
    if (std::find(thresholds.begin(), thresholds.end(), threshold) == thresholds.end()) continue;
    Series series;
    series.threshold = threshold;
    series.values = values_of(threshold);
    for (MatrixSource& source : matrices_of(threshold, scale)) {
      const auto known = std::find_if(sweep.matrices.begin(), sweep.matrices.end(),
                                      [&](const MatrixSource& other) { return other.label == source.label; });
      if (known != sweep.matrices.end() && known->origin != source.origin) {
        throw std::logic_error("sweep matrix " + source.label + " has two origins");
      }
      series.matrices.push_back(static_cast<std::size_t>(known - sweep.matrices.begin()));
      if (known == sweep.matrices.end()) sweep.matrices.push_back(std::move(source));
    }
    sweep.series.push_back(std::move(series));
  }
  return sweep;
}

// ---- Picks and variants

namespace {

PlanKind laid_out(const MatrixFigures& figures, const plan::PlanSettings& settings) {
  const plan::PlanChoice chosen = plan::choose_plan(figures.stats, figures.rule, figures.ell_slots, settings);
  return plan::laid_out_kind(chosen, figures.slices_bytes, figures.csr_bytes, settings);
}

std::string forced_kernel(PlanKind kind) { return std::string("auto=plan-") + reference::plan_kind_name(kind); }
std::string shape_kernel(plan::SliceKernelShape shape) { return "auto=slices-" + shape_label(shape); }

}  // namespace

Pick pick(Threshold threshold, const MatrixFigures& figures, const plan::PlanSettings& settings) {
  Pick picked;
  if (is_switch(threshold)) {
    picked.kind = laid_out(figures, settings);
    picked.kernel = picked.kind == laid_out(figures, plan::PlanSettings{}) ? "auto" : forced_kernel(picked.kind);
  } else {
    picked.kind = PlanKind::kSlices;
  }
  if (picked.kind == PlanKind::kSlices) picked.slice_kernel = plan::slice_kernel_for(figures.max_width, settings);
  if (!is_switch(threshold)) picked.kernel = shape_kernel(picked.slice_kernel);
  return picked;
}

std::vector<Variant> variants_for(const SweepPlan& plan, std::size_t matrix, const MatrixFigures& figures) {
  std::vector<Variant> variants;
  const auto add = [&](const Pick& picked, const plan::PlanSettings& settings) {
    for (const Variant& variant : variants) {
      if (variant.kernel == picked.kernel) return;
    }
    Variant variant;
    variant.kernel = picked.kernel;
    variant.expected = picked;
    const std::string kind = reference::plan_kind_name(picked.kind);
    if (picked.kernel == "auto") {
      variant.description = "auto's plan, default settings (" + kind + ")";
    } else if (picked.kernel == forced_kernel(picked.kind)) {
      variant.request = reference::PlanRequest{picked.kind, 0, 0};
      variant.description = "auto's plan forced to " + kind + ", default settings";
    } else {
      variant.request = reference::PlanRequest{PlanKind::kSlices, 0, 0};
      variant.settings = settings;
      variant.description = "auto's plan forced to slices, kernel of " + std::to_string(picked.slice_kernel.loads) +
                            " loads x " + std::to_string(picked.slice_kernel.min_blocks) + " blocks";
    }
    variants.push_back(std::move(variant));
  };
  for (const Series& series : plan.series) {
    if (std::find(series.matrices.begin(), series.matrices.end(), matrix) == series.matrices.end()) continue;
    if (is_switch(series.threshold)) {
      // Each kind, whichever value picks it: the default's first ("auto").
      const plan::PlanSettings defaults;
      add(pick(series.threshold, figures, defaults), defaults);
      for (const PlanKind kind : {PlanKind::kSlices, PlanKind::kRule}) {
        Pick forced;
        forced.kind = kind;
        forced.kernel = forced_kernel(kind);
        if (kind == PlanKind::kSlices) forced.slice_kernel = plan::slice_kernel_for(figures.max_width, defaults);
        if (forced.kind != laid_out(figures, defaults)) add(forced, defaults);
      }
    }
    for (const Value& value : series.values) add(pick(series.threshold, figures, value.settings), value.settings);
  }
  return variants;
}

// ---- Notes, rows and the summary

namespace {

constexpr std::string_view kPicked = "auto picked ";

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::optional<PlanKind> kind_described(std::string_view description) {
  if (description.starts_with("packed slices")) return PlanKind::kSlices;
  if (description.starts_with("merge tiles")) return PlanKind::kTiles;
  if (description.starts_with("the rule's")) return PlanKind::kRule;
  return std::nullopt;
}

}  // namespace

std::string check_note(const Variant& variant, const std::string& note) {
  const std::string line = first_line(note);
  if (!line.starts_with(kPicked)) return "its note does not say what auto's plan picked: \"" + line + "\"";
  const std::optional<PlanKind> kind = kind_described(std::string_view(line).substr(kPicked.size()));
  const std::string expected = reference::plan_kind_name(variant.expected.kind);
  if (kind != variant.expected.kind) return "expected a plan of " + expected + ", the plan was: " + line;
  if (*kind == PlanKind::kSlices) {
    const std::string shape = "slices' kernel " + std::to_string(variant.expected.slice_kernel.loads) + " loads x " +
                              std::to_string(variant.expected.slice_kernel.min_blocks) + " blocks";
    if (note.find(shape) == std::string::npos) return "expected the " + shape + "; the note: " + note;
  }
  return {};
}

namespace {

std::string plan_of(const Pick& picked, const KernelTiming* timing) {
  std::string text;
  if (timing != nullptr && timing->status == "ok" && first_line(timing->note).starts_with(kPicked)) {
    text = first_line(timing->note).substr(kPicked.size());
  } else {
    text = reference::plan_kind_name(picked.kind);
  }
  if (picked.kind == PlanKind::kSlices) text += "; kernel " + shape_label(picked.slice_kernel);
  return text;
}

}  // namespace

std::vector<Row> rows_of(const SweepPlan& plan, const std::vector<MatrixResult>& results) {
  std::vector<Row> rows;
  for (const Series& series : plan.series) {
    const ThresholdInfo& about = info(series.threshold);
    for (const std::size_t matrix : series.matrices) {
      const auto result =
          std::find_if(results.begin(), results.end(), [matrix](const MatrixResult& r) { return r.matrix == matrix; });
      if (result == results.end()) continue;  // not run (the run stopped, or the matrix failed to load)
      const MatrixSource& source = plan.matrices[matrix];
      for (const Value& value : series.values) {
        const Pick picked = pick(series.threshold, result->figures, value.settings);
        const auto timed = result->kernels.find(picked.kernel);
        const KernelTiming* timing = timed != result->kernels.end() ? &timed->second : nullptr;
        Row row;
        row.matrix = source.label;
        row.origin = source.origin;
        row.threshold = about.name;
        row.value = value.label;
        row.value_number = value.number;
        row.chosen_by_default = value.is_default;
        row.statistic = about.statistic;
        row.statistic_value = statistic(series.threshold, result->figures);
        row.plan = plan_of(picked, timing);
        row.kernel = picked.kernel;
        row.status = timing == nullptr ? "not run" : !timing->mismatch.empty() ? "MISMATCH" : timing->status;
        row.best_cusparse = result->best_cusparse;
        row.best_cusparse_ms = result->best_cusparse_ms;
        if (row.status == "ok") {
          row.ms = timing->ms;
          if (row.best_cusparse_ms > 0 && row.ms > 0) row.speedup = row.best_cusparse_ms / row.ms;
        }
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

void write_csv(std::ostream& out, const std::vector<Row>& rows) {
  out << kCsvHeader << '\n';
  write_csv_rows(out, rows);
}

void write_csv_rows(std::ostream& out, const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    const bool timed = row.status == "ok";
    out << csv_field(row.matrix) << ',' << row.threshold << ',' << csv_field(row.value) << ',' << csv_field(row.plan)
        << ',' << (timed ? format("%.6f", row.ms) : "") << ',' << (row.speedup ? format("%.4f", *row.speedup) : "")
        << ',' << (row.chosen_by_default ? 1 : 0) << ',' << row.status << ',' << format("%.17g", row.value_number)
        << ',' << row.statistic << ',' << format("%.6g", row.statistic_value) << ',' << row.kernel << ','
        << row.best_cusparse << ',' << (row.best_cusparse_ms > 0 ? format("%.6f", row.best_cusparse_ms) : "") << ','
        << csv_field(row.origin) << '\n';
  }
  out.flush();
}

namespace {

double geometric_mean_of(const std::vector<double>& values) {
  if (values.empty()) return std::nan("");
  double log_sum = 0;
  for (const double value : values) log_sum += std::log(value);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

std::string figure_text(Threshold threshold, double value) {
  if (std::isnan(value)) return "-";
  switch (threshold) {
    case Threshold::kSlicesMinPath: return format("%.0f", value);
    case Threshold::kSlicesMaxPadding: return format("%.1f%%", 100.0 * value);
    case Threshold::kSlicesMaxBytes: return format("%.3f", value);
    case Threshold::kSliceKernel:
    case Threshold::kShortSliceKernel: return format("%.0f", value);
    case Threshold::kSlicesMaxMean: break;
  }
  return format("%.2f", value);
}

std::string ms_text(const KernelTiming* timing) {
  if (timing == nullptr) return "-";
  if (!timing->mismatch.empty()) return "MISMATCH";
  return timing->status == "ok" ? format("%.4f", timing->ms) : timing->status;
}

// "sell_alg1" for "cusparse_sell_alg1".
std::string short_cusparse(const std::string& kernel) {
  return kernel.starts_with("cusparse_") ? kernel.substr(9) : kernel;
}

const KernelTiming* timing_of(const MatrixResult& result, const std::string& kernel) {
  const auto found = result.kernels.find(kernel);
  return found != result.kernels.end() ? &found->second : nullptr;
}

std::optional<double> timed_ms(const KernelTiming* timing) {
  if (timing == nullptr || timing->status != "ok" || !timing->mismatch.empty()) return std::nullopt;
  return timing->ms;
}

// Where, along the matrices in the order of their figure, the kind (the
// faster one, or the one the default lays out) changes: "between A
// (figure, kind) and B (figure, kind)" for each change; matrices without
// a kind (a plan untimed) are passed over.
struct Along {
  std::string label;
  double figure = 0;
  std::optional<PlanKind> kind;
};
std::string changes(Threshold threshold, const std::vector<Along>& along) {
  std::string text;
  const Along* previous = nullptr;
  for (const Along& here : along) {
    if (!here.kind) continue;
    if (previous != nullptr && previous->kind != here.kind) {
      text += std::string(text.empty() ? "" : "; ") + "between " + previous->label + " (" +
              figure_text(threshold, previous->figure) + ", " + reference::plan_kind_name(*previous->kind) + ") and " +
              here.label + " (" + figure_text(threshold, here.figure) + ", " + reference::plan_kind_name(*here.kind) +
              ")";
    }
    previous = &here;
  }
  if (text.empty()) {
    return previous == nullptr
               ? "no matrix timed"
               : std::string("none: ") + reference::plan_kind_name(*previous->kind) + " on every matrix";
  }
  return text;
}

// Per value: its time over the fastest plan of each matrix, and its
// speedup over the fastest cuSPARSE algorithm, as geometric means; the
// fastest value(s) named last.
void print_values(std::ostream& out, const Series& series, const std::vector<const MatrixResult*>& results,
                  const std::string& kinds_heading) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-10s %-16s %-22s %s\n", "value", kinds_heading.c_str(), "time / fastest (gm)",
                "vs best cuSPARSE (gm)");
  out << line;
  std::vector<double> means;
  for (const Value& value : series.values) {
    std::vector<double> over_fastest;
    std::vector<double> speedups;
    int slices = 0;
    int timed = 0;
    for (const MatrixResult* result : results) {
      std::optional<double> fastest;
      for (const Value& other : series.values) {
        const std::optional<double> ms =
            timed_ms(timing_of(*result, pick(series.threshold, result->figures, other.settings).kernel));
        if (ms && (!fastest || *ms < *fastest)) fastest = ms;
      }
      const Pick picked = pick(series.threshold, result->figures, value.settings);
      if (picked.kind == reference::PlanKind::kSlices) ++slices;
      const std::optional<double> ms = timed_ms(timing_of(*result, picked.kernel));
      if (!ms || !fastest) continue;
      ++timed;
      over_fastest.push_back(*ms / *fastest);
      if (result->best_cusparse_ms > 0) speedups.push_back(result->best_cusparse_ms / *ms);
    }
    const double mean = timed == static_cast<int>(results.size()) ? geometric_mean_of(over_fastest) : std::nan("");
    means.push_back(mean);
    const std::string kinds =
        is_switch(series.threshold) ? std::to_string(slices) + " of " + std::to_string(results.size()) + " slices" : "";
    std::snprintf(line, sizeof line, "  %-10s %-16s %-22s %s\n", (value.label + (value.is_default ? " *" : "")).c_str(),
                  kinds.c_str(), std::isnan(mean) ? "- (a plan untimed)" : format("%.4fx", mean).c_str(),
                  speedups.empty() ? "-" : format("%.3fx", geometric_mean_of(speedups)).c_str());
    out << line;
  }
  double best = std::numeric_limits<double>::infinity();
  for (const double mean : means) {
    if (!std::isnan(mean)) best = std::min(best, mean);
  }
  if (std::isinf(best)) {
    out << "  fastest value: none (a plan of every value untimed)\n";
    return;
  }
  // Values within 0.5% of the fastest are level with it: the timer's noise.
  std::string fastest;
  std::string level;
  std::string default_text;
  for (std::size_t i = 0; i < series.values.size(); ++i) {
    if (std::isnan(means[i])) continue;
    const std::string& label = series.values[i].label;
    if (means[i] == best && fastest.empty()) {
      fastest = label;
    } else if (means[i] <= best * 1.005) {
      level += (level.empty() ? "" : ", ") + label;
    }
    if (series.values[i].is_default) default_text = label + " at " + format("%.4fx", means[i]);
  }
  out << "  fastest value: " << fastest << " (" << format("%.4fx", best) << " the fastest plan of each matrix)"
      << (level.empty() ? "" : "; within 0.5% of it: " + level)
      << "; the default: " << (default_text.empty() ? "untimed" : default_text) << '\n';
}

void print_switch(std::ostream& out, const SweepPlan& plan, const Series& series,
                  const std::vector<const MatrixResult*>& results) {
  const ThresholdInfo& about = info(series.threshold);
  const bool slices_above = series.threshold == Threshold::kSlicesMinPath;
  char line[256];
  std::snprintf(line, sizeof line, "  %-10s %12s %10s %10s %-7s %-18s %s\n", "matrix",
                std::string(about.statistic).c_str(), "slices ms", "rule ms", "faster", "best cuSPARSE ms",
                "default picks");
  out << line;
  std::vector<const MatrixResult*> ordered = results;
  std::stable_sort(ordered.begin(), ordered.end(), [&](const MatrixResult* a, const MatrixResult* b) {
    return statistic(series.threshold, a->figures) < statistic(series.threshold, b->figures);
  });
  std::vector<Along> faster_along;
  std::vector<Along> default_along;
  const plan::PlanSettings defaults;
  for (const MatrixResult* result : ordered) {
    const Pick by_default = pick(series.threshold, result->figures, defaults);
    const auto kernel_of = [&](PlanKind kind) { return kind == by_default.kind ? "auto" : forced_kernel(kind); };
    const KernelTiming* slices = timing_of(*result, kernel_of(PlanKind::kSlices));
    const KernelTiming* rule = timing_of(*result, kernel_of(PlanKind::kRule));
    std::optional<PlanKind> faster;
    if (timed_ms(slices) && timed_ms(rule)) {
      faster = *timed_ms(slices) <= *timed_ms(rule) ? PlanKind::kSlices : PlanKind::kRule;
    }
    const std::string& label = plan.matrices[result->matrix].label;
    const double figure = statistic(series.threshold, result->figures);
    faster_along.push_back({label, figure, faster});
    default_along.push_back({label, figure, by_default.kind});
    const std::string best = result->best_cusparse.empty() ? "-"
                                                           : format("%.4f", result->best_cusparse_ms) + " " +
                                                                 short_cusparse(result->best_cusparse);
    std::snprintf(line, sizeof line, "  %-10s %12s %10s %10s %-7s %-18s %s\n", label.c_str(),
                  figure_text(series.threshold, figure).c_str(), ms_text(slices).c_str(), ms_text(rule).c_str(),
                  faster ? reference::plan_kind_name(*faster) : "-", best.c_str(),
                  reference::plan_kind_name(by_default.kind));
    out << line;
  }
  const std::string measured = changes(series.threshold, faster_along);
  const std::string by_default = changes(series.threshold, default_along);
  out << "  the faster plan changes (along " << about.statistic << "): " << measured << '\n'
      << "  the default (" << about.name << " = " << figure_text(series.threshold, value_in(series.threshold, defaults))
      << ", packed slices " << (slices_above ? "above" : "up to") << " it) changes: " << by_default
      << (measured == by_default ? " (where the measured change is)" : "") << '\n';
  print_values(out, series, results, "picks");
}

void print_shapes(std::ostream& out, const SweepPlan& plan, const Series& series,
                  const std::vector<const MatrixResult*>& results) {
  out << "  ms a call, packed slices forced, by kernel shape (loads x blocks; '>' the shape that runs instead)\n";
  for (const MatrixResult* result : results) {
    std::string text =
        plan.matrices[result->matrix].label + " (widest slice " + std::to_string(result->figures.max_width) + "):";
    std::optional<double> fastest;
    std::string fastest_label;
    for (const Value& value : series.values) {
      const Pick picked = pick(series.threshold, result->figures, value.settings);
      const KernelTiming* timing = timing_of(*result, picked.kernel);
      const plan::SliceKernelShape asked = series.threshold == Threshold::kShortSliceKernel
                                               ? value.settings.short_slice_kernel
                                               : value.settings.slice_kernel;
      text += " " + value.label + (asked == picked.slice_kernel ? "" : ">" + shape_label(picked.slice_kernel)) + " " +
              ms_text(timing);
      const std::optional<double> ms = timed_ms(timing);
      if (ms && (!fastest || *ms < *fastest)) {
        fastest = ms;
        fastest_label = value.label;
      }
    }
    if (fastest) text += "; fastest " + fastest_label;
    if (!result->best_cusparse.empty()) {
      text +=
          "; best cuSPARSE " + short_cusparse(result->best_cusparse) + " " + format("%.4f", result->best_cusparse_ms);
    }
    out << "  " << text << '\n';
  }
  print_values(out, series, results, "");
}

}  // namespace

void print_summary(std::ostream& out, const SweepPlan& plan, const std::vector<MatrixResult>& results) {
  out << "\n==== threshold sweep ====\n"
      << "auto's plan at each value of each threshold (plan::PlanSettings; '*' the default, tuning.hpp's), against "
         "the fastest plan of the same matrix and the fastest cuSPARSE algorithm of the same run\n";
  int mismatches = 0;
  for (const MatrixResult& result : results) {
    for (const auto& [kernel, timing] : result.kernels) {
      if (timing.mismatch.empty()) continue;
      ++mismatches;
      out << "MISMATCH " << plan.matrices[result.matrix].label << " " << kernel << ": " << timing.mismatch << '\n';
    }
  }
  for (const Series& series : plan.series) {
    const ThresholdInfo& about = info(series.threshold);
    std::vector<const MatrixResult*> ran;
    for (const std::size_t matrix : series.matrices) {
      for (const MatrixResult& result : results) {
        if (result.matrix == matrix) ran.push_back(&result);
      }
    }
    out << '\n'
        << about.name << " (tuning::" << about.tuning << "): " << ran.size() << " of " << series.matrices.size()
        << " matrices run\n";
    if (is_switch(series.threshold)) {
      print_switch(out, plan, series, ran);
    } else {
      print_shapes(out, plan, series, ran);
    }
  }
  if (mismatches > 0) out << '\n' << mismatches << " plans were not the ones expected (MISMATCH above)\n";
  out.flush();
}

}  // namespace spmv::bench::sweep
