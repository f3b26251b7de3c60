// spmv-grade --gpu-cache DIR (rows/reference_memo.hpp): the reference's
// windows kept by one grading serve the next on the same GPU (here: the
// host path's), within their age and drift bounds; a window that is not
// one of the grader's is timed again, with a word.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "grade_end_to_end.hpp"

namespace spmv::test {
namespace {

class GpuCache : public GradeEndToEnd {
 protected:
  void SetUp() override {
    GradeEndToEnd::SetUp();
    // A case whose reference launch is long enough to be scored by speed
    // on the CPU (the others are correctness-only).
    write_case(cases_dir(), "long_rows", gen::uniform_random(3000, 3000, 24, seed_ + 2));
  }

  [[nodiscard]] std::filesystem::path cache() const { return scratch_ / "gpu-cache"; }

  // The reference graded as a submission with the cache, into
  // output_dir(), which is emptied first.
  GradeResult grade_with_cache() {
    std::filesystem::remove_all(output_dir());
    return grade(kHostReference, {"--gpu-cache", cache().string(), "--kernel", "csr_scalar,coo"});
  }

  [[nodiscard]] std::vector<std::filesystem::path> kept_files() const {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(cache())) {
      if (entry.path().extension() == ".reference") files.push_back(entry.path());
    }
    return files;
  }

  // Each kept file's lines, `change`d, written back.
  template <typename Change>
  void rewrite_kept(Change change) {
    for (const auto& file : kept_files()) {
      std::istringstream text(read_text(file));
      std::ostringstream out;
      for (std::string line; std::getline(text, line);) out << change(line) << '\n';
      std::ofstream(file) << out.str();
    }
  }

  static bool took_kept(const grade::Json& row) {
    return row.contains("phase_ms") && row.at("phase_ms").contains("reference_kept");
  }
  static bool scored(const grade::Json& row) {
    return row.at("correctness_only").get<std::string>().empty() && verdict_of(row) == "pass";
  }
  static double part(const grade::Json& row, const char* name) {
    return row.at("timing_parts_ms").at(name).get<double>();
  }
};

TEST_F(GpuCache, ASecondGradingTakesTheWindowsTheFirstKept) {
  ASSERT_EQ(grade_with_cache().exit_code, 0) << context_;
  const auto first = rows();
  ASSERT_EQ(first.size(), 6U) << context_;
  int scored_rows = 0;
  for (const auto& row : first) {
    EXPECT_EQ(verdict_of(row), "pass") << row.dump() << context_;
    EXPECT_FALSE(took_kept(row)) << "the first grading had nothing kept to take\n" << row.dump();
    scored_rows += scored(row) ? 1 : 0;
  }
  ASSERT_GE(scored_rows, 1) << "long_rows is scored by speed on the CPU\n" << context_;
  EXPECT_EQ(kept_files().size(), first.size()) << "a window kept for each row";

  ASSERT_EQ(grade_with_cache().exit_code, 0) << context_;
  for (const auto& row : rows()) {
    EXPECT_EQ(verdict_of(row), "pass") << row.dump() << context_;
    EXPECT_TRUE(took_kept(row)) << "the second grading took the kept window\n" << row.dump();
    if (!scored(row)) continue;
    ASSERT_TRUE(row.at("reference_ms").is_number()) << row.dump();
    // Its reference's window after was timed, and compared with the kept one.
    EXPECT_GT(part(row, "reference_after"), 0) << row.dump();
    EXPECT_GT(part(row, "reference_kept"), 0) << row.dump();
    EXPECT_GE(part(row, "reference_kept_age"), 0) << row.dump();
  }
}

TEST_F(GpuCache, AKeptWindowFarFromTheWindowAfterIsSetAside) {
  ASSERT_EQ(grade_with_cache().exit_code, 0) << context_;
  // Every kept burst made ten times longer than it was: a reference ten
  // times slower than on the GPU (here, the CPU) now, far beyond what a
  // loaded machine changes between two gradings. (Shorter, it would make
  // the row correctness-only, as a window before of its own would.)
  rewrite_kept([](const std::string& line) {
    if (line.rfind("bursts_ms ", 0) != 0) return line;
    std::istringstream in(line.substr(10));
    std::ostringstream out;
    out.precision(17);
    out << "bursts_ms";
    for (double ms = 0; in >> ms;) out << ' ' << ms * 10;
    return out.str();
  });
  ASSERT_EQ(grade_with_cache().exit_code, 0) << context_;
  int scored_rows = 0;
  for (const auto& row : rows()) {
    EXPECT_EQ(verdict_of(row), "pass") << row.dump() << context_;
    if (!scored(row)) continue;
    ++scored_rows;
    ASSERT_TRUE(took_kept(row)) << row.dump();
    const double kept = part(row, "reference_kept");
    const double before = part(row, "reference_before");
    const double after = part(row, "reference_after");
    // Set aside: the window before is a second one of the row's own, near
    // the window after, not the kept one.
    EXPECT_GT(kept, 2 * after) << row.dump();
    EXPECT_LT(before, 2 * after) << row.dump();
    EXPECT_LT(row.at("reference_ms").get<double>(), kept / 2) << row.dump();
  }
  EXPECT_GE(scored_rows, 1) << context_;
}

TEST_F(GpuCache, AWindowThatIsNotTheGradersOrTooOldIsTimedAgain) {
  ASSERT_EQ(grade_with_cache().exit_code, 0) << context_;
  const auto files = kept_files();
  ASSERT_GE(files.size(), 2U);
  // One damaged, the others timed an hour ago.
  rewrite_kept([](const std::string& line) {
    if (line.rfind("at ", 0) != 0) return line;
    std::ostringstream out;
    out.precision(17);
    out << "at " << std::stod(line.substr(3)) - 3600;
    return out.str();
  });
  std::ofstream(files.front()) << "not a window\n";
  const GradeResult again = grade_with_cache();
  ASSERT_EQ(again.exit_code, 0) << context_;
  EXPECT_NE(again.err.find(files.front().string() + ": not a reference window"), std::string::npos) << context_;
  for (const auto& row : rows()) {
    EXPECT_EQ(verdict_of(row), "pass") << row.dump() << context_;
    EXPECT_FALSE(took_kept(row)) << "nothing kept served\n" << row.dump();
  }
  // Each timed again, and kept afresh: a third grading takes them all.
  ASSERT_EQ(grade_with_cache().exit_code, 0) << context_;
  for (const auto& row : rows()) EXPECT_TRUE(took_kept(row)) << row.dump();
}

TEST_F(GpuCache, AFolderWhereNoWindowCanBeWrittenIsSaidOnceAndTheGradingGoesOn) {
  ASSERT_EQ(grade_with_cache().exit_code, 0) << context_;
  // Each kept file replaced by a folder holding a file: it cannot be read
  // as a window, nor replaced by one (root writes anywhere else).
  const auto files = kept_files();
  ASSERT_GE(files.size(), 2U);
  for (const auto& file : files) {
    std::filesystem::remove(file);
    std::filesystem::create_directories(file);
    std::ofstream(file / "in the way") << "x\n";
  }
  const GradeResult again = grade_with_cache();
  ASSERT_EQ(again.exit_code, 0) << context_;
  for (const auto& row : rows()) EXPECT_EQ(verdict_of(row), "pass") << row.dump() << context_;
  const std::string said = "the reference's windows cannot be kept for the gradings after";
  const auto first = again.err.find(said);
  ASSERT_NE(first, std::string::npos) << context_;
  EXPECT_EQ(again.err.find(said, first + 1), std::string::npos) << "said once\n" << context_;
}

}  // namespace
}  // namespace spmv::test
