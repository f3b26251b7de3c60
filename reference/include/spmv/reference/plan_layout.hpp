// The host side of auto's plan (csr_auto_plan.hpp): which kind of plan a
// matrix gets, and the device layouts the plan's kernels read, built on the
// host from the CSR arrays. No CUDA here, so all of it is unit-tested on a
// machine without a GPU.
//
// Packed slices (PlanKind::kSlices), a sliced ELL that moves fewer bytes
// than CSR or cuSPARSE's sliced ELL:
//  - rows in slices of kSliceRows (a warp: a thread per row), each slice
//    stored column-major (slot k of its rows side by side), as wide as the
//    slice needs, without row pointers;
//  - each slice's column indices in whichever of three encodings takes the
//    fewest bytes: kDiagonals, none at all (every slot k of the slice lies
//    on one diagonal, column = row + diagonals[index + k], as in a stencil
//    or band: 4 bytes a slot); kNarrow, 16-bit offsets from the slice's
//    base column (when its columns span at most 65,535: 6 bytes a slot);
//    kWide, 32-bit columns (8 bytes a slot, as cuSPARSE's sliced ELL);
//  - values as they are (fp32, bit for bit); a padding slot holds the value
//    bits kPaddingBits, which the kernel skips, gathering nothing: a matrix
//    holding a value with those bits gets no packed slices.
// A thread sums its row's slots in slot order, which is the row's column
// order in every encoding: the same order as a sequential CSR product.
//
// Merge tiles (PlanKind::kTiles): csr_merge's tiles with the partition
// made here, once: each tile's start (row, entry) is stored, so the single
// launch searches for nothing. The boundaries are nearly even on the merge
// path, each moved to a row's end where that avoids cutting a short row, so
// only long rows are cut. A row cut by tile boundaries gets a part from
// each tile holding some of it; each part goes to its own slot, and the
// tile that brings the last part (an arrival count per cut row) adds the
// parts (the first warp: a lane's share of the slots each, in slot order,
// then a shuffle reduction; the same order every run) and stores the row.
// No tile re-reads another's entries, and results repeat bit for bit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spmv/reference/csr_auto.hpp"

// The slice header's accessors are the kernel's too.
#if defined(__CUDACC__)
#define SPMV_PLAN_HOST_DEVICE __host__ __device__
#else
#define SPMV_PLAN_HOST_DEVICE
#endif

namespace spmv::reference {

// What auto's plan holds: packed slices, planned merge tiles, or only the
// choice of the rule of csr_auto.hpp, run on the CSR arrays.
enum class PlanKind { kSlices, kTiles, kRule };

[[nodiscard]] const char* plan_kind_name(PlanKind kind);  // "slices", "tiles", "rule"

struct PlanRequest {
  // A kind forced instead of plan::choose_plan's (spmv-bench --candidates,
  // the tests): refused (std::invalid_argument) where it cannot hold the
  // matrix (packed slices of a value with the padding bits).
  std::optional<PlanKind> kind;
  // Forced kTiles: threads a tile and merge-path items a thread walks
  // (plan::is_planned_tile_shape); 0: as the choice would give
  // (tuning::kPlanSmallTiles for small matrices, csr_merge's for large;
  // items 0 with threads given: tuning::kMergeItems).
  int tile_threads = 0;
  int tile_thread_items = 0;
};

namespace plan {

// A CSR matrix in host memory. `values` may be empty where only the
// structure is needed (the choice of plan, the merge tiles).
struct HostCsr {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::span<const std::int32_t> row_ptr;  // rows + 1
  std::span<const std::int32_t> col_idx;  // nnz
  std::span<const float> values;          // nnz, or empty

  [[nodiscard]] std::int64_t nnz() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
};

// The row statistics the rule of csr_auto.hpp reads.
RowLengthStats row_length_stats(const HostCsr& a);

// The most entries any block of `rows_per_block` consecutive rows holds
// (what settle_row_blocks needs).
std::int64_t largest_block_entries(std::span<const std::int32_t> row_ptr, int rows_per_block);

// ---- Packed slices

inline constexpr int kSliceRows = 32;
// A padding slot's value: a NaN no arithmetic produces (all bits set).
inline constexpr std::uint32_t kPaddingBits = 0xffffffffU;
// The widest column span a kNarrow slice holds (16-bit offsets).
inline constexpr std::int64_t kNarrowSpan = 65535;

// Slots (real and padding) of a sliced ELL of these rows with slices of
// kSliceRows and no sorting: sum over slices of kSliceRows x the slice's
// longest row. The padding check made before packing.
std::int64_t sliced_ell_slots(std::span<const std::int32_t> row_ptr);

enum class SliceEncoding : std::int32_t { kDiagonals = 0, kNarrow = 1, kWide = 2 };
[[nodiscard]] const char* encoding_name(SliceEncoding encoding);  // "diagonals", "16-bit", "32-bit"

// 16 bytes, read by a warp in one load. Slot k of lane l (row kSliceRows x
// slice + l) is values[kSliceRows x (value_group + k) + l], and its column:
//  kDiagonals: row + diagonals[index + k];
//  kNarrow:    base + narrow[kSliceRows x (index + k) + l];
//  kWide:      wide[kSliceRows x (index + k) + l].
struct SliceHeader {
  std::int32_t value_group = 0;
  std::int32_t index = 0;
  std::int32_t base = 0;
  std::int32_t width_and_encoding = 0;  // width x 4 + encoding

