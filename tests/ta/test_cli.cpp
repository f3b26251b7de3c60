// spmv-cases run as a subprocess on case folders built in temporary
// directories: the table, the problems with their file and line, the exit
// statuses and the pictures inspect writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "options.hpp"
#include "random_csr.hpp"
#include "spmv/core/cases.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/matrix_market.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv::ta {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = SPMV_SOURCE_DIR;

struct RunResult {
  int status = -1;
  std::string out;
  std::string err;
};

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

class SpmvCases : public testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    dir_ =
        fs::temp_directory_path() / ("spmv-cases-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs spmv-cases with `args` (already shell-quoted where needed).
  RunResult run(const std::string& args) const { return run_with("", args); }

  // The same with `environment` ("NAME=value ...", or none) set for the program.
  RunResult run_with(const std::string& environment, const std::string& args) const {
    const fs::path out = dir_ / "stdout.txt";
    const fs::path err = dir_ / "stderr.txt";
    const std::string command = "env " + environment + " '" + std::string(SPMV_CASES_EXE) + "' " + args + " >'" +
                                out.string() + "' 2>'" + err.string() + "'";
    const int raw = std::system(command.c_str());
    RunResult result;
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = read_text(out);
    result.err = read_text(err);
    return result;
  }

  fs::path make_dir(const std::string& name) const {
    fs::create_directories(dir_ / name);
    return dir_ / name;
  }

  std::string cache_option() const { return "--cache-dir '" + (dir_ / "cache").string() + "'"; }

  fs::path dir_;
};

// A random matrix written as a case file; returns it for the expected numbers.
CsrMatrix write_random_case(const fs::path& path, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto rows = std::uniform_int_distribution<index_t>(20, 300)(rng);
  const auto cols = std::uniform_int_distribution<index_t>(20, 300)(rng);
  const CsrMatrix a = gen::with_empty_rows(gen::uniform_random(rows, cols, 5, rng()), 0.2, rng());
  write_matrix_market(path, a);
  return a;
}

// The table row of a case: its line of stdout.
std::string row_of(const std::string& out, const std::string& name) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name + " ", 0) == 0) return line;
  }
  return {};
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

void expect_no_gpu_line_once(const std::string& out) {
  if (cuda_device_count() == 0) {
    EXPECT_EQ(occurrences(out, "no GPU: reference kernels not run"), 1u) << out;
  } else {
    EXPECT_EQ(occurrences(out, "no GPU"), 0u) << out;
  }
}

TEST_F(SpmvCases, PublicCasesValidate) {
  const fs::path public_cases = kSourceDir / "testcases" / "public";
  if (!fs::is_directory(public_cases)) GTEST_SKIP() << public_cases << " does not exist yet";
  const RunResult result = run("validate '" + public_cases.string() + "' --cache-dir '" SPMV_BINARY_DIR "/cache'");
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  expect_no_gpu_line_once(result.out);
  for (const auto& test_case : load_cases(public_cases)) {
    const auto words = words_of(row_of(result.out, test_case.name));
    ASSERT_FALSE(words.empty()) << "no table row for " << test_case.name << "\n" << result.out;
    EXPECT_EQ(std::count(words.begin(), words.end(), "FAIL"), 0) << test_case.name;
  }
  EXPECT_NE(result.out.find("no problem found"), std::string::npos) << result.out;
}

TEST_F(SpmvCases, CleanFolderShowsItsStatisticsAndExitsZero) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const fs::path cases = make_dir("clean");
  const CsrMatrix a = write_random_case(cases / "random_one.mtx", seed);
  std::ofstream(cases / "cases.ini") << "[grid]\ngenerator = stencil2d nx=9 ny=7 seed=2\nweight = 2\n";

  const RunResult result = run("validate '" + cases.string() + "' " + cache_option());
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  expect_no_gpu_line_once(result.out);
  const auto words = words_of(row_of(result.out, "random_one"));
  ASSERT_GE(words.size(), 11u) << result.out;
  EXPECT_EQ(words[1], std::to_string(a.rows));
  EXPECT_EQ(words[2], std::to_string(a.cols));
  EXPECT_EQ(words[3], std::to_string(a.nnz()));
  const auto grid = words_of(row_of(result.out, "grid"));
  ASSERT_GE(grid.size(), 4u) << result.out;
  EXPECT_EQ(grid[1], "63");
  EXPECT_EQ(grid[3], std::to_string(gen::stencil_2d_5pt(9, 7, 2).nnz()));
  EXPECT_NE(result.out.find("no problem found"), std::string::npos);
}

