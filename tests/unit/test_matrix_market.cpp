// Matrix Market reader and writer: every variant of the format on small
// matrices whose CSR arrays are written out here, the malformed files of
// testcases/invalid/ (each with the error it must raise), .gz input, the
// allocation bound for lying headers, and write-then-read round trips.
#include "spmv/core/matrix_market.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "random_csr.hpp"

// The largest single request to operator new, so that a test can show a
// lying header does not make the reader allocate for it.
namespace {
std::atomic<std::size_t> largest_allocation{0};
}  // namespace

// None of these is inlined: GCC would otherwise see malloc() and free()
// meet operator new and delete and warn about a mismatch that is not one.
[[gnu::noinline]] void* operator new(std::size_t size) {
  std::size_t seen = largest_allocation.load(std::memory_order_relaxed);
  while (size > seen && !largest_allocation.compare_exchange_weak(seen, size, std::memory_order_relaxed)) {
  }
  if (void* block = std::malloc(size == 0 ? 1 : size)) return block;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's buffer): its default calls the
// one above, but AddressSanitizer replaces it with its own, whose blocks
// would then reach the free() below.
[[gnu::noinline]] void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
[[gnu::noinline]] void operator delete(void* block) noexcept { std::free(block); }
[[gnu::noinline]] void operator delete(void* block, std::size_t) noexcept { std::free(block); }
[[gnu::noinline]] void operator delete(void* block, const std::nothrow_t&) noexcept { std::free(block); }

namespace spmv {
namespace {

namespace fs = std::filesystem;

const std::string kSource = "inline.mtx";

CsrMatrix parse(std::string_view text, MatrixMarketOptions options = {}, MatrixMarketHeader* header = nullptr) {
  return parse_matrix_market(text, kSource, options, header);
}

std::vector<std::uint32_t> bits_of(const std::vector<value_t>& values) {
  std::vector<std::uint32_t> bits;
  for (const value_t v : values) bits.push_back(std::bit_cast<std::uint32_t>(v));
  return bits;
}

struct ExpectedCsr {
  index_t rows;
  index_t cols;
  std::vector<index_t> row_ptr;
  std::vector<index_t> col_idx;
  std::vector<value_t> values;
};

void expect_csr(const CsrMatrix& a, const ExpectedCsr& expected) {
  EXPECT_EQ(a.rows, expected.rows);
  EXPECT_EQ(a.cols, expected.cols);
  EXPECT_EQ(a.row_ptr, expected.row_ptr);
  EXPECT_EQ(a.col_idx, expected.col_idx);
  // Bit patterns, so that -0 and 0 or a rounding difference never pass.
  EXPECT_EQ(bits_of(a.values), bits_of(expected.values));
  EXPECT_NO_THROW(a.validate());
}

// The error a text raises; fails the test if it parses.
MatrixMarketError parse_error(std::string_view text, MatrixMarketOptions options = {}) {
  try {
    parse(text, options);
  } catch (const MatrixMarketError& error) {
    return error;
  }
  ADD_FAILURE() << "parsed without error:\n" << text;
  return MatrixMarketError(kSource, -1, "no error");
}

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir()
      : path_(fs::temp_directory_path() /
              ("spmv-mm-test-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_gz(const fs::path& path, std::string_view text) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

// The course's 4x4 example (rows: 1 7 . . / 5 . 3 9 / . 2 8 . / . . . 6),
// entries listed out of order.
constexpr std::string_view kExampleGeneral =
    "%%MatrixMarket matrix coordinate real general\n"
    "% the 4x4 example\n"
    "4 4 8\n"
    "4 4 6\n"
    "2 3 3\n"
    "1 2 7\n"
    "3 2 2\n"
    "2 1 5\n"
    "1 1 1\n"
    "3 3 8\n"
    "2 4 9\n";

const ExpectedCsr kExampleCsr{4, 4, {0, 2, 5, 7, 8}, {0, 1, 0, 2, 3, 1, 2, 3}, {1, 7, 5, 3, 9, 2, 8, 6}};

TEST(MatrixMarketRead, CoordinateRealGeneralOutOfOrder) {
  MatrixMarketHeader header;
  expect_csr(parse(kExampleGeneral, {}, &header), kExampleCsr);
  EXPECT_EQ(header.format, "coordinate");
  EXPECT_EQ(header.field, "real");
  EXPECT_EQ(header.symmetry, "general");
  EXPECT_EQ(header.rows, 4);
  EXPECT_EQ(header.cols, 4);
  EXPECT_EQ(header.entries, 8);
}

TEST(MatrixMarketRead, RectangularWithEmptyRowAndRealSyntaxes) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "3 5 4\n"
      "3 5 -2.5e-1\n"
      "1 4 +.5\n"
      "3 1 1E2\n"
      "1 2 3.\n");
  expect_csr(a, {3, 5, {0, 2, 2, 4}, {1, 3, 0, 4}, {3.0F, 0.5F, 100.0F, -0.25F}});
}

TEST(MatrixMarketRead, IntegerField) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate integer general\n"
      "2 2 3\n"
      "1 1 -3\n"
      "2 1 +4\n"
      "2 2 16777217\n");  // rounds to the nearest float like a cast
  expect_csr(a, {2, 2, {0, 1, 3}, {0, 0, 1}, {-3.0F, 4.0F, 16777216.0F}});
}

TEST(MatrixMarketRead, PatternEntriesGetOne) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate pattern general\n"
      "2 3 3\n"
      "2 3\n"
      "1 1\n"
      "2 2\n");
  expect_csr(a, {2, 3, {0, 1, 3}, {0, 1, 2}, {1, 1, 1}});
}