  [[nodiscard]] SPMV_PLAN_HOST_DEVICE std::int32_t width() const { return width_and_encoding >> 2; }
  [[nodiscard]] SPMV_PLAN_HOST_DEVICE SliceEncoding encoding() const {
    return static_cast<SliceEncoding>(width_and_encoding & 3);
  }
  friend bool operator==(const SliceHeader&, const SliceHeader&) = default;
};
static_assert(sizeof(SliceHeader) == 16, "a slice header is one 16-byte load");

struct PackedSlices {
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::int64_t nnz = 0;
  std::vector<SliceHeader> headers;     // one a slice
  std::vector<float> values;            // kSliceRows x the slices' widths
  std::vector<std::uint16_t> narrow;    // the kNarrow slices' slots
  std::vector<std::int32_t> wide;       // the kWide slices' slots
  std::vector<std::int32_t> diagonals;  // the kDiagonals slices' offsets; slices with the same ones share them
  std::array<std::int64_t, 3> slices_by_encoding{};  // indexed by SliceEncoding

  [[nodiscard]] std::int64_t slices() const { return static_cast<std::int64_t>(headers.size()); }
  [[nodiscard]] std::int64_t slots() const { return static_cast<std::int64_t>(values.size()); }
  [[nodiscard]] std::int32_t max_width() const;  // the widest slice's slots
  // Bytes of all the arrays: what the device holds and one product reads
  // (besides x and y).
  [[nodiscard]] std::int64_t bytes() const;
};

// Packs `a` (values required). nullopt when a value has the padding bits,
// or an index of the layout would not fit in 32 bits.
std::optional<PackedSlices> pack_slices(const HostCsr& a);

// The layout's CPU product: y = A x, each row summed in slot order, as the
// kernel sums it. y.size() == rows.
void packed_slices_spmv(const PackedSlices& a, std::span<const float> x, std::span<float> y);

// ---- Merge tiles

// Where a tile starts on the merge path: `row` row ends and `entry` entries
// before it.
struct TileStart {
  std::int32_t row = 0;
  std::int32_t entry = 0;
  friend bool operator==(const TileStart&, const TileStart&) = default;
};

// The parts of cut rows a tile hands over: the row its start cuts (`first`,
// when that row ends in the tile) and the row its end cuts (`last`), each
// by its index in MergeTiles::cut_rows and the slot of its part; -1 for
// none.
struct TileSeam {
  std::int32_t first_cut = -1;
  std::int32_t first_slot = -1;
  std::int32_t last_cut = -1;
  std::int32_t last_slot = -1;
  friend bool operator==(const TileSeam&, const TileSeam&) = default;
};

// A row cut by tile boundaries: its parts are slots first_slot ..
// first_slot + parts - 1, in tile order.
struct CutRow {
  std::int32_t row = 0;
  std::int32_t parts = 0;
  std::int32_t first_slot = 0;
  std::int32_t unused = 0;  // 16 bytes: one load
  friend bool operator==(const CutRow&, const CutRow&) = default;
};

struct MergeTiles {
  int tile_items = 0;             // merge-path items (row ends + entries) a tile
  std::vector<TileStart> starts;  // tiles + 1; the last is (rows, nnz)
  std::vector<TileSeam> seams;    // tiles
  std::vector<CutRow> cut_rows;
  std::int64_t part_slots = 0;  // floats for the parts