TEST_F(SpmvCases, InvalidFilesAreReportedWithFileAndLineAndTheRestIsChecked) {
  const fs::path invalid = kSourceDir / "testcases" / "invalid";
  const fs::path cases = make_dir("invalid-like");
  for (const auto& entry : fs::directory_iterator(invalid)) {
    if (entry.path().extension() == ".mtx") fs::copy_file(entry.path(), cases / entry.path().filename());
  }
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const CsrMatrix good = write_random_case(cases / "zz_good.mtx", seed);

  const RunResult result = run("validate '" + cases.string() + "' " + cache_option());
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  // Every file of expected_errors.txt: "<file> <line> <text>".
  std::ifstream expected(invalid / "expected_errors.txt");
  std::size_t checked = 0;
  for (std::string line; std::getline(expected, line);) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields(line);
    std::string file;
    std::int64_t line_number = 0;
    std::string text;
    fields >> file >> line_number;
    std::getline(fields >> std::ws, text);
    const std::string location =
        (cases / file).string() + (line_number > 0 ? ":" + std::to_string(line_number) : std::string()) + ": ";
    EXPECT_NE(result.err.find(location), std::string::npos) << "no problem at " << location << "\n" << result.err;
    EXPECT_NE(result.err.find(text), std::string::npos) << text;
    EXPECT_EQ(result.out.find(location), std::string::npos) << "problems go to stderr only\n" << result.out;
    ++checked;
  }
  EXPECT_GT(checked, 10u) << "expected_errors.txt lists the invalid files";
  const auto words = words_of(row_of(result.out, "zz_good"));
  ASSERT_GE(words.size(), 4u) << "the good case after the bad ones is still checked\n" << result.out;
  EXPECT_EQ(words[3], std::to_string(good.nnz()));
}

TEST_F(SpmvCases, BrokenManifestNamesItsLineAndOtherFoldersAreStillChecked) {
  const fs::path broken = make_dir("broken");
  std::ofstream(broken / "cases.ini") << "# weights\n[heavy]\nweight = very\ngenerator = diagonal n=5\n";
  const fs::path fine = make_dir("fine");
  std::ofstream(fine / "cases.ini") << "[diag]\ngenerator = diagonal n=17 seed=3\n";

  const RunResult result = run("validate '" + broken.string() + "' '" + fine.string() + "' " + cache_option());
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find((broken / "cases.ini").string() + ":3"), std::string::npos) << result.err;
  const auto words = words_of(row_of(result.out, "diag"));
  ASSERT_GE(words.size(), 4u) << result.out;
  EXPECT_EQ(words[3], "17");
}

TEST_F(SpmvCases, DuplicateCaseNamesAcrossFoldersAreAProblem) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const fs::path first = make_dir("first");
  const fs::path second = make_dir("second");
  write_random_case(first / "same.mtx", seed);
  write_random_case(second / "same.mtx", seed + 1);
  const RunResult result = run("validate '" + first.string() + "' '" + second.string() + "' " + cache_option());
  EXPECT_EQ(result.status, kExitProblems);
  EXPECT_NE(result.err.find("case same is also in " + first.string()), std::string::npos) << result.err;
}

TEST_F(SpmvCases, RefusedFormatIsNotApplicableWithItsReason) {
  // An arrow: one row as long as the matrix, so ELL pads every row to n.
  const fs::path cases = make_dir("arrow");
  std::ofstream(cases / "cases.ini") << "[arrow]\ngenerator = arrow n=2000 seed=4\n";
  const RunResult result = run("validate '" + cases.string() + "' --format-limit-mib 1 " + cache_option());
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  const auto words = words_of(row_of(result.out, "arrow"));
  EXPECT_NE(std::find(words.begin(), words.end(), "n/a"), words.end()) << result.out;
  EXPECT_NE(result.out.find("arrow: ell: n/a (ELL of 2000 rows"), std::string::npos) << result.out;
}