TEST(MatrixMarketRead, SymmetricMirrorsOffDiagonal) {
  MatrixMarketHeader header;
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 2\n"
      "3 1 -1.5\n"
      "2 2 4\n"
      "3 2 0.25\n",
      {}, &header);
  expect_csr(a, {3, 3, {0, 2, 4, 6}, {0, 2, 1, 2, 0, 1}, {2, -1.5F, 4, 0.25F, -1.5F, 0.25F}});
  EXPECT_EQ(header.symmetry, "symmetric");
  EXPECT_EQ(header.entries, 4);
}

TEST(MatrixMarketRead, PatternSymmetricMirrors) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate pattern symmetric\n"
      "3 3 2\n"
      "2 1\n"
      "3 3\n");
  expect_csr(a, {3, 3, {0, 1, 2, 3}, {1, 0, 2}, {1, 1, 1}});
}

TEST(MatrixMarketRead, SkewSymmetricMirrorsNegated) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n"
      "3 3 2\n"
      "2 1 1.5\n"
      "3 2 -4\n");
  expect_csr(a, {3, 3, {0, 1, 3, 4}, {1, 0, 2, 1}, {-1.5F, 1.5F, 4, -4}});
}

TEST(MatrixMarketRead, DuplicatesSummedInFileOrder) {
  // 1e8 + 1 - 1e8 is 0 in float but 1 when summed exactly: the reader sums
  // duplicates in double and rounds once.
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 5\n"
      "1 2 1e8\n"
      "2 1 0.5\n"
      "1 2 1\n"
      "2 1 0.25\n"
      "1 2 -1e8\n");
  expect_csr(a, {2, 2, {0, 1, 2}, {1, 0}, {1.0F, 0.75F}});
}

TEST(MatrixMarketRead, DuplicatesOfMirroredEntriesSummed) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "2 2 2\n"
      "2 1 1\n"
      "2 1 2\n");
  expect_csr(a, {2, 2, {0, 1, 2}, {1, 0}, {3, 3}});
}

TEST(MatrixMarketRead, ExplicitZerosKept) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 4\n"
      "1 1 0\n"
      "2 2 -0.0\n"
      "2 1 3\n"
      "2 1 -3\n");  // a duplicate pair summing to zero stays an entry too
  expect_csr(a, {2, 2, {0, 1, 3}, {0, 0, 1}, {0.0F, 0.0F, -0.0F}});
}

TEST(MatrixMarketRead, ArrayGeneralIsColumnMajor) {
  MatrixMarketHeader header;
  const auto a = parse(
      "%%MatrixMarket matrix array real general\n"
      "% 2 x 3, values column by column\n"
      "2 3\n"
      "1\n4\n2\n5\n0\n6\n",
      {}, &header);
  // Every value of an array file is an entry, zeros included.
  expect_csr(a, {2, 3, {0, 3, 6}, {0, 1, 2, 0, 1, 2}, {1, 2, 0, 4, 5, 6}});
  EXPECT_EQ(header.format, "array");
  EXPECT_EQ(header.entries, 6);
}

