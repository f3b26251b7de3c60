#include "spmv/core/generators.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "message.hpp"
#include "random_stream.hpp"
#include "spmv/core/memory_fit.hpp"

namespace spmv::gen {
namespace {

using detail::message;
using detail::RandomStream;

// One seed feeds several independent streams, so that e.g. emptying rows
// does not change the values of the rows that stay.
enum StreamPurpose : std::uint64_t { kValueStream = 1, kStructureStream = 2, kEmptyRowStream = 3 };

constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();

void require_non_negative(std::string_view generator,
                          std::initializer_list<std::pair<std::string_view, index_t>> arguments) {
  for (const auto& [name, value] : arguments) {
    if (value < 0) {
      throw std::invalid_argument(message(generator, ": ", name, " = ", value, " is negative"));
    }
  }
}

// Product of non-negative factors, or kMaxIndex + 1 once it exceeds
// kMaxIndex (each factor is below 2^31, the product of three may not fit
// 64 bits).
std::int64_t bounded_product(std::initializer_list<std::int64_t> factors) {
  if (std::find(factors.begin(), factors.end(), 0) != factors.end()) return 0;
  std::int64_t product = 1;
  for (const std::int64_t factor : factors) {
    if (product > kMaxIndex / factor) return kMaxIndex + 1;
    product *= factor;
  }
  return product;
}

index_t checked_count(std::string_view generator, std::string_view what, std::int64_t count) {
  if (count > kMaxIndex) {
    throw std::invalid_argument(message(generator, ": more than ", kMaxIndex, " ", what, ", beyond int32 indices"));
  }
  return static_cast<index_t>(count);
}

// Appends rows in order with random nonzero values; reserves the exact
// entry count up front so 50M+ entries never reallocate.
class CsrBuilder {
 public:
  CsrBuilder(std::string_view generator, index_t rows, index_t cols, std::int64_t entries, std::uint64_t seed)
      : values_(RandomStream::derive(seed, kValueStream)) {
    const index_t nnz = checked_count(generator, "entries", entries);
    matrix_.rows = rows;
    matrix_.cols = cols;
    matrix_.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
    matrix_.col_idx.reserve(static_cast<std::size_t>(nnz));
    matrix_.values.reserve(static_cast<std::size_t>(nnz));
  }

  void add(std::int64_t column) {
    matrix_.col_idx.push_back(static_cast<index_t>(column));
    matrix_.values.push_back(values_.nonzero_value());
  }
  void end_row() { matrix_.row_ptr.push_back(static_cast<index_t>(matrix_.col_idx.size())); }
  CsrMatrix finish() { return std::move(matrix_); }

 private:
  RandomStream values_;
  CsrMatrix matrix_;
};

// `count` distinct values of [0, bound), sorted; every subset is equally
// likely.
void sample_distinct(RandomStream& random, index_t count, index_t bound, std::vector<index_t>& out) {
  out.clear();
  if (count == 0) return;
  if (std::int64_t{count} * 8 >= bound) {
    // Dense: Knuth's selection sampling, one pass taking each candidate with
    // probability needed / remaining; O(bound) = O(8 * count), sorted as made.
    index_t needed = count;
    for (index_t candidate = 0; needed > 0; ++candidate) {
      const auto remaining = static_cast<std::uint32_t>(bound - candidate);
      if (random.below(remaining) < static_cast<std::uint32_t>(needed)) {
        out.push_back(candidate);
        --needed;
      }
    }
    return;
  }
  // Sparse: draw what is missing, sort, drop repeats, until nothing is
  // missing; with count <= bound / 8 repeats are rare, so this is about one
  // sort. Every value is treated alike, hence every subset equally likely.
  const auto wanted = static_cast<std::size_t>(count);
  while (out.size() < wanted) {
    for (std::size_t i = out.size(); i < wanted; ++i) {
      out.push_back(static_cast<index_t>(random.below(static_cast<std::uint32_t>(bound))));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

struct Offset {
  int dx;
  int dy;
  int dz;
};

// Listed in increasing column order: z, then y, then x.
const std::vector<Offset> kSevenPoint = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0},
                                         {1, 0, 0},  {0, 1, 0},  {0, 0, 1}};

std::vector<Offset> twenty_seven_point() {
  std::vector<Offset> offsets;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) offsets.push_back({dx, dy, dz});
    }
  }
  return offsets;
}

