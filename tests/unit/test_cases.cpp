#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "random_csr.hpp"
#include "spmv/core/cases.hpp"
#include "spmv/core/generators.hpp"

namespace spmv {
namespace {

namespace fs = std::filesystem;

// 2 x 3 with entries (1,1) = 1.5 and (2,3) = -2.
constexpr std::string_view kSmallMatrix =
    "%%MatrixMarket matrix coordinate real general\n"
    "2 3 2\n"
    "1 1 1.5\n"
    "2 3 -2\n";

void write_text(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_same_matrix(const CsrMatrix& expected, const CsrMatrix& got) {
  EXPECT_EQ(got.rows, expected.rows);
  EXPECT_EQ(got.cols, expected.cols);
  EXPECT_EQ(got.row_ptr, expected.row_ptr);
  EXPECT_EQ(got.col_idx, expected.col_idx);
  EXPECT_EQ(got.values, expected.values);
}

// Each test gets its own empty directory.
class CaseDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device device;
    dir_ = fs::temp_directory_path() / ("spmv_cases_" + std::to_string(device()) + std::to_string(device()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void manifest(std::string_view text) { write_text(dir_ / "cases.ini", text); }
  void matrix_file(const std::string& name) { write_text(dir_ / name, kSmallMatrix); }
  [[nodiscard]] std::string manifest_line(int line) const {
    return (dir_ / "cases.ini").string() + ":" + std::to_string(line) + ":";
  }

  fs::path dir_;
};

TEST_F(CaseDirectory, ManifestSetsEveryField) {
  matrix_file("fig.mtx");
  manifest(
      "# cases for the test\n"
      "\n"
      "[poisson]                ; a stencil\n"
      "generator = stencil2d nx=8 ny=8 seed=11\n"
      "why = short, regular rows; issue#3\n"
      "weight = 2.5\n"
      "visibility = after_due_date\n"
      "tags = regular , stencil\n"
      "tolerance_c = 4\n"
      "[fig]\n"
      "file = fig.mtx\n"
      "why = worked example\n");
  const std::vector<TestCase> cases = load_cases(dir_);
  ASSERT_EQ(cases.size(), 2U);
  const TestCase& fig = cases[0];  // sorted by name
  EXPECT_EQ(fig.name, "fig");
  EXPECT_EQ(fs::canonical(fig.file), fs::canonical(dir_ / "fig.mtx"));
  EXPECT_TRUE(fig.generator.empty());
  EXPECT_EQ(fig.weight, 1.0);
  EXPECT_EQ(fig.visibility, "visible");
  EXPECT_TRUE(fig.tags.empty());
  EXPECT_FALSE(fig.tolerance_c.has_value());
  EXPECT_EQ(fig.origin, (dir_ / "cases.ini").string() + ":10");
  const TestCase& poisson = cases[1];
  EXPECT_EQ(poisson.name, "poisson");
  EXPECT_EQ(poisson.generator, "stencil2d nx=8 ny=8 seed=11");
  EXPECT_TRUE(poisson.file.empty());
  EXPECT_EQ(poisson.why, "short, regular rows; issue#3");
  EXPECT_EQ(poisson.weight, 2.5);
  EXPECT_EQ(poisson.visibility, "after_due_date");
  EXPECT_EQ(poisson.tags, (std::vector<std::string>{"regular", "stencil"}));
  EXPECT_EQ(poisson.tolerance_c, 4.0);
  EXPECT_EQ(poisson.origin, (dir_ / "cases.ini").string() + ":3");
}

TEST_F(CaseDirectory, DroppedFilesAreCasesOfTheirOwn) {
  matrix_file("zeta.mtx");
  matrix_file("alpha.mtx.gz");  // the name alone decides; content is not read here
  matrix_file("named.mtx");
  write_text(dir_ / "notes.txt", "not a matrix");
  manifest("[described]\nfile = ./named.mtx\nwhy = named in the manifest\n");
  const std::vector<TestCase> cases = load_cases(dir_);
  ASSERT_EQ(cases.size(), 3U);
  EXPECT_EQ(cases[0].name, "alpha");
  EXPECT_EQ(cases[1].name, "described");
  EXPECT_EQ(cases[2].name, "zeta");
  EXPECT_EQ(cases[2].file, dir_ / "zeta.mtx");
  EXPECT_EQ(cases[2].weight, 1.0);
  EXPECT_EQ(cases[2].visibility, "visible");
  EXPECT_TRUE(cases[2].why.empty());
  EXPECT_EQ(cases[2].origin, (dir_ / "zeta.mtx").string());
}

// Matrices in a subfolder are no case unless cases.ini names them: they
// are listed, at any depth, so that nothing is left out without a word.
TEST_F(CaseDirectory, MatricesInSubfoldersNoManifestNamesAreListed) {
  matrix_file("top.mtx");
  fs::create_directories(dir_ / "extra" / "deeper");
  fs::create_directories(dir_ / "named");
  write_text(dir_ / "extra" / "a.mtx", kSmallMatrix);
  write_text(dir_ / "extra" / "deeper" / "b.mtx.gz", "gzip");
  write_text(dir_ / "extra" / "README.md", "not a matrix");
  write_text(dir_ / "named" / "c.mtx", kSmallMatrix);
  manifest("[c]\nfile = named/c.mtx\n");
  EXPECT_EQ(subfolder_matrix_files(dir_),
            (std::vector<fs::path>{dir_ / "extra" / "a.mtx", dir_ / "extra" / "deeper" / "b.mtx.gz"}));
  const std::vector<TestCase> cases = load_cases(dir_);
  ASSERT_EQ(cases.size(), 2U) << "the subfolders' files are not cases";
  EXPECT_EQ(cases[0].name, "c");
  EXPECT_EQ(cases[1].name, "top");

  // A link to a folder is not followed (it may lead anywhere).
  fs::create_directory_symlink(dir_ / "extra", dir_ / "link");
  EXPECT_EQ(subfolder_matrix_files(dir_).size(), 2U);
  EXPECT_TRUE(subfolder_matrix_files(dir_ / "top.mtx").empty()) << "a file has no subfolders";
}

TEST_F(CaseDirectory, DirectoryWithoutManifest) {
  matrix_file("b.mtx");
  matrix_file("a.mtx");
  const std::vector<TestCase> cases = load_cases(dir_);
  ASSERT_EQ(cases.size(), 2U);
  EXPECT_EQ(cases[0].name, "a");
  EXPECT_EQ(cases[1].name, "b");
}

TEST_F(CaseDirectory, SingleFileAndManifestPaths) {
  matrix_file("only.mtx");
  const std::vector<TestCase> single = load_cases(dir_ / "only.mtx");
  ASSERT_EQ(single.size(), 1U);
  EXPECT_EQ(single[0].name, "only");
  EXPECT_EQ(single[0].file, dir_ / "only.mtx");

  write_text(dir_ / "other.ini", "[gen]\ngenerator = diagonal n=4\n");
  const std::vector<TestCase> via_manifest = load_cases(dir_ / "other.ini");
  ASSERT_EQ(via_manifest.size(), 2U);
  EXPECT_EQ(via_manifest[0].name, "gen");
  EXPECT_EQ(via_manifest[1].name, "only");
}

TEST_F(CaseDirectory, CrlfLineEndsAndByteOrderMark) {
  manifest("\xEF\xBB\xBF[gen]\r\ngenerator = diagonal n=4\r\nwhy = crlf\r\n");
  const std::vector<TestCase> cases = load_cases(dir_);
  ASSERT_EQ(cases.size(), 1U);
  EXPECT_EQ(cases[0].name, "gen");
  EXPECT_EQ(cases[0].why, "crlf");
}

TEST_F(CaseDirectory, MissingPathIsAnError) {
  EXPECT_THROW(load_cases(dir_ / "nowhere"), CaseError);
  write_text(dir_ / "matrix.txt", kSmallMatrix);
  EXPECT_THROW(load_cases(dir_ / "matrix.txt"), CaseError);
}

struct ManifestErrorCase {
  const char* title;
  const char* manifest;
  int line;
  const char* says;
};

void PrintTo(const ManifestErrorCase& param, std::ostream* out) { *out << param.title; }

class ManifestError : public CaseDirectory, public ::testing::WithParamInterface<ManifestErrorCase> {};

TEST_P(ManifestError, NamesTheLineAndTheProblem) {
  matrix_file("present.mtx");
  const ManifestErrorCase& param = GetParam();
  manifest(param.manifest);
  try {
    load_cases(dir_);
    FAIL() << "expected a CaseError for: " << param.manifest;
  } catch (const CaseError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(manifest_line(param.line)), std::string::npos)
        << "expected " << manifest_line(param.line) << " in: " << what;
    EXPECT_NE(what.find(param.says), std::string::npos) << "expected \"" << param.says << "\" in: " << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    CaseDirectory, ManifestError,
    ::testing::Values(
        ManifestErrorCase{"unknown_key", "[a]\nfile = present.mtx\ncolour = red\n", 3, "unknown key \"colour\""},
        ManifestErrorCase{"bad_weight", "[a]\nfile = present.mtx\nweight = heavy\n", 3, "weight: expected"},
        ManifestErrorCase{"negative_weight", "[a]\nfile = present.mtx\nweight = -1\n", 3, "weight: expected"},
        ManifestErrorCase{"bad_visibility", "[a]\nfile = present.mtx\nvisibility = secret\n", 3,
                          "visibility: expected"},
        ManifestErrorCase{"bad_tolerance", "[a]\nfile = present.mtx\ntolerance_c = 0\n", 3, "tolerance_c: expected"},
        ManifestErrorCase{"bad_tags", "[a]\nfile = present.mtx\ntags = x,,y\n", 3, "tags: expected"},
        ManifestErrorCase{"duplicate_case", "[a]\nfile = present.mtx\n\n[a]\ngenerator = diagonal n=3\n", 4,
                          "already defined at line 1"},
        ManifestErrorCase{"duplicate_key", "[a]\nfile = present.mtx\nwhy = x\nwhy = y\n", 4,
                          "key \"why\" is already set in [a] at line 3"},
        ManifestErrorCase{"both_sources", "# both\n[a]\nfile = present.mtx\ngenerator = diagonal n=3\n", 2,
                          "found both"},
        ManifestErrorCase{"no_source", "[a]\nwhy = nothing to run\n[b]\nfile = present.mtx\n", 1, "found neither"},
        ManifestErrorCase{"no_source_last", "[b]\nfile = present.mtx\n[a]\nwhy = nothing\n", 3, "found neither"},
        ManifestErrorCase{"missing_file", "[a]\nfile = absent.mtx\n", 2, "\"absent.mtx\" not found"},
        ManifestErrorCase{"not_a_matrix_file", "[a]\nfile = cases.ini\n", 2, "expected a .mtx or .mtx.gz file"},
        ManifestErrorCase{"section_without_name", "[a]\nfile = present.mtx\n[  ]\n", 3, "expected a section name"},
        ManifestErrorCase{"unclosed_section", "[a\nfile = present.mtx\n", 1, "expected \"]\""},
        ManifestErrorCase{"bad_case_name", "[a b]\nfile = present.mtx\n", 1, "case name \"a b\""},
        ManifestErrorCase{"line_without_equals", "[a]\nfile = present.mtx\njust words\n", 3,
                          "expected \"key = value\""},
        ManifestErrorCase{"key_before_section", "why = early\n[a]\nfile = present.mtx\n", 1, "before any [case name]"},
        ManifestErrorCase{"empty_value", "[a]\nfile = present.mtx\nwhy =\n", 3, "expected a value"},
        ManifestErrorCase{"bad_generator", "[a]\ngenerator = stencil2d nx=8\n", 2, "missing key \"ny\""},
        ManifestErrorCase{"unknown_generator", "[a]\ngenerator = spiral n=3\n", 2, "unknown kind"},
        ManifestErrorCase{"dropped_file_clash", "[present]\ngenerator = diagonal n=3\n", 1,
                          "also the name of present.mtx"},
        ManifestErrorCase{"bad_upper_triangle", "[a]\nfile = present.mtx\nupper_triangle = both\n", 3,
                          "upper_triangle: expected reject or mirror, found \"both\""},
        ManifestErrorCase{"bad_allow_nonfinite", "[a]\nfile = present.mtx\nallow_nonfinite = yes\n", 3,
                          "allow_nonfinite: expected true or false, found \"yes\""},
        ManifestErrorCase{"reader_key_on_generator",
                          "[a]\ngenerator = diagonal n=3\n\nallow_nonfinite = true\n[b]\nfile = present.mtx\n", 4,
                          "key \"allow_nonfinite\" says how a Matrix Market file is read"}),
    [](const ::testing::TestParamInfo<ManifestErrorCase>& param_info) { return std::string(param_info.param.title); });

TEST_F(CaseDirectory, TwoDroppedFilesWithOneNameClash) {
  matrix_file("twin.mtx");
  matrix_file("twin.mtx.gz");
  try {
    load_cases(dir_);
    FAIL() << "expected a CaseError";
  } catch (const CaseError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("twin.mtx"), std::string::npos) << what;
    EXPECT_NE(what.find("case \"twin\""), std::string::npos) << what;
  }
}

TEST_F(CaseDirectory, DroppedFileWithUnusableName) {
  matrix_file("my matrix.mtx");
  try {
    load_cases(dir_);
    FAIL() << "expected a CaseError";
  } catch (const CaseError& error) {
    EXPECT_NE(std::string(error.what()).find("my matrix.mtx"), std::string::npos) << error.what();
  }
}

TEST_F(CaseDirectory, BinaryCsrRoundTrip) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const CsrMatrix a = test::random_csr(rng, {.rows = 700, .cols = 300, .empty_fraction = 0.2, .long_row = 0});
  save_csr_binary(dir_ / "a.csrbin", a, "label text");
  std::string label;
  expect_same_matrix(a, load_csr_binary(dir_ / "a.csrbin", &label));
  EXPECT_EQ(label, "label text");

  CsrMatrix empty;
  empty.rows = 3;
  empty.cols = 0;
  empty.row_ptr = {0, 0, 0, 0};
  save_csr_binary(dir_ / "empty.csrbin", empty);
  expect_same_matrix(empty, load_csr_binary(dir_ / "empty.csrbin", &label));
  EXPECT_EQ(label, "");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 2) << "no temporary file may remain";
}

TEST_F(CaseDirectory, BinaryCsrDamageIsDetected) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const CsrMatrix a = test::random_csr(rng, {.rows = 200, .cols = 150, .empty_fraction = 0.1, .long_row = 0});
  const fs::path path = dir_ / "a.csrbin";
  save_csr_binary(path, a, "spec");
  const std::string good = read_bytes(path);
  auto expect_rejected = [&](const std::string& bytes, const std::string& says) {
    write_text(path, bytes);
    try {
      load_csr_binary(path);
      ADD_FAILURE() << "damage not detected, expected: " << says;
    } catch (const CsrCacheError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(path.string()), std::string::npos) << what;
      EXPECT_NE(what.find(says), std::string::npos) << what;
    }
  };
  const std::size_t cut = std::uniform_int_distribution<std::size_t>(0, good.size() - 1)(rng);
  expect_rejected(good.substr(0, cut), cut < 40 ? "expected more data" : "bytes for the sizes");
  // One flipped bit anywhere past the header's sizes (label, arrays, checksum).
  std::string flipped = good;
  const std::size_t at = std::uniform_int_distribution<std::size_t>(40, good.size() - 1)(rng);
  flipped[at] = static_cast<char>(flipped[at] ^ (1 << std::uniform_int_distribution<int>(0, 7)(rng)));
  expect_rejected(flipped, "checksum");
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  expect_rejected(bad_magic, "magic");
  std::string other_version = good;
  other_version[8] = static_cast<char>(other_version[8] + 1);
  expect_rejected(other_version, "version");
  std::string grown = good;
  grown[24] = static_cast<char>(grown[24] + 1);  // cols stays plausible; rows/nnz would change the size
  expect_rejected(grown, "checksum");
  expect_rejected(good + "x", "bytes for the sizes");
}