TEST_F(SpmvCases, UsageErrorsAreOneLineNamingTheOptionWithStatus2) {
  const struct {
    std::string args;
    std::string named;
  } cases[] = {
      {"inspect --bogus x.mtx", "--bogus"},
      {"inspect x.mtx --size 3", "--size"},
      {"inspect x.mtx --size many", "--size"},
      {"inspect x.mtx --format gif", "--format"},
      {"inspect x.mtx --spec 'diagonal n=3'", "--spec"},
      {"inspect --spec 'nosuchkind n=3'", "--spec"},
      {"inspect x.mtx --upper-triangle both", "--upper-triangle"},
      {"inspect --spec 'diagonal n=3' --allow-nonfinite", "--allow-nonfinite"},
      {"validate --seed -4 d", "--seed"},
      {"validate d --format-limit-mib 0", "--format-limit-mib"},
      {"validate", "validate"},
      {"frobnicate", "frobnicate"},
      {"", "command"},
  };
  for (const auto& c : cases) {
    const RunResult result = run(c.args);
    EXPECT_EQ(result.status, kExitUsage) << c.args;
    EXPECT_EQ(occurrences(result.err, "\n"), 1u) << c.args << ": " << result.err;
    EXPECT_NE(result.err.find(c.named), std::string::npos) << c.args << ": " << result.err;
    EXPECT_TRUE(result.out.empty()) << c.args;
  }
}

TEST_F(SpmvCases, HelpHasExamples) {
  for (const std::string args : {"--help", "validate --help", "inspect --help"}) {
    const RunResult result = run(args);
    EXPECT_EQ(result.status, kExitOk) << args;
    EXPECT_NE(result.out.find("Examples:"), std::string::npos) << args;
    EXPECT_NE(result.out.find("spmv-cases"), std::string::npos) << args;
  }
}

TEST_F(SpmvCases, InspectPrintsStatisticsAndWritesThePicturesItNames) {
  const fs::path file = dir_ / "kit.mtx";
  std::ofstream(file) << "%%MatrixMarket matrix coordinate real general\n"
                         "4 4 7\n1 1 3\n1 3 1\n3 2 2\n3 3 4\n3 4 1\n4 1 1\n4 4 1\n";
  const fs::path prefix = dir_ / "pictures" / "kit";
  const RunResult result =
      run("inspect '" + file.string() + "' --format both --size 64 --output '" + prefix.string() + "'");
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  EXPECT_NE(result.out.find("min 0, mean 1.75, max 3"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("padding ratio 1.71"), std::string::npos) << result.out;
  for (const char* suffix : {"-spy.png", "-rows.png", "-spy.svg", "-rows.svg"}) {
    const fs::path path = prefix.string() + suffix;
    EXPECT_NE(result.out.find("wrote " + path.string() + "\n"), std::string::npos) << path;
    EXPECT_TRUE(fs::is_regular_file(path)) << path;
  }
  const std::string png = read_text(prefix.string() + "-spy.png");
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(read_text(prefix.string() + "-rows.svg").rfind("<?xml", 0), 0u);
}

TEST_F(SpmvCases, InspectOfAnInvalidFileNamesFileAndLine) {
  const fs::path file = kSourceDir / "testcases" / "invalid" / "row_out_of_range.mtx";
  const RunResult result = run("inspect '" + file.string() + "' --format none");
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find("problem: " + file.string() + ":"), std::string::npos) << result.err;
}