TEST(MatrixMarketRead, ArraySymmetricIsLowerTriangleColumnMajor) {
  MatrixMarketHeader header;
  const auto a = parse(
      "%%MatrixMarket matrix array real symmetric\n"
      "3 3\n"
      "1\n2\n3\n4\n5\n6\n",
      {}, &header);
  // Lower triangle by columns: a11 a21 a31 a22 a32 a33.
  expect_csr(a, {3, 3, {0, 3, 6, 9}, {0, 1, 2, 0, 1, 2, 0, 1, 2}, {1, 2, 3, 2, 4, 5, 3, 5, 6}});
  EXPECT_EQ(header.entries, 6);
}

TEST(MatrixMarketRead, ArraySkewSymmetricHasNoDiagonal) {
  MatrixMarketHeader header;
  const auto a = parse(
      "%%MatrixMarket matrix array real skew-symmetric\n"
      "3 3\n"
      "1\n2\n3\n",
      {}, &header);
  // Strict lower triangle by columns: a21 a31 a32.
  expect_csr(a, {3, 3, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {-1, -2, 1, -3, 2, 3}});
  EXPECT_EQ(header.entries, 3);
}

TEST(MatrixMarketRead, ArrayInteger) {
  const auto a = parse(
      "%%MatrixMarket matrix array integer general\n"
      "1 2\n"
      "-7\n"
      "9\n");
  expect_csr(a, {1, 2, {0, 2}, {0, 1}, {-7, 9}});
}

TEST(MatrixMarketRead, NoEntries) {
  expect_csr(parse("%%MatrixMarket matrix coordinate real general\n3 4 0\n"), {3, 4, {0, 0, 0, 0}, {}, {}});
  expect_csr(parse("%%MatrixMarket matrix coordinate pattern symmetric\n0 0 0"), {0, 0, {0}, {}, {}});
  expect_csr(parse("%%MatrixMarket matrix array real general\n0 5\n"), {0, 5, {0}, {}, {}});
}

TEST(MatrixMarketRead, BannerKeywordsCaseInsensitive) {
  MatrixMarketHeader header;
  const auto a = parse(
      "%%matrixmarket MATRIX Coordinate REAL Skew-Symmetric\n"
      "2 2 1\n"
      "2 1 3\n",
      {}, &header);
  expect_csr(a, {2, 2, {0, 1, 2}, {1, 0}, {-3, 3}});
  // The header reports the keywords in their canonical spelling.
  EXPECT_EQ(header.format, "coordinate");
  EXPECT_EQ(header.field, "real");
  EXPECT_EQ(header.symmetry, "skew-symmetric");
}

TEST(MatrixMarketRead, CrlfCommentsBlankLinesAndOddSpacing) {
  std::string text(kExampleGeneral);
  // Windows line ends, tabs, runs of spaces, leading blanks, comments and
  // blank lines between entries, and no final line end.
  std::string odd;
  for (const char c : text) {
    if (c == '\n') {
      odd += "  \r\n\t\r\n% note\r\n";
    } else if (c == ' ') {
      odd += " \t  ";
    } else {
      odd += c;
    }
  }
  odd = "\xEF\xBB\xBF" + odd.substr(0, odd.size() - std::string("  \r\n\t\r\n% note\r\n").size());
  expect_csr(parse(odd), kExampleCsr);
}

TEST(MatrixMarketRead, NonFiniteValuesWithOption) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n"
      "1 5 5\n"
      "1 1 nan\n"
      "1 2 inf\n"
      "1 3 -Infinity\n"
      "1 4 1e39\n"     // beyond the float range
      "1 5 -1e400\n";  // beyond the double range
  const auto error = parse_error(text);
  EXPECT_EQ(error.line(), 3);
  const auto a = parse(text, {.allow_nonfinite = true});
  ASSERT_EQ(a.values.size(), 5U);
  EXPECT_TRUE(std::isnan(a.values[0]));
  EXPECT_EQ(a.values[1], std::numeric_limits<value_t>::infinity());
  EXPECT_EQ(a.values[2], -std::numeric_limits<value_t>::infinity());
  EXPECT_EQ(a.values[3], std::numeric_limits<value_t>::infinity());
  EXPECT_EQ(a.values[4], -std::numeric_limits<value_t>::infinity());
}

TEST(MatrixMarketRead, TinyValuesRoundToZeroOrSubnormal) {
  const auto a = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "1 3 3\n"
      "1 1 1e-50\n"
      "1 2 -1e-400\n"
      "1 3 1.5e-45\n");
  expect_csr(a, {1, 3, {0, 3}, {0, 1, 2}, {0.0F, -0.0F, std::numeric_limits<value_t>::denorm_min()}});
}