TEST_F(CaseDirectory, GeneratorCaseIsCachedAndRegeneratedWhenDamaged) {
  TestCase test_case;
  test_case.name = "diag";
  test_case.generator = "diagonal  seed=5 n=40";
  const fs::path cache = dir_ / "cache";
  const CsrMatrix expected = gen::generate("diagonal n=40 seed=5");

  expect_same_matrix(expected, load_case_matrix(test_case, cache));
  const fs::path path = generator_cache_path(test_case.generator, cache);
  ASSERT_TRUE(fs::is_regular_file(path)) << path;
  EXPECT_EQ(path, generator_cache_path("diagonal n=40 seed=5", cache)) << "spacing and key order do not matter";
  EXPECT_NE(path, generator_cache_path("diagonal n=40 seed=6", cache));

  // A valid file with the right label is used as it is: the cache is read.
  std::string label;
  load_csr_binary(path, &label);
  const CsrMatrix stand_in = gen::generate("diagonal n=40 seed=77");
  save_csr_binary(path, stand_in, label);
  expect_same_matrix(stand_in, load_case_matrix(test_case, cache));

  // A truncated file is regenerated and rewritten.
  const std::string bytes = read_bytes(path);
  write_text(path, bytes.substr(0, bytes.size() / 2));
  expect_same_matrix(expected, load_case_matrix(test_case, cache));
  expect_same_matrix(expected, load_csr_binary(path));

  // A file holding another spec (a hash collision) is not trusted.
  save_csr_binary(path, stand_in, "diagonal n=40 seed=77");
  expect_same_matrix(expected, load_case_matrix(test_case, cache));

  // No cache directory: generated every time.
  expect_same_matrix(expected, load_case_matrix(test_case, {}));
}