std::int64_t in_range_count(index_t n, int offset) {
  return std::max<std::int64_t>(0, std::int64_t{n} - std::abs(offset));
}

// Grid point (x, y, z) is row x + nx * (y + ny * z); row i couples to every
// grid neighbour the offsets reach inside the grid.
CsrMatrix stencil(std::string_view generator, index_t nx, index_t ny, index_t nz, const std::vector<Offset>& offsets,
                  std::uint64_t seed) {
  require_non_negative(generator, {{"nx", nx}, {"ny", ny}, {"nz", nz}});
  const index_t rows = checked_count(generator, "rows", bounded_product({nx, ny, nz}));
  std::int64_t entries = 0;
  for (const Offset& o : offsets) {
    entries += in_range_count(nx, o.dx) * in_range_count(ny, o.dy) * in_range_count(nz, o.dz);
  }
  CsrBuilder builder(generator, rows, rows, entries, seed);
  for (std::int64_t z = 0; z < nz; ++z) {
    for (std::int64_t y = 0; y < ny; ++y) {
      for (std::int64_t x = 0; x < nx; ++x) {
        for (const Offset& o : offsets) {
          const std::int64_t cx = x + o.dx;
          const std::int64_t cy = y + o.dy;
          const std::int64_t cz = z + o.dz;
          if (cx < 0 || cx >= nx || cy < 0 || cy >= ny || cz < 0 || cz >= nz) continue;
          builder.add(cx + nx * (cy + ny * cz));
        }
        builder.end_row();
      }
    }
  }
  return builder.finish();
}

// Row lengths floor(t) for t drawn from the density ~ t^-alpha on
// [1, cap + 1) by inverting its distribution function; P(len = k) is then
// the integral over [k, k + 1), which falls off as k^-alpha.
class PowerLawLengths {
 public:
  PowerLawLengths(double alpha, index_t cap) : cap_(cap), exponent_(1.0 - alpha) {
    const double top = static_cast<double>(cap) + 1.0;
    log_top_ = std::log(top);
    top_power_ = std::pow(top, exponent_);
  }

  index_t draw(RandomStream& random) const {
    const double u = random.unit();
    const double t = std::abs(exponent_) < 1e-12 ? std::exp(u * log_top_)  // alpha = 1: log-uniform
                                                 : std::pow(1.0 + u * (top_power_ - 1.0), 1.0 / exponent_);
    return static_cast<index_t>(std::clamp(std::floor(t), 1.0, static_cast<double>(cap_)));
  }

 private:
  index_t cap_;
  double exponent_;
  double log_top_ = 0;
  double top_power_ = 0;
};

}  // namespace

CsrMatrix stencil_2d_5pt(index_t nx, index_t ny, std::uint64_t seed) {
  // The 7-point stencil on a one-plane grid: the z neighbours fall outside.
  return stencil("stencil_2d_5pt", nx, ny, 1, kSevenPoint, seed);
}

CsrMatrix stencil_3d_7pt(index_t nx, index_t ny, index_t nz, std::uint64_t seed) {
  return stencil("stencil_3d_7pt", nx, ny, nz, kSevenPoint, seed);
}

CsrMatrix stencil_3d_27pt(index_t nx, index_t ny, index_t nz, std::uint64_t seed) {
  return stencil("stencil_3d_27pt", nx, ny, nz, twenty_seven_point(), seed);
}