  [[nodiscard]] std::int64_t tiles() const { return static_cast<std::int64_t>(seams.size()); }
  // Bytes the device holds: starts, seams, cut rows, parts and one arrival
  // count per cut row.
  [[nodiscard]] std::int64_t bytes() const;
};

// Merge-path items (row ends + entries) in a tile of `tile_threads`
// threads walking `thread_items` items each (tuning::kMergeItems by
// default), as the tile kernel cuts them: threads x items - 32
// (csr_merge.cu, where it is defined).
int merge_tile_items(int tile_threads, int thread_items);
int merge_tile_items(int tile_threads);

// Whether the planned tile kernel is built for tiles of this shape:
// tuning::kPlanTileThreadChoices x tuning::kPlanTileItemChoices, and
// csr_merge's tuning::kMergeThreads x tuning::kMergeItems.
bool is_planned_tile_shape(int tile_threads, int thread_items);

// The shapes of planned tiles for small matrices, threads x items
// (tuning::kPlanTileThreadChoices x kPlanTileItemChoices, in that order),
// and whether a matrix is one whose tiles spmv-bench --candidates times in
// each: a merge path of at most tuning::kAutoSmallPath items with a row of
// more than tuning::kAutoSmallMergeRow entries.
struct TileShape {
  int threads = 0;
  int items = 0;
  friend bool operator==(const TileShape&, const TileShape&) = default;
};
std::vector<TileShape> small_tile_shapes();
bool times_small_tile_shapes(const RowLengthStats& stats);

// Whether a chosen plan of tiles is laid out as such: at most
// tuning::kPlanTilesMaxCutShare of its tiles' count in cut rows (rows handed
// over through the plan's slots). lay_out_plan otherwise runs the rule's
// choice (the one-launch merge), unless the tiles were forced.
bool keeps_planned_tiles(const MergeTiles& tiles);

// The boundary shift (plan_merge_tiles' max_shift) for planned tiles of
// `tile_items` items: tuning::kPlanTileShift, at most an eighth of the tile.
int planned_tile_shift(int tile_items);

// Tiles of at most `tile_items` merge-path items over these rows: their
// boundaries spaced tile_items - (2 x max_shift + 1) items apart on the
// path, each moved by up to max_shift entries to the start or past the end
// of the row it would cut, so that only rows of more than 2 x max_shift
// entries are cut (max_shift 0: tile_items apart, unmoved, the even cut of
// csr_merge). Throws std::invalid_argument when that spacing is not above
// 2 x max_shift + 1 (the boundaries would not stay in order), or for a
// layout beyond 32-bit indices.
MergeTiles plan_merge_tiles(std::span<const std::int32_t> row_ptr, int tile_items, int max_shift);

// The tiles' CPU product: each tile's parts summed separately and every
// cut row's parts added in slot order (the kernel adds the same parts in
// an order of its own: the same terms, rounded otherwise), as the kernel's
// tiles hand them over (values required).
void merge_tiles_spmv(const MergeTiles& tiles, const HostCsr& a, std::span<const float> x, std::span<float> y);

// ---- The choice

// A shape of the packed slices' kernel: slots a thread loads together
// (values and column words) before the x gathers that use them, and
// resident blocks of 256 threads asked of the compiler.
struct SliceKernelShape {
  int loads = 0;
  int min_blocks = 0;
  friend bool operator==(const SliceKernelShape&, const SliceKernelShape&) = default;
};

// The thresholds of the choice of plan and the packed slices' kernels. A
// default-constructed PlanSettings holds tuning.hpp's values, which is
// what auto's plan uses; spmv-bench --sweep-thresholds lays plans out with
// other values to time them.
struct PlanSettings {
  PlanSettings();  // tuning.hpp's values

  // Packed slices for a matrix of more than slices_min_path merge-path
  // items (tuning::kPlanSlicesMinPath) with a mean row of at most
  // slices_max_mean (kPlanSlicesMaxMean) whose sliced ELL pads the
  // entries by at most slices_max_padding (kPlanSlicesMaxPadding), kept
  // once laid out where a product through them moves at most
  // slices_max_bytes of CSR's bytes (kPlanSlicesMaxBytes).
  std::int64_t slices_min_path;
  double slices_max_mean;
  double slices_max_padding;
  double slices_max_bytes;
  // The packed slices' kernel: short_slice_kernel for slices of at most
  // short_slice_kernel.loads slots, slice_kernel otherwise
  // (kPlanSliceLoads x kPlanSliceMinBlocks, kPlanShortSliceLoads x
  // kPlanShortSliceMinBlocks; one of slice_kernel_shapes() and
  // short_slice_kernel_shapes()).
  SliceKernelShape slice_kernel;
  SliceKernelShape short_slice_kernel;

