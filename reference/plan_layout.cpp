// The host side of auto's plan (plan_layout.hpp): the choice of plan and
// the layouts of packed slices and merge tiles, with their CPU products.
#include "spmv/reference/plan_layout.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include "tuning.hpp"

namespace spmv::reference {

const char* plan_kind_name(PlanKind kind) {
  switch (kind) {
    case PlanKind::kSlices: return "slices";
    case PlanKind::kTiles: return "tiles";
    case PlanKind::kRule: return "rule";
  }
  return "?";
}

namespace plan {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

std::int64_t slice_count(std::int64_t rows) { return (rows + kSliceRows - 1) / kSliceRows; }

// Rows [first, end) of slice s.
struct SliceRows {
  std::int64_t first;
  std::int64_t end;
};
SliceRows rows_of_slice(std::int64_t rows, std::int64_t slice) {
  const std::int64_t first = slice * kSliceRows;
  return {first, std::min(first + kSliceRows, rows)};
}

std::int64_t longest_row(std::span<const std::int32_t> row_ptr, SliceRows rows) {
  std::int64_t longest = 0;
  for (std::int64_t row = rows.first; row < rows.end; ++row) {
    longest = std::max<std::int64_t>(longest, row_ptr[row + 1] - row_ptr[row]);
  }
  return longest;
}

// Bytes of a slice's slots in each encoding (index data included), or
// none where the encoding cannot hold it.
constexpr std::int64_t kValueBytes = 4;
constexpr std::int64_t kNarrowBytes = 2;
constexpr std::int64_t kWideBytes = 4;

// The diagonals (column - row) of the slice's entries, sorted, once each.
std::vector<std::int32_t> diagonals_of(const HostCsr& a, SliceRows rows) {
  std::vector<std::int32_t> diagonals;
  for (std::int64_t row = rows.first; row < rows.end; ++row) {
    for (std::int64_t j = a.row_ptr[row]; j < a.row_ptr[row + 1]; ++j) {
      diagonals.push_back(static_cast<std::int32_t>(a.col_idx[j] - row));
    }
  }
  std::sort(diagonals.begin(), diagonals.end());
  diagonals.erase(std::unique(diagonals.begin(), diagonals.end()), diagonals.end());
  return diagonals;
}

// Smallest and largest column of the slice's entries (columns are sorted
// in a row); {0, 0} for a slice without entries.
std::pair<std::int32_t, std::int32_t> column_range(const HostCsr& a, SliceRows rows) {
  std::int32_t low = std::numeric_limits<std::int32_t>::max();
  std::int32_t high = std::numeric_limits<std::int32_t>::min();
  for (std::int64_t row = rows.first; row < rows.end; ++row) {
    const std::int32_t begin = a.row_ptr[row];
    const std::int32_t end = a.row_ptr[row + 1];
    if (end > begin) {
      low = std::min(low, a.col_idx[begin]);
      high = std::max(high, a.col_idx[end - 1]);
    }
  }
  return low > high ? std::pair<std::int32_t, std::int32_t>{0, 0} : std::pair{low, high};
}

// Diagonal lists already stored, so that slices with the same diagonals
// (every slice of a stencil's interior) share one copy.
class DiagonalTable {
 public:
  explicit DiagonalTable(std::vector<std::int32_t>& storage) : storage_(storage) {}

  [[nodiscard]] bool holds(const std::vector<std::int32_t>& diagonals) const {
    return index_.find(diagonals) != index_.end();
  }
  std::int64_t index_of(const std::vector<std::int32_t>& diagonals) {
    const auto found = index_.find(diagonals);
    if (found != index_.end()) return found->second;
    const auto index = static_cast<std::int64_t>(storage_.size());
    storage_.insert(storage_.end(), diagonals.begin(), diagonals.end());
    index_.emplace(diagonals, index);
    return index;
  }