// A folder that does not exist is one problem, counted as such in the
// summary line, and listed on stderr.
TEST_F(SpmvCases, ValidateOfAMissingFolderCountsItsProblem) {
  const fs::path missing = dir_ / "no-such-folder";
  const RunResult result = run("validate '" + missing.string() + "' " + cache_option());
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.out.find("0 cases checked, 0 with problems; 1 problem in all, listed on stderr\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.err.find("Problems (1):\n  " + missing.string() + ": no such case directory or file"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.out.find("Problems"), std::string::npos) << result.out;
}

TEST_F(SpmvCases, InspectOutputMayNameAFolder) {
  const fs::path file = dir_ / "kit.mtx";
  std::ofstream(file) << "%%MatrixMarket matrix coordinate real general\n"
                         "3 3 3\n1 1 3\n2 3 1\n3 2 2\n";
  // A folder to be made: the trailing '/' says it is one.
  const fs::path fresh = dir_ / "pictures";
  RunResult result = run("inspect '" + file.string() + "' --size 32 --output '" + fresh.string() + "/'");
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  for (const char* name : {"kit-spy.png", "kit-rows.png"}) {
    EXPECT_TRUE(fs::is_regular_file(fresh / name)) << name << "\n" << result.out;
    EXPECT_NE(result.out.find("wrote " + (fresh / name).string() + "\n"), std::string::npos) << result.out;
  }
  EXPECT_FALSE(fs::exists(fresh / "-spy.png"));
  // An existing folder, without the '/'.
  const fs::path existing = dir_ / "existing";
  fs::create_directories(existing);
  result = run("inspect '" + file.string() + "' --size 32 --format svg --output '" + existing.string() + "'");
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  EXPECT_TRUE(fs::is_regular_file(existing / "kit-spy.svg")) << result.out;
  EXPECT_FALSE(fs::exists(dir_ / "existing-spy.svg"));
  // Anything else is a prefix.
  result = run("inspect '" + file.string() + "' --size 32 --output '" + (dir_ / "deeper" / "matrix").string() + "'");
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "deeper" / "matrix-spy.png")) << result.out;
}

TEST_F(SpmvCases, InspectOutputThatCannotBeMadeIsAProblemInPlainWords) {
  const fs::path file = dir_ / "kit.mtx";
  std::ofstream(file) << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 3\n";
  const fs::path blocker = dir_ / "a-file";
  std::ofstream(blocker) << "not a folder\n";
  const fs::path output = blocker / "sub" / "pictures";
  const RunResult result = run("inspect '" + file.string() + "' --output '" + output.string() + "'");
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find("problem: --output " + output.string() + ": cannot create the folder " +
                            (blocker / "sub").string() + ": "),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("filesystem error"), std::string::npos) << result.err;
  EXPECT_EQ(occurrences(result.err, "\n"), 1u) << result.err;
}

// The reader's options, as the cases.ini keys: a symmetric file storing
// both triangles, and one with a NaN.
TEST_F(SpmvCases, InspectTakesTheReadersOptions) {
  const fs::path both = dir_ / "both.mtx";
  std::ofstream(both) << "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n1 2 -1\n3 3 5\n";
  RunResult result = run("inspect '" + both.string() + "' --format none");
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find(both.string() + ":5: expected an entry in the lower triangle"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("upper_triangle = mirror"), std::string::npos) << result.err;
  result = run("inspect '" + both.string() + "' --format none --upper-triangle mirror");
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  EXPECT_NE(result.out.find("nonzeros     4\n"), std::string::npos) << result.out;

  const fs::path nan = dir_ / "nan.mtx";
  std::ofstream(nan) << "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1\n";
  result = run("inspect '" + nan.string() + "' --format none");
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find("allow_nonfinite = true"), std::string::npos) << result.err;
  result = run("inspect '" + nan.string() + "' --format none --allow-nonfinite");
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
}