CsrMatrix uniform_random(index_t rows, index_t cols, index_t per_row, std::uint64_t seed) {
  constexpr std::string_view kName = "uniform_random";
  require_non_negative(kName, {{"rows", rows}, {"cols", cols}, {"per_row", per_row}});
  if (rows > 0 && per_row > cols) {
    throw std::invalid_argument(
        message(kName, ": per_row = ", per_row, " exceeds cols = ", cols, " (a row's columns are distinct)"));
  }
  CsrBuilder builder(kName, rows, cols, std::int64_t{rows} * per_row, seed);
  RandomStream structure(RandomStream::derive(seed, kStructureStream));
  std::vector<index_t> columns;
  for (index_t r = 0; r < rows; ++r) {
    sample_distinct(structure, per_row, cols, columns);
    for (const index_t column : columns) builder.add(column);
    builder.end_row();
  }
  return builder.finish();
}

CsrMatrix power_law(index_t rows, index_t cols, double alpha, index_t max_row, std::uint64_t seed) {
  constexpr std::string_view kName = "power_law";
  require_non_negative(kName, {{"rows", rows}, {"cols", cols}, {"max_row", max_row}});
  if (!std::isfinite(alpha) || alpha < 0) {
    throw std::invalid_argument(message(kName, ": alpha = ", alpha, " is not a finite value >= 0"));
  }
  if (rows > 0 && (cols == 0 || max_row == 0)) {
    throw std::invalid_argument(message(kName, ": every row has at least one entry, so cols (", cols, ") and max_row (",
                                        max_row, ") must be positive"));
  }
  const PowerLawLengths lengths_of(alpha, std::min(max_row, cols));
  RandomStream structure(RandomStream::derive(seed, kStructureStream));
  std::vector<index_t> lengths(static_cast<std::size_t>(rows));
  std::int64_t entries = 0;
  for (index_t& length : lengths) {
    length = lengths_of.draw(structure);
    entries += length;
  }
  CsrBuilder builder(kName, rows, cols, entries, seed);
  std::vector<index_t> columns;
  for (const index_t length : lengths) {
    sample_distinct(structure, length, cols, columns);
    for (const index_t column : columns) builder.add(column);
    builder.end_row();
  }
  return builder.finish();
}

CsrMatrix banded(index_t n, index_t half_bandwidth, std::uint64_t seed) {
  constexpr std::string_view kName = "banded";
  require_non_negative(kName, {{"n", n}, {"half_bandwidth", half_bandwidth}});
  const auto first_column = [&](std::int64_t row) { return std::max<std::int64_t>(0, row - half_bandwidth); };
  const auto last_column = [&](std::int64_t row) { return std::min<std::int64_t>(n - 1, row + half_bandwidth); };
  std::int64_t entries = 0;
  for (std::int64_t r = 0; r < n; ++r) entries += last_column(r) - first_column(r) + 1;
  CsrBuilder builder(kName, n, n, entries, seed);
  for (std::int64_t r = 0; r < n; ++r) {
    for (std::int64_t c = first_column(r); c <= last_column(r); ++c) builder.add(c);
    builder.end_row();
  }
  return builder.finish();
}

CsrMatrix block_diagonal(index_t blocks, index_t block_size, std::uint64_t seed) {
  constexpr std::string_view kName = "block_diagonal";
  require_non_negative(kName, {{"blocks", blocks}, {"block_size", block_size}});
  const index_t rows = checked_count(kName, "rows", bounded_product({blocks, block_size}));
  CsrBuilder builder(kName, rows, rows, bounded_product({blocks, block_size, block_size}), seed);
  for (std::int64_t b = 0; b < blocks; ++b) {
    for (index_t i = 0; i < block_size; ++i) {
      for (index_t j = 0; j < block_size; ++j) builder.add(b * block_size + j);
      builder.end_row();
    }
  }
  return builder.finish();
}

CsrMatrix arrow(index_t n, std::uint64_t seed) {
  constexpr std::string_view kName = "arrow";
  require_non_negative(kName, {{"n", n}});
  // Row 0 is full; every other row i holds (i, 0) and (i, i).
  CsrBuilder builder(kName, n, n, n == 0 ? 0 : 3 * std::int64_t{n} - 2, seed);
  for (index_t r = 0; r < n; ++r) {
    if (r == 0) {
      for (index_t c = 0; c < n; ++c) builder.add(c);
    } else {
      builder.add(0);
      builder.add(r);
    }
    builder.end_row();
  }
  return builder.finish();
}