struct Entry {
  index_t row;  // 0-based
  index_t col;
  value_t value;
};

// A coordinate file listing `entries` in the given order, values printed
// with nine digits (enough to read back exactly).
std::string coordinate_text(std::string_view field_and_symmetry, index_t rows, index_t cols,
                            const std::vector<Entry>& entries) {
  std::string text = "%%MatrixMarket matrix coordinate " + std::string(field_and_symmetry) + "\n";
  text += std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(entries.size()) + "\n";
  char value[32];
  for (const Entry& e : entries) {
    std::snprintf(value, sizeof value, "%.9g", static_cast<double>(e.value));
    text += std::to_string(e.row + 1) + " " + std::to_string(e.col + 1) + " " + value + "\n";
  }
  return text;
}

// The CSR of a map from (row, column) to value: the map orders entries by
// row, then column, independently of the reader's sorting.
ExpectedCsr csr_of(index_t rows, index_t cols, const std::map<std::pair<index_t, index_t>, value_t>& cells) {
  ExpectedCsr csr{rows, cols, std::vector<index_t>(static_cast<std::size_t>(rows) + 1, 0), {}, {}};
  for (const auto& [position, value] : cells) {
    ++csr.row_ptr[static_cast<std::size_t>(position.first) + 1];
    csr.col_idx.push_back(position.second);
    csr.values.push_back(value);
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
    csr.row_ptr[r + 1] += csr.row_ptr[r];
  }
  return csr;
}

// Rows longer than the insertion-sort cutoff, entries in random order, and
// some entries split into two halves (exact, so their sum is too).
TEST(MatrixMarketRead, ShuffledEntriesAndDuplicatesAssembleExactly) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  test::RandomCsrShape shape;
  shape.rows = 300;
  shape.cols = 500;
  shape.long_row = 200;
  const CsrMatrix a = test::random_csr(rng, shape);
  std::vector<Entry> entries;
  std::bernoulli_distribution split(0.3);
  for (index_t row = 0; row < a.rows; ++row) {
    for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
      const value_t value = a.values[static_cast<std::size_t>(k)];
      const index_t col = a.col_idx[static_cast<std::size_t>(k)];
      if (split(rng)) {
        entries.push_back({row, col, value / 2});
        entries.push_back({row, col, value / 2});
      } else {
        entries.push_back({row, col, value});
      }
    }
  }
  std::shuffle(entries.begin(), entries.end(), rng);
  expect_csr(parse(coordinate_text("real general", a.rows, a.cols, entries)),
             {a.rows, a.cols, a.row_ptr, a.col_idx, a.values});
}

TEST(MatrixMarketRead, ShuffledSymmetricAndSkewAssembleExactly) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  constexpr index_t n = 150;
  std::uniform_real_distribution<float> magnitude(0.25F, 1.0F);
  std::bernoulli_distribution keep(0.15);
  for (const bool skew : {false, true}) {
    SCOPED_TRACE(skew ? "skew-symmetric" : "symmetric");
    std::vector<Entry> lower;
    std::map<std::pair<index_t, index_t>, value_t> full;
    for (index_t row = 0; row < n; ++row) {
      for (index_t col = 0; col < (skew ? row : row + 1); ++col) {
        // The last row is full, so its column (mirrored) is longer than the
        // insertion-sort cutoff.
        if (row != n - 1 && !keep(rng)) continue;
        const value_t value = keep(rng) ? -magnitude(rng) : magnitude(rng);
        lower.push_back({row, col, value});
        full[{row, col}] = value;
        if (row != col) full[{col, row}] = skew ? -value : value;
      }
    }
    std::shuffle(lower.begin(), lower.end(), rng);
    expect_csr(parse(coordinate_text(skew ? "real skew-symmetric" : "real symmetric", n, n, lower)),
               csr_of(n, n, full));
  }
}