  friend bool operator==(const PlanSettings&, const PlanSettings&) = default;
};

// The shapes the packed slices' kernel is built for, loads x blocks in
// that order (tuning::kPlanSliceLoadChoices x kPlanSliceMinBlockChoices;
// tuning::kPlanShortSliceLoadChoices x kPlanShortSliceMinBlockChoices).
std::vector<SliceKernelShape> slice_kernel_shapes();
std::vector<SliceKernelShape> short_slice_kernel_shapes();

// The kernel shape a plan of packed slices whose widest slice holds
// `max_width` slots runs with these settings.
SliceKernelShape slice_kernel_for(std::int32_t max_width, const PlanSettings& settings);

// Throws std::invalid_argument, naming the setting, for a kernel shape the
// packed slices' kernel is not built for or a threshold that is NaN.
void check_settings(const PlanSettings& settings);

struct PlanChoice {
  PlanKind kind = PlanKind::kRule;
  CsrAutoChoice rule;         // the rule's choice (settled), run by kRule
  int tile_threads = 0;       // kTiles: threads a tile
  int tile_thread_items = 0;  // kTiles: merge-path items a thread walks
  friend bool operator==(const PlanChoice&, const PlanChoice&) = default;
};

// The plan for a matrix of these statistics whose rule's choice (after
// settle_row_blocks) is `rule` and whose sliced ELL would hold `ell_slots`
// slots (thresholds in `settings`, tuning.hpp's by default):
//  - kTiles where the rule takes csr_merge's tiles in one launch (small
//    matrices with a long row; tiles of tuning::kPlanSmallTiles), and,
//    with tuning::kPlanTilesForLargeSkewed (off), where it takes csr_merge
//    (large skewed rows; csr_merge's tiles): the planned tiles need
//    neither a partition kernel nor a search;
//  - kSlices for a matrix of more than settings.slices_min_path merge-path
//    items with a mean row of at most settings.slices_max_mean (and, on a
//    small matrix, of a merge path of at most tuning::kAutoSmallPath items,
//    below tuning::kPlanSmallSlicesMaxMean) whose
//    sliced ELL pads the entries by at most settings.slices_max_padding
//    (lay_out_plan keeps them where they save enough bytes);
//  - kRule otherwise.
PlanChoice choose_plan(const RowLengthStats& stats, const CsrAutoChoice& rule, std::int64_t ell_slots,
                       const PlanSettings& settings = {});

// The rule's settled choice and the plan for `a` (structure only).
PlanChoice choose_plan(const HostCsr& a, const PlanSettings& settings = {});

// Bytes one product moves through packed slices, and through CSR: the
// arrays, x read once and y written once.
std::int64_t product_bytes(const PackedSlices& slices);
std::int64_t product_bytes(const HostCsr& a);

// The kind lay_out_plan lays out where no kind is forced: the choice's,
// but packed slices only where they hold the matrix (`slices_bytes`, their
// product_bytes; none when pack_slices refused it) and a product through
// them moves at most settings.slices_max_bytes of CSR's `csr_bytes`; the
// rule otherwise.
PlanKind laid_out_kind(const PlanChoice& chosen, std::optional<std::int64_t> slices_bytes, std::int64_t csr_bytes,
                       const PlanSettings& settings = {});

// The host half of CsrAutoPlan::build: the plan `request` asks for (the
// choice by default) laid out from `a` with `settings`. Packed slices need
// a's values; a chosen plan of packed slices falls back to the rule where
// they cannot hold the values, or where a product through them would move
// more than settings.slices_max_bytes of CSR's bytes (laid_out_kind); a
// chosen plan of tiles falls back to the rule where too many of its rows are
// cut (keeps_planned_tiles).
// Throws std::invalid_argument for a forced kind that cannot hold `a`, for
// tile threads without a tile kernel, and for settings check_settings
// refuses.
struct HostPlan {
  PlanChoice choice;  // what is laid out: its kind (forced or chosen), the rule's choice, the tile threads
  std::optional<PackedSlices> slices;  // kSlices
  std::optional<MergeTiles> tiles;     // kTiles
  SliceKernelShape slice_kernel;       // kSlices: the kernel a run takes (slice_kernel_for)
  std::string description;             // describe_slices, describe_tiles, or "the rule's <choice>"
};
HostPlan lay_out_plan(const HostCsr& a, const PlanRequest& request = {}, const PlanSettings& settings = {});

// "packed slices: 99.8% diagonals, 0.2% 16-bit, 0.0% 32-bit (4.02 bytes an
// entry)".
std::string describe_slices(const PackedSlices& slices);
// "merge tiles: 41 tiles of 256 threads x 5 items, 3 cut rows".
std::string describe_tiles(const MergeTiles& tiles, int tile_threads, int thread_items);

}  // namespace plan
}  // namespace spmv::reference