CsrMatrix diagonal(index_t n, std::uint64_t seed) {
  constexpr std::string_view kName = "diagonal";
  require_non_negative(kName, {{"n", n}});
  CsrBuilder builder(kName, n, n, n, seed);
  for (index_t r = 0; r < n; ++r) {
    builder.add(r);
    builder.end_row();
  }
  return builder.finish();
}

CsrMatrix with_empty_rows(const CsrMatrix& a, double fraction, std::uint64_t seed) {
  a.validate();
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw std::invalid_argument(message("with_empty_rows: fraction = ", fraction, " is outside [0, 1]"));
  }
  const auto count = static_cast<index_t>(std::llround(fraction * a.rows));
  RandomStream random(RandomStream::derive(seed, kEmptyRowStream));
  std::vector<index_t> emptied;
  sample_distinct(random, count, a.rows, emptied);
  std::vector<bool> keep(static_cast<std::size_t>(a.rows), true);
  for (const index_t r : emptied) keep[r] = false;

  CsrMatrix result;
  result.rows = a.rows;
  result.cols = a.cols;
  result.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (index_t r = 0; r < a.rows; ++r) {
    result.row_ptr[r + 1] = result.row_ptr[r] + (keep[r] ? a.row_length(r) : 0);
  }
  result.col_idx.reserve(static_cast<std::size_t>(result.row_ptr.back()));
  result.values.reserve(static_cast<std::size_t>(result.row_ptr.back()));
  for (index_t r = 0; r < a.rows; ++r) {
    if (!keep[r]) continue;
    result.col_idx.insert(result.col_idx.end(), a.col_idx.begin() + a.row_ptr[r], a.col_idx.begin() + a.row_ptr[r + 1]);
    result.values.insert(result.values.end(), a.values.begin() + a.row_ptr[r], a.values.begin() + a.row_ptr[r + 1]);
  }
  return result;
}

CsrMatrix empty(index_t rows, index_t cols) {
  require_non_negative("empty", {{"rows", rows}, {"cols", cols}});
  CsrMatrix result;
  result.rows = rows;
  result.cols = cols;
  result.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  return result;
}

// ---------------------------------------------------------------------------
// Specs

namespace {

enum class ValueKind {
  kSize,      // int32, >= 0
  kReal,      // finite, >= 0
  kFraction,  // in [0, 1]
  kSeed,      // uint64
};

struct KeyInfo {
  std::string_view name;
  ValueKind kind;
};

// Every kind also takes these.
const std::vector<KeyInfo> kCommonKeys = {{"seed", ValueKind::kSeed}, {"empty_fraction", ValueKind::kFraction}};
constexpr std::uint64_t kDefaultSeed = 1;

class SpecReader;
using Builder = CsrMatrix (*)(const SpecReader&);

struct KindInfo {
  std::string_view name;
  std::vector<KeyInfo> keys;  // all required
  std::string_view summary;
  Builder build;
};

const std::vector<KindInfo>& kinds();

class SpecReader {
 public:
  SpecReader(const GeneratorSpec& spec, std::string text) : spec_(spec), text_(std::move(text)), kind_(find_kind()) {}

  const KindInfo& kind() const { return kind_; }

  // Unknown and missing keys and unparsable values, before anything is built.
  void check() const {
    for (const auto& [key, value] : spec_.params) {
      const KeyInfo* info = find_key(key);
      if (info == nullptr) fail(message("unknown key \"", key, "\" for ", usage()));
      parse(*info, value);
    }
    for (const KeyInfo& key : kind_.keys) {
      if (!spec_.params.contains(std::string(key.name))) {
        fail(message("missing key \"", key.name, "\" for ", usage()));
      }
    }
  }