// upper_triangle = mirror: a random symmetric (or skew) matrix written
// with some places stored below the diagonal, some above and some on both
// sides, shuffled, reads as the matrix itself; by default the first upper
// entry is refused and the message says which option reads it.
TEST(MatrixMarketRead, EitherTriangleMirroredWhenAsked) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  constexpr index_t n = 120;
  std::uniform_real_distribution<float> magnitude(0.25F, 1.0F);
  std::bernoulli_distribution keep(0.2);
  std::uniform_int_distribution<int> side(0, 2);  // 0: lower, 1: upper, 2: both
  for (const bool skew : {false, true}) {
    SCOPED_TRACE(skew ? "skew-symmetric" : "symmetric");
    std::vector<Entry> stored;
    std::map<std::pair<index_t, index_t>, value_t> full;
    for (index_t row = 0; row < n; ++row) {
      for (index_t col = 0; col < (skew ? row : row + 1); ++col) {
        if (!keep(rng)) continue;
        const value_t value = keep(rng) ? -magnitude(rng) : magnitude(rng);
        full[{row, col}] = value;
        if (row == col) {
          stored.push_back({row, col, value});
          continue;
        }
        const value_t partner = skew ? -value : value;
        full[{col, row}] = partner;
        const int where = side(rng);
        if (where != 1) stored.push_back({row, col, value});
        if (where != 0) stored.push_back({col, row, partner});
      }
    }
    std::shuffle(stored.begin(), stored.end(), rng);
    const std::string text = coordinate_text(skew ? "real skew-symmetric" : "real symmetric", n, n, stored);
    expect_csr(parse(text, {.upper_triangle = UpperTriangle::kMirror}), csr_of(n, n, full));
    const MatrixMarketError refused = parse_error(text);
    EXPECT_NE(std::string(refused.what()).find("needs upper_triangle = mirror"), std::string::npos) << refused.what();
  }
}

TEST(MatrixMarketRead, BothSidesOfAPlaceMustAgree) {
  // Duplicates on one side are summed first: 0.5 + 0.5 below, 1 above.
  expect_csr(parse("%%MatrixMarket matrix coordinate real symmetric\n"
                   "2 2 3\n2 1 0.5\n1 2 1\n2 1 0.5\n",
                   {.upper_triangle = UpperTriangle::kMirror}),
             {2, 2, {0, 1, 2}, {1, 0}, {1, 1}});
  // A whole pattern matrix stored twice.
  expect_csr(parse("%%MatrixMarket matrix coordinate pattern symmetric\n"
                   "2 2 3\n1 1\n1 2\n2 1\n",
                   {.upper_triangle = UpperTriangle::kMirror}),
             {2, 2, {0, 2, 3}, {0, 1, 0}, {1, 1, 1}});

  const MatrixMarketError differ =
      parse_error("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n3 1 1.5\n1 3 2\n",
                  {.upper_triangle = UpperTriangle::kMirror});
  EXPECT_EQ(differ.line(), 0);
  EXPECT_STREQ(differ.what(),
               "inline.mtx: expected entries (3, 1) and (1, 3) of a symmetric matrix, stored on both sides "
               "(upper_triangle = mirror), to be equal, found 1.5 and 2");

  const std::string skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n3 1 1.5\n1 3 ";
  expect_csr(parse(skew + "-1.5\n", {.upper_triangle = UpperTriangle::kMirror}),
             {3, 3, {0, 1, 1, 2}, {2, 0}, {-1.5F, 1.5F}});
  const MatrixMarketError same_sign = parse_error(skew + "1.5\n", {.upper_triangle = UpperTriangle::kMirror});
  EXPECT_STREQ(same_sign.what(),
               "inline.mtx: expected entries (3, 1) and (1, 3) of a skew-symmetric matrix, stored on both "
               "sides (upper_triangle = mirror), to be opposite, found 1.5 and 1.5");
  // The diagonal of a skew-symmetric matrix stays refused.
  EXPECT_EQ(parse_error("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n",
                        {.upper_triangle = UpperTriangle::kMirror})
                .line(),
            3);
  // A general file is read as always.
  expect_csr(parse("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 3\n",
                   {.upper_triangle = UpperTriangle::kMirror}),
             {2, 2, {0, 1, 2}, {1, 0}, {1, 3}});
}