// A size line with a typo (2e9 x 2e9, three entries) grew validate past
// 15 GB or ended in a bare std::bad_alloc: it is a problem naming the file
// and the size line, found before anything of that size is allocated.
TEST_F(SpmvCases, ValidateRefusesAMistypedSizeLineAtOnce) {
  const fs::path folder = make_dir("term-cases");
  std::ofstream(folder / "typo.mtx") << "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 3\n"
                                        "1 1 1\n2 2 1\n3 3 1\n";
  std::ofstream(folder / "cases.ini") << "[huge]\ngenerator = empty rows=2000000000 cols=2000000000\n";
  std::ofstream(folder / "fine.mtx") << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n";
  const auto started = std::chrono::steady_clock::now();
  const RunResult result =
      run_with("SPMV_MEMORY_BYTES=16G", "validate '" + folder.string() + "' --no-kernels " + cache_option());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find((folder / "typo.mtx").string() +
                            ":2: expected a size this machine can hold, found '2000000000 2000000000 3'"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find((folder / "cases.ini").string() + ":1: generator spec"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("too large for this machine"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("bad_alloc"), std::string::npos) << result.err;
  EXPECT_FALSE(words_of(row_of(result.out, "fine")).empty()) << "the other cases are still checked\n" << result.out;
}

// A matrix the loader does not read would be left out of every grading
// without a word: validate calls it a problem.
TEST_F(SpmvCases, ValidateNamesAMatrixNoCaseReads) {
  const fs::path folder = make_dir("with-stray");
  std::ofstream(folder / "good.mtx") << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n";
  std::ofstream(folder / "big.mtx.bz2") << "compressed with bzip2, which the reader does not read\n";
  const RunResult result = run("validate '" + folder.string() + "' --no-kernels " + cache_option());
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find((folder / "big.mtx.bz2").string() + ": not read"), std::string::npos) << result.err;
}

// Matrices in a subfolder were graded as nothing, with "no problem found":
// validate calls them a problem and says how to make them cases.
TEST_F(SpmvCases, ValidateNamesAMatrixInASubfolder) {
  const fs::path folder = make_dir("with-subfolder");
  std::ofstream(folder / "good.mtx") << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n";
  fs::create_directories(folder / "more");
  std::ofstream(folder / "more" / "other.mtx") << "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 1\n";
  const RunResult result = run("validate '" + folder.string() + "' --no-kernels " + cache_option());
  EXPECT_EQ(result.status, kExitProblems) << result.out << result.err;
  EXPECT_NE(result.err.find((folder / "more" / "other.mtx").string() + ": not read: in a subfolder"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("file = more/other.mtx"), std::string::npos) << "the fix\n" << result.err;

  // Named in cases.ini, it is a case: no problem.
  std::ofstream(folder / "cases.ini") << "[other]\nfile = more/other.mtx\n";
  const RunResult named = run("validate '" + folder.string() + "' --no-kernels " + cache_option());
  EXPECT_EQ(named.status, kExitOk) << named.out << named.err;
  EXPECT_FALSE(words_of(row_of(named.out, "other")).empty()) << named.out;
}

// Progress of a long case goes to stderr when it is not a terminal too: a
// line per interval (SPMV_PROGRESS_SECONDS here; 15 s by default) saying
// which case and what it is doing.
TEST_F(SpmvCases, ValidateSaysWhatALongCaseIsDoing) {
  const fs::path folder = make_dir("slow");
  std::ofstream(folder / "cases.ini") << "[big]\ngenerator = random rows=400000 cols=400000 per_row=12 seed=3\n";
  const RunResult result =
      run_with("SPMV_PROGRESS_SECONDS=0.02", "validate '" + folder.string() + "' --no-kernels " + cache_option());
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  EXPECT_NE(result.err.find("spmv-cases: case big (1 of 1): generating"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("\r"), std::string::npos) << "no terminal control in a log";
  EXPECT_EQ(result.out.find("spmv-cases: case"), std::string::npos) << "progress stays off the table\n" << result.out;
}

TEST_F(SpmvCases, InspectOfASpecNeedsNoFile) {
  const RunResult result = run("inspect --spec 'banded n=300 half_bandwidth=2 seed=5' --format none " + cache_option());
  EXPECT_EQ(result.status, kExitOk) << result.out << result.err;
  EXPECT_NE(result.out.find("min 3, mean"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("max 5"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("wrote"), std::string::npos) << "--format none writes nothing";
}

}  // namespace
}  // namespace spmv::ta