  index_t size(std::string_view key) const { return static_cast<index_t>(parse(ValueKind::kSize, key, value_of(key))); }
  double real(std::string_view key) const { return parse(ValueKind::kReal, key, value_of(key)); }
  std::uint64_t seed() const {
    const auto found = spec_.params.find("seed");
    return found == spec_.params.end() ? kDefaultSeed : parse_seed(found->second);
  }
  double empty_fraction() const {
    const auto found = spec_.params.find("empty_fraction");
    return found == spec_.params.end() ? 0.0 : parse(ValueKind::kFraction, "empty_fraction", found->second);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(message("generator spec \"", text_, "\": ", what));
  }

 private:
  const KindInfo& find_kind() const {
    for (const KindInfo& kind : kinds()) {
      if (kind.name == spec_.kind) return kind;
    }
    std::string known;
    for (const KindInfo& kind : kinds()) known += message(known.empty() ? "" : ", ", kind.name);
    fail(message("unknown kind \"", spec_.kind, "\" (known kinds: ", known, ")"));
  }

  std::string usage() const {
    std::string text(kind_.name);
    for (const KeyInfo& key : kind_.keys) text += message(" ", key.name);
    return text + " [seed] [empty_fraction]";
  }

  const KeyInfo* find_key(std::string_view name) const {
    for (const auto* keys : {&kind_.keys, &kCommonKeys}) {
      for (const KeyInfo& key : *keys) {
        if (key.name == name) return &key;
      }
    }
    return nullptr;
  }

  const std::string& value_of(std::string_view key) const {
    const auto found = spec_.params.find(std::string(key));
    if (found == spec_.params.end()) fail(message("missing key \"", key, "\" for ", usage()));
    return found->second;
  }

  void parse(const KeyInfo& key, const std::string& value) const {
    if (key.kind == ValueKind::kSeed) {
      parse_seed(value);
    } else {
      parse(key.kind, key.name, value);
    }
  }

  std::uint64_t parse_seed(const std::string& value) const {
    std::uint64_t seed = 0;
    if (!parse_whole(value, seed)) {
      fail(message("key seed: \"", value, "\" is not a non-negative integer"));
    }
    return seed;
  }

  double parse(ValueKind kind, std::string_view key, const std::string& value) const {
    if (kind == ValueKind::kSize) {
      std::int64_t number = 0;
      if (!parse_whole(value, number)) {
        fail(message("key ", key, ": \"", value, "\" is not an integer"));
      }
      if (number < 0) fail(message("key ", key, ": ", number, " is negative"));
      if (number > kMaxIndex) {
        fail(message("key ", key, ": ", number, " exceeds the int32 index range"));
      }
      return static_cast<double>(number);
    }
    double number = 0;
    if (!parse_whole(value, number)) {
      fail(message("key ", key, ": \"", value, "\" is not a number"));
    }
    if (!std::isfinite(number)) fail(message("key ", key, ": ", value, " is not finite"));
    if (number < 0) fail(message("key ", key, ": ", value, " is negative"));
    if (kind == ValueKind::kFraction && number > 1) {
      fail(message("key ", key, ": ", value, " is above 1 (it is a fraction of the rows)"));
    }
    return number;
  }

  template <typename Number>
  static bool parse_whole(const std::string& text, Number& number) {
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, number);
    return error == std::errc{} && stop == end;
  }

  const GeneratorSpec& spec_;
  std::string text_;
  const KindInfo& kind_;
};

CsrMatrix random_shaped(const SpecReader& spec, std::string_view shape, bool tall) {
  const index_t rows = spec.size("rows");
  const index_t cols = spec.size("cols");
  if (tall ? rows <= cols : rows >= cols) {
    throw std::invalid_argument(
        message("a ", shape, " matrix needs rows ", tall ? ">" : "<", " cols, got rows = ", rows, ", cols = ", cols));
  }
  return uniform_random(rows, cols, spec.size("per_row"), spec.seed());
}