// Decimal texts of every shape the reader may meet, including ones whose
// nearest double lies exactly halfway between two floats (where rounding to
// double first would round the float the wrong way): each must read as the
// correctly rounded float, which glibc's strtof gives.
std::vector<std::string> tricky_decimals(std::mt19937_64& rng, int count) {
  std::uniform_int_distribution<std::uint32_t> bits;
  std::uniform_int_distribution<int> shape(0, 5);
  std::uniform_int_distribution<int> precision(1, 24);
  std::uniform_int_distribution<int> exponent(-60, 60);
  std::uniform_int_distribution<int> digit(0, 9);
  std::vector<std::string> texts;
  char text[128];
  while (static_cast<int>(texts.size()) < count) {
    const auto f = std::bit_cast<float>(bits(rng));
    if (!std::isfinite(f)) continue;
    const double halfway = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, INFINITY))) / 2;
    switch (shape(rng)) {
      case 0: std::snprintf(text, sizeof text, "%.9g", static_cast<double>(f)); break;
      case 1: std::snprintf(text, sizeof text, "%.*e", precision(rng), static_cast<double>(f)); break;
      case 2: std::snprintf(text, sizeof text, "%.17g", halfway); break;
      case 3: std::snprintf(text, sizeof text, "%.*g", precision(rng), halfway); break;
      case 4: std::snprintf(text, sizeof text, "%.*f", precision(rng) % 12, static_cast<double>(f) * 1e-30); break;
      default: {
        std::string digits = digit(rng) % 2 == 0 ? "-" : "";
        const int length = precision(rng);
        for (int i = 0; i < length; ++i) digits += static_cast<char>('0' + digit(rng));
        std::snprintf(text, sizeof text, "%s.%de%d", digits.c_str(), digit(rng), exponent(rng));
      }
    }
    texts.emplace_back(text);
  }
  return texts;
}

TEST(MatrixMarketRead, RealValuesRoundCorrectlyToFloat) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const auto decimals = tricky_decimals(rng, 20000);
  std::string text = "%%MatrixMarket matrix coordinate real general\n1 " + std::to_string(decimals.size()) + " " +
                     std::to_string(decimals.size()) + "\n";
  for (std::size_t k = 0; k < decimals.size(); ++k) {
    text += "1 " + std::to_string(k + 1) + " " + decimals[k] + "\n";
  }
  const auto a = parse(text, {.allow_nonfinite = true});
  ASSERT_EQ(a.values.size(), decimals.size());
  int mismatches = 0;
  for (std::size_t k = 0; k < decimals.size() && mismatches < 10; ++k) {
    const float expected = std::strtof(decimals[k].c_str(), nullptr);
    if (std::bit_cast<std::uint32_t>(a.values[k]) != std::bit_cast<std::uint32_t>(expected)) {
      ++mismatches;
      ADD_FAILURE() << "'" << decimals[k] << "' read as " << a.values[k] << ", correctly rounded " << expected;
    }
  }
}

TEST(MatrixMarketRead, DuplicatesOverflowingFloatAreAnError) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 2\n"
      "2 1 3e38\n"
      "2 1 3e38\n";
  const auto error = parse_error(text);
  EXPECT_EQ(error.line(), 0);
  EXPECT_STREQ(error.what(),
               "inline.mtx: expected duplicate entries summing to a finite fp32 value, found inf "
               "at row 2, column 1");
  EXPECT_EQ(parse(text, {.allow_nonfinite = true}).values.at(0), std::numeric_limits<value_t>::infinity());
}

TEST(MatrixMarketError, MessageNamesSourceLineExpectedAndFound) {
  const auto error = parse_error(
      "%%MatrixMarket matrix coordinate real general\n"
      "% comment\n"
      "2 2 1\n"
      "\n"
      "1 2 abc\n");
  EXPECT_EQ(error.source(), kSource);
  EXPECT_EQ(error.line(), 5);
  EXPECT_STREQ(error.what(), "inline.mtx:5: expected a real value, found 'abc'");
}