// The reader's keys of a case reach the reader: a symmetric file storing
// both triangles, and one holding a NaN, load only with them.
TEST_F(CaseDirectory, ReaderKeysReachTheReader) {
  write_text(dir_ / "both_triangles.mtx",
             "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n1 2 -1\n3 3 5\n");
  write_text(dir_ / "with_nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1\n");
  manifest(
      "[both_triangles]\nfile = both_triangles.mtx\nupper_triangle = mirror\n\n"
      "[with_nan]\nfile = with_nan.mtx\nallow_nonfinite = true\n");
  std::vector<TestCase> cases = load_cases(dir_);
  ASSERT_EQ(cases.size(), 2U);
  EXPECT_EQ(cases[0].read_options.upper_triangle, UpperTriangle::kMirror);
  EXPECT_FALSE(cases[0].read_options.allow_nonfinite);
  EXPECT_TRUE(cases[1].read_options.allow_nonfinite);
  EXPECT_EQ(cases[1].read_options.upper_triangle, UpperTriangle::kReject);

  const CsrMatrix both = load_case_matrix(cases[0], {});
  EXPECT_EQ(both.row_ptr, (std::vector<index_t>{0, 2, 3, 4}));
  EXPECT_EQ(both.col_idx, (std::vector<index_t>{0, 1, 0, 2}));
  EXPECT_EQ(both.values, (std::vector<value_t>{2, -1, -1, 5}));
  const CsrMatrix nan = load_case_matrix(cases[1], {});
  ASSERT_EQ(nan.values.size(), 2U);
  EXPECT_TRUE(std::isnan(nan.values[0]));

  for (TestCase& test_case : cases) {
    test_case.read_options = {};
    EXPECT_THROW(load_case_matrix(test_case, {}), MatrixMarketError) << test_case.name << " without its key";
  }
}

TEST_F(CaseDirectory, FileCaseReadsItsMatrix) {
  matrix_file("small.mtx");
  const std::vector<TestCase> cases = load_cases(dir_);
  ASSERT_EQ(cases.size(), 1U);
  const CsrMatrix a = load_case_matrix(cases[0], dir_ / "cache");
  EXPECT_EQ(a.rows, 2);
  EXPECT_EQ(a.cols, 3);
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 1, 2}));
  EXPECT_EQ(a.col_idx, (std::vector<index_t>{0, 2}));
  EXPECT_EQ(a.values, (std::vector<value_t>{1.5F, -2.0F}));
  EXPECT_FALSE(fs::exists(dir_ / "cache")) << "file cases are not cached";
}

}  // namespace
}  // namespace spmv