const std::vector<KindInfo>& kinds() {
  using enum ValueKind;
  static const std::vector<KindInfo> table = {
      {"stencil2d",
       {{"nx", kSize}, {"ny", kSize}},
       "5-point stencil on an nx x ny grid",
       [](const SpecReader& s) { return stencil_2d_5pt(s.size("nx"), s.size("ny"), s.seed()); }},
      {"stencil3d7",
       {{"nx", kSize}, {"ny", kSize}, {"nz", kSize}},
       "7-point stencil on an nx x ny x nz grid",
       [](const SpecReader& s) { return stencil_3d_7pt(s.size("nx"), s.size("ny"), s.size("nz"), s.seed()); }},
      {"stencil3d27",
       {{"nx", kSize}, {"ny", kSize}, {"nz", kSize}},
       "27-point stencil on an nx x ny x nz grid",
       [](const SpecReader& s) { return stencil_3d_27pt(s.size("nx"), s.size("ny"), s.size("nz"), s.seed()); }},
      {"random",
       {{"rows", kSize}, {"cols", kSize}, {"per_row", kSize}},
       "per_row distinct uniformly random columns in every row (rows != cols: rectangular)",
       [](const SpecReader& s) { return uniform_random(s.size("rows"), s.size("cols"), s.size("per_row"), s.seed()); }},
      {"tall",
       {{"rows", kSize}, {"cols", kSize}, {"per_row", kSize}},
       "random with rows > cols",
       [](const SpecReader& s) { return random_shaped(s, "tall", true); }},
      {"wide",
       {{"rows", kSize}, {"cols", kSize}, {"per_row", kSize}},
       "random with rows < cols",
       [](const SpecReader& s) { return random_shaped(s, "wide", false); }},
      {"powerlaw",
       {{"rows", kSize}, {"cols", kSize}, {"alpha", kReal}, {"max_row", kSize}},
       "row lengths with P(len = k) ~ k^-alpha, 1 <= len <= min(max_row, cols)",
       [](const SpecReader& s) {
         return power_law(s.size("rows"), s.size("cols"), s.real("alpha"), s.size("max_row"), s.seed());
       }},
      {"banded",
       {{"n", kSize}, {"half_bandwidth", kSize}},
       "entries where |i - j| <= half_bandwidth",
       [](const SpecReader& s) { return banded(s.size("n"), s.size("half_bandwidth"), s.seed()); }},
      {"blockdiag",
       {{"blocks", kSize}, {"block_size", kSize}},
       "dense block_size x block_size blocks on the diagonal",
       [](const SpecReader& s) { return block_diagonal(s.size("blocks"), s.size("block_size"), s.seed()); }},
      {"arrow",
       {{"n", kSize}},
       "diagonal plus a dense row 0 and column 0",
       [](const SpecReader& s) { return arrow(s.size("n"), s.seed()); }},
      {"diagonal",
       {{"n", kSize}},
       "n x n diagonal",
       [](const SpecReader& s) { return diagonal(s.size("n"), s.seed()); }},
      {"one", {}, "1 x 1 with one entry", [](const SpecReader& s) { return diagonal(1, s.seed()); }},
      {"empty",
       {{"rows", kSize}, {"cols", kSize}},
       "rows x cols with no entries",
       [](const SpecReader& s) { return empty(s.size("rows"), s.size("cols")); }},
  };
  return table;
}

std::string text_of(const GeneratorSpec& spec) {
  std::string text = spec.kind;
  for (const auto& [key, value] : spec.params) text += message(" ", key, "=", value);
  return text;
}