TEST(MatrixMarketError, FoundTextIsTruncatedAndEscaped) {
  const std::string long_token(100, 'x');
  const auto long_error = parse_error("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + long_token + "\n");
  EXPECT_STREQ(long_error.what(),
               ("inline.mtx:3: expected a real value, found '" + std::string(40, 'x') + "'...").c_str());
  const auto binary_error = parse_error(std::string("\x01\x7f\xff", 3));
  EXPECT_STREQ(binary_error.what(),
               "inline.mtx:1: expected banner '%%MatrixMarket matrix <format> <field> <symmetry>', "
               "found '\\x01\\x7F\\xFF'");
}

TEST(MatrixMarketError, EmptyTextHasNoBanner) {
  const auto error = parse_error(std::string_view{});
  EXPECT_STREQ(error.what(),
               "inline.mtx:1: expected banner '%%MatrixMarket matrix <format> <field> <symmetry>', "
               "found end of file");
}

TEST(MatrixMarketError, EndOfFileReportedOnItsLine) {
  // The file ends after its line end, so end of file is on line 5.
  const auto error = parse_error("%%MatrixMarket matrix coordinate real general\n3 3 9\n1 1 1\n2 2 2\n");
  EXPECT_EQ(error.line(), 5);
  EXPECT_STREQ(error.what(), "inline.mtx:5: expected 9 entries (declared on line 2), found 2 before end of file");
}

// A header declaring far more entries than the text holds must fail as
// "too few entries" without reserving memory for the declared count.
TEST(MatrixMarketRead, LyingHeaderDoesNotAllocateForDeclaredCount) {
  const std::string coordinate = "%%MatrixMarket matrix coordinate real general\n1 1 1000000000000\n1 1 1\n";
  const std::string array = "%%MatrixMarket matrix array real general\n1000000 1000000\n1\n";
  for (const std::string& text : {coordinate, array}) {
    largest_allocation = 0;
    const auto error = parse_error(text);
    EXPECT_EQ(error.line(), 4);
    EXPECT_NE(std::string(error.what()).find("found 1 before end of file"), std::string::npos) << error.what();
    EXPECT_LT(largest_allocation.load(), std::size_t{4096}) << text;
  }
}

TEST(MatrixMarketFile, GzipReadTransparently) {
  const TempDir dir;
  const fs::path path = dir.path() / "example.mtx.gz";
  write_gz(path, kExampleGeneral);
  MatrixMarketHeader header;
  expect_csr(read_matrix_market(path, {}, &header), kExampleCsr);
  EXPECT_EQ(header.entries, 8);
}

TEST(MatrixMarketFile, GzipContentErrorsNameThePathAndLine) {
  const TempDir dir;
  const fs::path path = dir.path() / "bad.mtx.gz";
  write_gz(path, "%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n");
  try {
    read_matrix_market(path);
    FAIL() << "read without error";
  } catch (const MatrixMarketError& error) {
    EXPECT_EQ(error.source(), path.string());
    EXPECT_EQ(error.line(), 3);
    EXPECT_STREQ(error.what(), (path.string() + ":3: expected a row index in 1..2, found '0'").c_str());
  }
}

TEST(MatrixMarketFile, TruncatedGzipIsAnError) {
  const TempDir dir;
  const fs::path path = dir.path() / "truncated.mtx.gz";
  std::string text = "%%MatrixMarket matrix coordinate real general\n1000 1000 1000\n";
  for (int k = 1; k <= 1000; ++k) {
    text += std::to_string(k) + " " + std::to_string(1001 - k) + " 0.5\n";
  }
  write_gz(path, text);
  fs::resize_file(path, fs::file_size(path) / 2);
  try {
    read_matrix_market(path);
    FAIL() << "read without error";
  } catch (const MatrixMarketError& error) {
    EXPECT_EQ(error.source(), path.string());
    EXPECT_NE(std::string(error.what()).find("expected intact gzip data"), std::string::npos) << error.what();
  }
}

TEST(MatrixMarketFile, MissingFileIsAnError) {
  const TempDir dir;
  for (const char* name : {"absent.mtx", "absent.mtx.gz"}) {
    const fs::path path = dir.path() / name;
    try {
      read_matrix_market(path);
      FAIL() << "read without error";
    } catch (const MatrixMarketError& error) {
      EXPECT_EQ(error.source(), path.string());
      EXPECT_EQ(error.line(), 0);
      EXPECT_NE(std::string(error.what()).find(path.string() + ": expected a readable"), std::string::npos)
          << error.what();
    }
  }
}

TEST(MatrixMarketWrite, CoordinateRealGeneralWithNineDigitsAndComment) {
  CsrMatrix a;
  a.rows = 2;
  a.cols = 3;
  a.row_ptr = {0, 1, 3};
  a.col_idx = {1, 0, 2};
  a.values = {0.1F, -0.0F, 3e-40F};
  EXPECT_EQ(format_matrix_market(a, " generated for a test\n second line"),
            "%%MatrixMarket matrix coordinate real general\n"
            "% generated for a test\n"
            "% second line\n"
            "2 3 3\n"
            "1 2 0.100000001\n"
            "2 1 -0\n"
            "2 3 2.99999784e-40\n");
}

// Random structure, values with random bit patterns (every exponent,
// subnormals, signed zeros): the text written must read back bit-exact.
TEST(MatrixMarketWrite, RoundTripIsBitExact) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const TempDir dir;
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    test::RandomCsrShape shape;
    shape.rows = std::uniform_int_distribution<index_t>(1, 400)(rng);
    shape.cols = std::uniform_int_distribution<index_t>(1, 700)(rng);
    shape.empty_fraction = 0.2;
    CsrMatrix a = test::random_csr(rng, shape);
    std::uniform_int_distribution<std::uint32_t> bits;
    for (value_t& value : a.values) {
      do {
        value = std::bit_cast<value_t>(bits(rng));
      } while (!std::isfinite(value));
    }
    if (!a.values.empty()) a.values.front() = -0.0F;

    const CsrMatrix from_text = parse(format_matrix_market(a, "round trip"));
    expect_csr(from_text, {a.rows, a.cols, a.row_ptr, a.col_idx, a.values});

    const fs::path path = dir.path() / "round_trip.mtx";
    write_matrix_market(path, a);
    expect_csr(read_matrix_market(path), {a.rows, a.cols, a.row_ptr, a.col_idx, a.values});
  }
}