 private:
  std::vector<std::int32_t>& storage_;
  std::map<std::vector<std::int32_t>, std::int64_t> index_;
};

float padding_value() { return std::bit_cast<float>(kPaddingBits); }

}  // namespace

RowLengthStats row_length_stats(const HostCsr& a) {
  RowLengthStats stats{a.rows, a.cols, a.nnz(), 0, 0};
  for (std::int64_t row = 0; row < a.rows; ++row) {
    const std::int32_t begin = a.row_ptr[row];
    const std::int32_t end = a.row_ptr[row + 1];
    stats.max_row = std::max<std::int64_t>(stats.max_row, end - begin);
    if (end > begin) stats.max_span = std::max<std::int64_t>(stats.max_span, a.col_idx[end - 1] - a.col_idx[begin]);
  }
  return stats;
}

std::int64_t largest_block_entries(std::span<const std::int32_t> row_ptr, int rows_per_block) {
  if (rows_per_block < 1) throw std::invalid_argument("largest_block_entries: rows_per_block must be at least 1");
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  std::int64_t largest = 0;
  for (std::int64_t first = 0; first < rows; first += rows_per_block) {
    const std::int64_t last = std::min(first + rows_per_block, rows);
    largest = std::max<std::int64_t>(largest, row_ptr[last] - row_ptr[first]);
  }
  return largest;
}

std::int64_t sliced_ell_slots(std::span<const std::int32_t> row_ptr) {
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  std::int64_t slots = 0;
  for (std::int64_t slice = 0; slice < slice_count(rows); ++slice) {
    slots += kSliceRows * longest_row(row_ptr, rows_of_slice(rows, slice));
  }
  return slots;
}

const char* encoding_name(SliceEncoding encoding) {
  switch (encoding) {
    case SliceEncoding::kDiagonals: return "diagonals";
    case SliceEncoding::kNarrow: return "16-bit";
    case SliceEncoding::kWide: return "32-bit";
  }
  return "?";
}

std::int64_t PackedSlices::bytes() const {
  return static_cast<std::int64_t>(headers.size() * sizeof(SliceHeader) + values.size() * sizeof(float) +
                                   narrow.size() * sizeof(std::uint16_t) + wide.size() * sizeof(std::int32_t) +
                                   diagonals.size() * sizeof(std::int32_t));
}

std::int32_t PackedSlices::max_width() const {
  std::int32_t widest = 0;
  for (const SliceHeader& header : headers) widest = std::max(widest, header.width());
  return widest;
}

std::optional<PackedSlices> pack_slices(const HostCsr& a) {
  if (static_cast<std::int64_t>(a.values.size()) != a.nnz()) {
    throw std::invalid_argument("pack_slices: the values are needed");
  }
  for (const float value : a.values) {
    if (std::bit_cast<std::uint32_t>(value) == kPaddingBits) return std::nullopt;
  }
  PackedSlices packed;
  packed.rows = a.rows;
  packed.cols = a.cols;
  packed.nnz = a.nnz();
  DiagonalTable table(packed.diagonals);
  const std::int64_t slices = slice_count(a.rows);
  packed.headers.reserve(static_cast<std::size_t>(slices));
  for (std::int64_t slice = 0; slice < slices; ++slice) {
    const SliceRows rows = rows_of_slice(a.rows, slice);
    const std::int64_t width = longest_row(a.row_ptr, rows);
    const std::vector<std::int32_t> diagonals = diagonals_of(a, rows);
    const auto [low, high] = column_range(a, rows);

    // The encoding of fewest bytes; on a tie the one with fewer loads.
    const auto diagonal_count = static_cast<std::int64_t>(diagonals.size());
    const std::int64_t diagonal_bytes =
        kSliceRows * diagonal_count * kValueBytes + (table.holds(diagonals) ? 0 : diagonal_count * 4);
    const bool narrow_fits = static_cast<std::int64_t>(high) - low <= kNarrowSpan;
    const std::int64_t narrow_bytes = kSliceRows * width * (kValueBytes + kNarrowBytes);
    const std::int64_t wide_bytes = kSliceRows * width * (kValueBytes + kWideBytes);
    SliceEncoding encoding = SliceEncoding::kWide;
    if (narrow_fits && narrow_bytes < wide_bytes) encoding = SliceEncoding::kNarrow;
    const std::int64_t best_ell = encoding == SliceEncoding::kNarrow ? narrow_bytes : wide_bytes;
    if (diagonal_bytes <= best_ell) encoding = SliceEncoding::kDiagonals;
    const std::int64_t slot_width = encoding == SliceEncoding::kDiagonals ? diagonal_count : width;

    SliceHeader header;
    const auto first_slot = static_cast<std::int64_t>(packed.values.size());
    std::int64_t index = 0;
    if (encoding == SliceEncoding::kDiagonals) {
      index = table.index_of(diagonals);
    } else if (encoding == SliceEncoding::kNarrow) {
      index = static_cast<std::int64_t>(packed.narrow.size()) / kSliceRows;
      header.base = low;
    } else {
      index = static_cast<std::int64_t>(packed.wide.size()) / kSliceRows;
    }
    const std::int64_t last_group = first_slot / kSliceRows + slot_width;
    if (last_group > kInt32Max || index + slot_width > kInt32Max || slot_width > kInt32Max / 4) return std::nullopt;
    header.value_group = static_cast<std::int32_t>(first_slot / kSliceRows);
    header.index = static_cast<std::int32_t>(index);
    header.width_and_encoding = static_cast<std::int32_t>(slot_width * 4 + static_cast<std::int32_t>(encoding));
    packed.headers.push_back(header);
    ++packed.slices_by_encoding[static_cast<std::size_t>(encoding)];

    const auto slot_count = static_cast<std::size_t>(kSliceRows * slot_width);
    packed.values.resize(packed.values.size() + slot_count, padding_value());
    if (encoding == SliceEncoding::kNarrow) packed.narrow.resize(packed.narrow.size() + slot_count, 0);
    if (encoding == SliceEncoding::kWide) packed.wide.resize(packed.wide.size() + slot_count, 0);
    for (std::int64_t row = rows.first; row < rows.end; ++row) {
      const std::int64_t lane = row - rows.first;
      const std::int32_t begin = a.row_ptr[row];
      const std::int32_t end = a.row_ptr[row + 1];
      std::int64_t k = 0;  // the entry's slot
      for (std::int32_t j = begin; j < end; ++j) {
        if (encoding == SliceEncoding::kDiagonals) {
          // Both sorted: the row's diagonals come in the list's order.
          const auto diagonal = static_cast<std::int32_t>(a.col_idx[j] - row);
          while (diagonals[static_cast<std::size_t>(k)] != diagonal) ++k;
        } else {
          k = j - begin;
        }
        const auto slot = static_cast<std::size_t>(kSliceRows * k + lane);
        packed.values[static_cast<std::size_t>(first_slot) + slot] = a.values[j];
        if (encoding == SliceEncoding::kNarrow) {
          packed.narrow[static_cast<std::size_t>(index * kSliceRows) + slot] =
              static_cast<std::uint16_t>(a.col_idx[j] - low);
        } else if (encoding == SliceEncoding::kWide) {
          packed.wide[static_cast<std::size_t>(index * kSliceRows) + slot] = a.col_idx[j];
        }
      }
    }
  }
  return packed;
}

void packed_slices_spmv(const PackedSlices& a, std::span<const float> x, std::span<float> y) {
  for (std::int64_t slice = 0; slice < a.slices(); ++slice) {
    const SliceHeader& header = a.headers[static_cast<std::size_t>(slice)];
    for (std::int64_t lane = 0; lane < kSliceRows; ++lane) {
      const std::int64_t row = slice * kSliceRows + lane;
      if (row >= a.rows) break;
      float sum = 0.0F;
      for (std::int64_t k = 0; k < header.width(); ++k) {
        const auto slot = static_cast<std::size_t>(kSliceRows * k + lane);
        const float value = a.values[static_cast<std::size_t>(kSliceRows) * header.value_group + slot];
        if (std::bit_cast<std::uint32_t>(value) == kPaddingBits) continue;
        std::int64_t column = 0;
        switch (header.encoding()) {
          case SliceEncoding::kDiagonals: column = row + a.diagonals[static_cast<std::size_t>(header.index + k)]; break;
          case SliceEncoding::kNarrow:
            column = header.base + a.narrow[static_cast<std::size_t>(kSliceRows) * header.index + slot];
            break;
          case SliceEncoding::kWide: column = a.wide[static_cast<std::size_t>(kSliceRows) * header.index + slot]; break;
        }
        sum += value * x[static_cast<std::size_t>(column)];
      }
      y[static_cast<std::size_t>(row)] = sum;
    }
  }
}

// ---- Merge tiles

std::int64_t MergeTiles::bytes() const {
  return static_cast<std::int64_t>(starts.size() * sizeof(TileStart) + seams.size() * sizeof(TileSeam) +
                                   cut_rows.size() * (sizeof(CutRow) + sizeof(std::uint32_t))) +
         part_slots * static_cast<std::int64_t>(sizeof(float));
}

namespace {

// Where the merge path crosses `diagonal`: the first row count i with
// row_ptr[i + 1] + i + 1 > diagonal (csr_merge's search, done here once).
TileStart path_point(std::span<const std::int32_t> row_ptr, std::int64_t diagonal) {
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const std::int64_t nnz = row_ptr[static_cast<std::size_t>(rows)];
  std::int64_t low = std::max<std::int64_t>(0, diagonal - nnz);
  std::int64_t high = std::min(diagonal, rows);
  while (low < high) {
    const std::int64_t middle = low + (high - low) / 2;
    if (row_ptr[static_cast<std::size_t>(middle) + 1] + middle + 1 > diagonal) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  return {static_cast<std::int32_t>(low), static_cast<std::int32_t>(diagonal - low)};
}

}  // namespace

MergeTiles plan_merge_tiles(std::span<const std::int32_t> row_ptr, int tile_items, int max_shift) {
  if (max_shift < 0) throw std::invalid_argument("plan_merge_tiles: max_shift must be at least 0");
  // A boundary moves back by up to max_shift entries, or forward by up to
  // max_shift entries and the row's end: a tile grows by 2 x max_shift + 1
  // items at most.
  // Boundaries more than `growth` apart stay in order, each tile non-empty.
  const std::int64_t growth = max_shift > 0 ? 2 * std::int64_t{max_shift} + 1 : 0;
  const std::int64_t spacing = std::int64_t{tile_items} - growth;
  if (spacing < growth + 1) {
    char text[96];
    std::snprintf(text, sizeof text, "plan_merge_tiles: tiles of %d items are too short for shifts of %d", tile_items,
                  max_shift);
    throw std::invalid_argument(text);
  }
  if (row_ptr.empty()) throw std::invalid_argument("plan_merge_tiles: row_ptr needs rows + 1 entries");
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const std::int64_t nnz = row_ptr.back();
  const std::int64_t path = rows + nnz;
  const std::int64_t even_tiles = (path + spacing - 1) / spacing;
  if (even_tiles > kInt32Max) throw std::invalid_argument("plan_merge_tiles: more tiles than a grid holds");
  MergeTiles plan;
  plan.tile_items = tile_items;
  plan.starts.reserve(static_cast<std::size_t>(even_tiles) + 1);
  const auto start_of = [&](std::int64_t row) { return static_cast<std::int64_t>(row_ptr[row]); };
  for (std::int64_t t = 0; t <= even_tiles; ++t) {
    TileStart point = path_point(row_ptr, std::min(t * spacing, path));
    // A boundary that cuts a row within max_shift entries of either end
    // moves to that end (before the row's first entry, or past its row end),
    // so that only rows longer than 2 x max_shift are ever cut.
    if (max_shift > 0 && t > 0 && t < even_tiles && point.row < rows && point.entry > start_of(point.row)) {
      const std::int64_t head = point.entry - start_of(point.row);
      const std::int64_t tail = start_of(point.row + 1) - point.entry;
      if (head <= max_shift) {
        point.entry = row_ptr[point.row];
      } else if (tail <= max_shift) {
        point.entry = row_ptr[point.row + 1];
        ++point.row;
      }
    }
    plan.starts.push_back(point);
  }
  // The last boundary, moved past the end of the last row, is the path's
  // end: no tile after it.
  if (plan.starts.size() >= 2 && plan.starts[plan.starts.size() - 2] == plan.starts.back()) plan.starts.pop_back();
  const auto tiles = static_cast<std::int64_t>(plan.starts.size()) - 1;

  // The parts each tile hands over, decided as the tile kernel decides them:
  // its start cuts its first row when it begins past that row's first entry
  // (the part goes in only if the row ends in the tile); its end cuts the
  // row it stops in unless it holds none of that row's entries.
  std::int64_t current_row = -1;  // the cut row the last part went to
  const auto part_for = [&](std::int32_t row) {
    if (row != current_row) {
      if (plan.cut_rows.size() >= static_cast<std::size_t>(kInt32Max) || plan.part_slots >= kInt32Max) {
        throw std::invalid_argument("plan_merge_tiles: more cut rows or parts than 32-bit indices hold");
      }
      plan.cut_rows.push_back(CutRow{row, 0, static_cast<std::int32_t>(plan.part_slots), 0});
      current_row = row;
    }
    ++plan.cut_rows.back().parts;
    return std::pair{static_cast<std::int32_t>(plan.cut_rows.size() - 1), static_cast<std::int32_t>(plan.part_slots++)};
  };
  plan.seams.resize(static_cast<std::size_t>(tiles));
  for (std::int64_t t = 0; t < tiles; ++t) {
    const TileStart begin = plan.starts[static_cast<std::size_t>(t)];
    const TileStart end = plan.starts[static_cast<std::size_t>(t) + 1];
    const bool tile_has_row_end = end.row > begin.row;
    const bool first_row_cut = begin.row < rows && begin.entry > start_of(begin.row);
    const bool last_row_cut = end.row < rows && (!tile_has_row_end || end.entry > start_of(end.row));
    TileSeam& seam = plan.seams[static_cast<std::size_t>(t)];
    if (first_row_cut && tile_has_row_end) std::tie(seam.first_cut, seam.first_slot) = part_for(begin.row);
    if (last_row_cut) std::tie(seam.last_cut, seam.last_slot) = part_for(end.row);
  }
  return plan;
}

void merge_tiles_spmv(const MergeTiles& tiles, const HostCsr& a, std::span<const float> x, std::span<float> y) {
  if (static_cast<std::int64_t>(a.values.size()) != a.nnz()) {
    throw std::invalid_argument("merge_tiles_spmv: the values are needed");
  }
  std::vector<float> parts(static_cast<std::size_t>(tiles.part_slots), 0.0F);
  // Entries [from, to) of `row` summed in order.
  const auto sum = [&](std::int64_t row, std::int64_t from, std::int64_t to) {
    float total = 0.0F;
    for (std::int64_t j = std::max<std::int64_t>(from, a.row_ptr[row]);
         j < std::min<std::int64_t>(to, a.row_ptr[row + 1]); ++j) {
      total += a.values[j] * x[static_cast<std::size_t>(a.col_idx[j])];
    }
    return total;
  };
  for (std::int64_t t = 0; t < tiles.tiles(); ++t) {
    const TileStart begin = tiles.starts[static_cast<std::size_t>(t)];
    const TileStart end = tiles.starts[static_cast<std::size_t>(t) + 1];
    const TileSeam& seam = tiles.seams[static_cast<std::size_t>(t)];
    // The rows ending in the tile: the first may be handed over as a part.
    for (std::int64_t row = begin.row; row < end.row; ++row) {
      const float total = sum(row, begin.entry, end.entry);
      if (row == begin.row && seam.first_cut >= 0) {
        parts[static_cast<std::size_t>(seam.first_slot)] = total;
      } else {
        y[static_cast<std::size_t>(row)] = total;
      }
    }
    if (seam.last_cut >= 0) parts[static_cast<std::size_t>(seam.last_slot)] = sum(end.row, begin.entry, end.entry);
  }
  for (const CutRow& cut : tiles.cut_rows) {
    float total = 0.0F;
    for (std::int32_t p = 0; p < cut.parts; ++p) total += parts[static_cast<std::size_t>(cut.first_slot + p)];
    y[static_cast<std::size_t>(cut.row)] = total;
  }
}

bool is_planned_tile_shape(int tile_threads, int thread_items) {
  if (tile_threads == tuning::kMergeThreads && thread_items == tuning::kMergeItems) return true;
  const auto holds = [](const auto& choices, int value) {
    return std::find(choices.begin(), choices.end(), value) != choices.end();
  };
  return holds(tuning::kPlanTileThreadChoices, tile_threads) && holds(tuning::kPlanTileItemChoices, thread_items);
}

std::vector<TileShape> small_tile_shapes() {
  std::vector<TileShape> shapes;
  for (const int threads : tuning::kPlanTileThreadChoices) {
    for (const int items : tuning::kPlanTileItemChoices) shapes.push_back(TileShape{threads, items});
  }
  return shapes;
}

bool times_small_tile_shapes(const RowLengthStats& stats) {
  return stats.rows + stats.nnz <= tuning::kAutoSmallPath && stats.max_row > tuning::kAutoSmallMergeRow;
}

bool keeps_planned_tiles(const MergeTiles& tiles) {
  return static_cast<double>(tiles.cut_rows.size()) <=
         tuning::kPlanTilesMaxCutShare * static_cast<double>(std::max<std::int64_t>(tiles.tiles(), 1));
}

int planned_tile_shift(int tile_items) { return std::clamp(tile_items / 8, 0, tuning::kPlanTileShift); }

// ---- The choice

PlanSettings::PlanSettings()
    : slices_min_path(tuning::kPlanSlicesMinPath),
      slices_max_mean(tuning::kPlanSlicesMaxMean),
      slices_max_padding(tuning::kPlanSlicesMaxPadding),
      slices_max_bytes(tuning::kPlanSlicesMaxBytes),
      slice_kernel{tuning::kPlanSliceLoads, tuning::kPlanSliceMinBlocks},
      short_slice_kernel{tuning::kPlanShortSliceLoads, tuning::kPlanShortSliceMinBlocks} {}

namespace {

template <typename Loads, typename Blocks>
std::vector<SliceKernelShape> shapes_of(const Loads& loads, const Blocks& blocks) {
  std::vector<SliceKernelShape> shapes;
  for (const int load : loads) {
    for (const int block : blocks) shapes.push_back(SliceKernelShape{load, block});
  }
  return shapes;
}

bool holds(const std::vector<SliceKernelShape>& shapes, SliceKernelShape shape) {
  return std::find(shapes.begin(), shapes.end(), shape) != shapes.end();
}

}  // namespace

std::vector<SliceKernelShape> slice_kernel_shapes() {
  return shapes_of(tuning::kPlanSliceLoadChoices, tuning::kPlanSliceMinBlockChoices);
}

std::vector<SliceKernelShape> short_slice_kernel_shapes() {
  return shapes_of(tuning::kPlanShortSliceLoadChoices, tuning::kPlanShortSliceMinBlockChoices);
}

SliceKernelShape slice_kernel_for(std::int32_t max_width, const PlanSettings& settings) {
  return max_width <= settings.short_slice_kernel.loads ? settings.short_slice_kernel : settings.slice_kernel;
}

void check_settings(const PlanSettings& settings) {
  const auto refuse = [](const char* name, SliceKernelShape shape) {
    char text[128];
    std::snprintf(text, sizeof text, "auto's plan: %s: no packed slices' kernel of %d loads x %d blocks is built", name,
                  shape.loads, shape.min_blocks);
    throw std::invalid_argument(text);
  };
  if (!holds(slice_kernel_shapes(), settings.slice_kernel)) refuse("slice_kernel", settings.slice_kernel);
  if (!holds(short_slice_kernel_shapes(), settings.short_slice_kernel)) {
    refuse("short_slice_kernel", settings.short_slice_kernel);
  }
  for (const auto& [name, value] : {std::pair{"slices_max_mean", settings.slices_max_mean},
                                    std::pair{"slices_max_padding", settings.slices_max_padding},
                                    std::pair{"slices_max_bytes", settings.slices_max_bytes}}) {
    if (std::isnan(value)) throw std::invalid_argument(std::string("auto's plan: ") + name + " is NaN");
  }
}

PlanChoice choose_plan(const RowLengthStats& stats, const CsrAutoChoice& rule, std::int64_t ell_slots,
                       const PlanSettings& settings) {
  PlanChoice choice;
  choice.rule = rule;
  if (stats.rows <= 0 || stats.nnz <= 0) return choice;
  if (rule.kernel == CsrAutoChoice::Kernel::kMergeSingle && stats.max_row > tuning::kAutoSmallMergeRow) {
    choice.kind = PlanKind::kTiles;
    choice.tile_threads = tuning::kPlanSmallTiles.threads;
    choice.tile_thread_items = tuning::kPlanSmallTiles.items;
    return choice;
  }
  if (rule.kernel == CsrAutoChoice::Kernel::kMerge && tuning::kPlanTilesForLargeSkewed) {
    choice.kind = PlanKind::kTiles;
    choice.tile_threads = tuning::kMergeThreads;
    choice.tile_thread_items = tuning::kMergeItems;
    return choice;
  }
  const double mean = static_cast<double>(stats.nnz) / static_cast<double>(stats.rows);
  const bool large = stats.rows + stats.nnz > settings.slices_min_path;
  const bool little_padding =
      static_cast<double>(ell_slots) <= (1.0 + settings.slices_max_padding) * static_cast<double>(stats.nnz);
  // Small matrices: a thread per row of packed slices only for rows short
  // enough that the rule gives them no lanes (tuning::kPlanSmallSlicesMaxMean).
  const bool small = stats.rows + stats.nnz <= tuning::kAutoSmallPath;
  const bool short_enough = !small || mean < tuning::kPlanSmallSlicesMaxMean;
  if (large && short_enough && mean <= settings.slices_max_mean && little_padding) choice.kind = PlanKind::kSlices;
  return choice;
}

PlanChoice choose_plan(const HostCsr& a, const PlanSettings& settings) {
  const RowLengthStats stats = row_length_stats(a);
  CsrAutoChoice rule = choose_csr_kernel(stats);
  if (rule.kernel == CsrAutoChoice::Kernel::kRowBlocks && rule.block_long_rows) {
    rule = settle_row_blocks(rule, largest_block_entries(a.row_ptr, rule.rows_per_block));
  }
  return choose_plan(stats, rule, sliced_ell_slots(a.row_ptr), settings);
}

std::int64_t product_bytes(const PackedSlices& slices) {
  return slices.bytes() + 4 * (std::int64_t{slices.rows} + slices.cols);
}

std::int64_t product_bytes(const HostCsr& a) {
  return 8 * a.nnz() + 4 * (std::int64_t{a.rows} + 1) + 4 * (std::int64_t{a.rows} + a.cols);
}

PlanKind laid_out_kind(const PlanChoice& chosen, std::optional<std::int64_t> slices_bytes, std::int64_t csr_bytes,
                       const PlanSettings& settings) {
  if (chosen.kind != PlanKind::kSlices) return chosen.kind;
  const bool saves_enough =
      slices_bytes && static_cast<double>(*slices_bytes) <= settings.slices_max_bytes * static_cast<double>(csr_bytes);
  return saves_enough ? PlanKind::kSlices : PlanKind::kRule;
}

HostPlan lay_out_plan(const HostCsr& a, const PlanRequest& request, const PlanSettings& settings) {
  check_settings(settings);
  HostPlan laid;
  laid.choice = choose_plan(a, settings);
  const PlanChoice chosen = laid.choice;
  laid.choice.kind = request.kind.value_or(chosen.kind);
  if (laid.choice.kind == PlanKind::kSlices) {
    laid.slices = pack_slices(a);
    if (!laid.slices && request.kind) {
      throw std::invalid_argument(
          "auto's plan: packed slices cannot hold this matrix (a value with the padding bits, or more slots than "
          "32-bit indices address)");
    }
    if (!request.kind) {
      const std::optional<std::int64_t> slices_bytes =
          laid.slices ? std::optional(product_bytes(*laid.slices)) : std::nullopt;
      laid.choice.kind = laid_out_kind(chosen, slices_bytes, product_bytes(a), settings);
      if (laid.choice.kind != PlanKind::kSlices) laid.slices.reset();
    }
  }
  laid.choice.tile_threads = 0;
  laid.choice.tile_thread_items = 0;
  if (laid.choice.kind == PlanKind::kSlices) {
    laid.slice_kernel = slice_kernel_for(laid.slices->max_width(), settings);
    laid.description = describe_slices(*laid.slices);
  } else if (laid.choice.kind == PlanKind::kTiles) {
    int threads = request.tile_threads;
    int items = request.tile_thread_items;
    if (threads == 0 && items == 0 && chosen.kind == PlanKind::kTiles) {
      threads = chosen.tile_threads;
      items = chosen.tile_thread_items;
    }
    if (threads == 0) {
      const bool small = std::int64_t{a.rows} + a.nnz() <= tuning::kAutoSmallPath;
      threads = small ? tuning::kPlanSmallTiles.threads : tuning::kMergeThreads;
      if (items == 0) items = small ? tuning::kPlanSmallTiles.items : tuning::kMergeItems;
    }
    if (items == 0) items = tuning::kMergeItems;
    if (!is_planned_tile_shape(threads, items)) {
      char text[80];
      std::snprintf(text, sizeof text, "auto's plan: no tile kernel of %d threads x %d items", threads, items);
      throw std::invalid_argument(text);
    }
    laid.choice.tile_threads = threads;
    laid.choice.tile_thread_items = items;
    const int tile_items = merge_tile_items(threads, items);
    laid.tiles = plan_merge_tiles(a.row_ptr, tile_items, planned_tile_shift(tile_items));
    laid.description = describe_tiles(*laid.tiles, threads, items);
    if (!request.kind && !keeps_planned_tiles(*laid.tiles)) {
      // Too many rows handed over between tiles: the rule's own launch.
      laid.choice.kind = PlanKind::kRule;
      laid.choice.tile_threads = 0;
      laid.choice.tile_thread_items = 0;
      laid.tiles.reset();
      laid.description = "the rule's " + laid.choice.rule.describe();
    }
  } else {
    laid.description = "the rule's " + laid.choice.rule.describe();
  }
  return laid;
}

std::string describe_slices(const PackedSlices& slices) {
  const double total = std::max<double>(1.0, static_cast<double>(slices.slices()));
  const auto share = [&](SliceEncoding encoding) {
    return 100.0 * static_cast<double>(slices.slices_by_encoding[static_cast<std::size_t>(encoding)]) / total;
  };
  char text[160];
  std::snprintf(text, sizeof text,
                "packed slices: %.1f%% diagonals, %.1f%% 16-bit, %.1f%% 32-bit (%.2f bytes an entry)",
                share(SliceEncoding::kDiagonals), share(SliceEncoding::kNarrow), share(SliceEncoding::kWide),
                static_cast<double>(slices.bytes()) / std::max<double>(1.0, static_cast<double>(slices.nnz)));
  return text;
}

std::string describe_tiles(const MergeTiles& tiles, int tile_threads, int thread_items) {
  char text[112];
  std::snprintf(text, sizeof text, "merge tiles: %lld tiles of %d threads x %d items, %lld cut rows",
                static_cast<long long>(tiles.tiles()), tile_threads, thread_items,
                static_cast<long long>(tiles.cut_rows.size()));
  return text;
}

}  // namespace plan
}  // namespace spmv::reference