// The generated matrix's shape, its entries counted from below (a power
// law's rows hold at least one each), so that the memory check never
// refuses what would fit. Saturates past the int32 range, where the
// generator itself refuses the spec with a better message.
MatrixShape shape_of(const SpecReader& spec) {
  const std::string_view kind = spec.kind().name;
  const auto size = [&](std::string_view key) -> std::int64_t { return spec.size(key); };
  const auto product = [](std::initializer_list<std::int64_t> factors) { return bounded_product(factors); };
  MatrixShape shape;
  if (kind == "stencil2d" || kind == "stencil3d7" || kind == "stencil3d27") {
    const std::int64_t points =
        kind == "stencil2d" ? product({size("nx"), size("ny")}) : product({size("nx"), size("ny"), size("nz")});
    shape.rows = shape.cols = points;
    shape.entries = product({points, kind == "stencil2d" ? 5 : kind == "stencil3d7" ? 7 : 27});
  } else if (kind == "random" || kind == "tall" || kind == "wide") {
    shape = {size("rows"), size("cols"), product({size("rows"), size("per_row")})};
  } else if (kind == "powerlaw") {
    shape = {size("rows"), size("cols"), size("rows")};
  } else if (kind == "banded") {
    const std::int64_t n = size("n");
    const std::int64_t h = std::min<std::int64_t>(size("half_bandwidth"), std::max<std::int64_t>(n - 1, 0));
    const std::int64_t full = product({n, 2 * h + 1});
    shape = {n, n, full > kMaxIndex ? full : std::max<std::int64_t>(0, full - h * (h + 1))};
  } else if (kind == "blockdiag") {
    const std::int64_t n = product({size("blocks"), size("block_size")});
    shape = {n, n, product({n, size("block_size")})};
  } else if (kind == "arrow") {
    shape = {size("n"), size("n"), std::max<std::int64_t>(0, 3 * size("n") - 2)};
  } else if (kind == "diagonal") {
    shape = {size("n"), size("n"), size("n")};
  } else if (kind == "one") {
    shape = {1, 1, 1};
  } else if (kind == "empty") {
    shape = {size("rows"), size("cols"), 0};
  }
  shape.entries = static_cast<std::int64_t>(static_cast<double>(shape.entries) * (1 - spec.empty_fraction()));
  return shape;
}

// Before anything is generated: the matrix must fit what a case may use on
// this machine (memory_fit.hpp).
void check_memory(const SpecReader& spec) {
  const MatrixShape shape = shape_of(spec);
  if (shape.rows > kMaxIndex || shape.cols > kMaxIndex || shape.entries > kMaxIndex) return;
  const std::string problem = memory_problem(shape, machine_memory());
  if (!problem.empty()) spec.fail(message("too large for this machine: ", problem, "; is a size mistyped?"));
}

CsrMatrix build(const SpecReader& spec) {
  spec.check();
  check_memory(spec);
  CsrMatrix matrix;
  try {
    matrix = spec.kind().build(spec);
  } catch (const std::invalid_argument& error) {
    // A generator's own complaint (e.g. per_row > cols), tied to the spec.
    spec.fail(error.what());
  }
  const double fraction = spec.empty_fraction();
  if (fraction > 0) return with_empty_rows(matrix, fraction, spec.seed());
  return matrix;
}

}  // namespace

GeneratorSpec parse_spec(const std::string& text) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(message("generator spec \"", text, "\": ", what));
  };
  GeneratorSpec spec;
  std::istringstream tokens(text);
  if (!(tokens >> spec.kind)) fail("empty, expected \"<kind> key=value ...\"");
  std::string token;
  while (tokens >> token) {
    const std::size_t equals = token.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == token.size()) {
      fail(message("\"", token, "\" is not key=value"));
    }
    std::string key = token.substr(0, equals);
    if (!spec.params.emplace(key, token.substr(equals + 1)).second) {
      fail(message("key \"", key, "\" given twice"));
    }
  }
  SpecReader(spec, text).check();
  return spec;
}

CsrMatrix generate(const GeneratorSpec& spec) { return build(SpecReader(spec, text_of(spec))); }

CsrMatrix generate(const std::string& text) {
  const GeneratorSpec spec = parse_spec(text);
  return build(SpecReader(spec, text));
}

std::vector<std::string> generator_kinds() {
  std::vector<std::string> lines;
  for (const KindInfo& kind : kinds()) {
    std::string line(kind.name);
    for (const KeyInfo& key : kind.keys) line += message(" ", key.name);
    lines.push_back(message(line, ": ", kind.summary));
  }
  return lines;
}

}  // namespace spmv::gen