// testcases/invalid/: one malformed file per error kind, and
// expected_errors.txt saying which line and message each must produce.
const fs::path kInvalidDir = fs::path(SPMV_SOURCE_DIR) / "testcases" / "invalid";
constexpr const char* kManifestName = "expected_errors.txt";

struct ExpectedError {
  std::string file;
  std::int64_t line = 0;
  std::string message_part;
};

// Manifest lines: "<file> <line> <text the message contains>"; '#' starts
// a comment line.
std::vector<ExpectedError> load_manifest() {
  std::vector<ExpectedError> cases;
  std::ifstream manifest(kInvalidDir / kManifestName);
  std::string text;
  while (std::getline(manifest, text)) {
    if (text.empty() || text.front() == '#') continue;
    std::istringstream fields(text);
    ExpectedError expected;
    fields >> expected.file >> expected.line;
    std::getline(fields >> std::ws, expected.message_part);
    cases.push_back(expected);
  }
  return cases;
}

// Names the case in gtest's output instead of dumping the struct's bytes.
void PrintTo(const ExpectedError& expected, std::ostream* out) {
  *out << expected.file << " line " << expected.line << ": " << expected.message_part;
}

class InvalidFile : public testing::TestWithParam<ExpectedError> {};

TEST_P(InvalidFile, FailsWithExpectedLineAndMessage) {
  const ExpectedError& expected = GetParam();
  ASSERT_FALSE(expected.message_part.empty()) << expected.file << ": manifest line lacks the message text";
  const fs::path path = kInvalidDir / expected.file;
  ASSERT_TRUE(fs::is_regular_file(path)) << path;
  try {
    const CsrMatrix a = read_matrix_market(path);
    FAIL() << path << " read without error as a " << a.rows << " x " << a.cols << " matrix";
  } catch (const MatrixMarketError& error) {
    const std::string what = error.what();
    EXPECT_EQ(error.source(), path.string());
    EXPECT_EQ(error.line(), expected.line) << what;
    const std::string location =
        path.string() + (expected.line > 0 ? ":" + std::to_string(expected.line) : std::string()) + ": expected ";
    EXPECT_EQ(what.rfind(location, 0), 0U) << what;
    EXPECT_NE(what.find(expected.message_part), std::string::npos) << what << "\ndoes not contain\n"
                                                                   << expected.message_part;
  }
}

std::string test_name(const testing::TestParamInfo<ExpectedError>& info) {
  std::string name = info.param.file;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Manifest, InvalidFile, testing::ValuesIn(load_manifest()), test_name);

TEST(InvalidFiles, EveryFileListedOnceAndEveryListedFileExists) {
  const auto cases = load_manifest();
  ASSERT_FALSE(cases.empty()) << "no cases in " << kInvalidDir / kManifestName;
  std::map<std::string, int> listed;
  for (const auto& expected : cases) ++listed[expected.file];
  for (const auto& [file, count] : listed) {
    EXPECT_EQ(count, 1) << file << " listed " << count << " times";
    EXPECT_TRUE(fs::is_regular_file(kInvalidDir / file)) << file << " is listed but missing";
  }
  for (const auto& entry : fs::directory_iterator(kInvalidDir)) {
    const std::string file = entry.path().filename().string();
    if (file == kManifestName) continue;
    EXPECT_EQ(listed.count(file), 1U) << file << " is in " << kInvalidDir << " but not in " << kManifestName;
  }
}

}  // namespace
}  // namespace spmv
