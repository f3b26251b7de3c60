// What a new instructor or TA gets wrong, and what spmv-grade must tell
// them: a partial policy file, a typo in a policy, a plugin path that does
// not exist or does not load, broken cases. Each test runs the grader as a
// subprocess (host path, no GPU) and checks its exit status, its messages
// and its reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "grade_end_to_end.hpp"

namespace spmv::test {
namespace {

using grade::Json;

class Newcomer : public GradeEndToEnd {
 protected:
  std::filesystem::path policy(const std::string& text) {
    const auto path = scratch_ / "my-policy.ini";
    write_text(path, text);
    return path;
  }
};

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
  return count;
}

// The host reference has a seventh kernel, sell, which no policy grades.
TEST_F(Newcomer, PolicyWithoutKernelsSectionGradesTheSixKernels) {
  const auto run = grade(kHostReference, {"--policy", policy("total_points = 100\n").string(), "--list"});
  ASSERT_EQ(run.exit_code, 0) << context_;
  EXPECT_NE(run.out.find("Kernels (6):"), std::string::npos) << context_;
  EXPECT_EQ(run.out.find("  sell  "), std::string::npos) << "a kernel outside the default policy\n" << context_;

  const auto graded =
      grade(kHostReference, {"--policy", policy("correctness_share = 1\n").string(), "--case", "tiny_wide", "--quiet"});
  ASSERT_EQ(graded.exit_code, 0) << context_;
  const Json report = results();
  EXPECT_EQ(report.at("tests").size(), 6U) << context_;
  EXPECT_NEAR(report.at("score").get<double>(), 100, 0.05) << "a correct submission earns every point\n" << context_;
}

TEST_F(Newcomer, UnknownKernelInThePolicyIsBlamedOnThePolicyFile) {
  const auto file = policy("total_points = 100\n[kernels]\ncoo = 1\nnosuch = 1\n");
  const auto run = grade(kHostReference, {"--policy", file.string(), "--list"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find(file.string() + ":4: kernels.nosuch: "), std::string::npos) << context_;
  EXPECT_NE(run.err.find("no kernel named nosuch"), std::string::npos) << context_;
  EXPECT_EQ(run.err.find("--kernel"), std::string::npos) << "nobody passed --kernel\n" << context_;
  EXPECT_EQ(count_of(run.err, "\n"), 1U) << context_;
}

TEST_F(Newcomer, UnknownCaseInThePolicyIsAnError) {
  const auto file = policy("# course policy\n[case.tiny_wide]\nweight = 2\n[case.nosuchcase]\nweight = 2\n");
  const auto run = grade(kHostReference, {"--policy", file.string(), "--list"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find(file.string() + ":5: case.nosuchcase.weight: no case named nosuchcase in --cases " +
                         cases_dir().string()),
            std::string::npos)
      << context_;
  EXPECT_NE(run.err.find("mixed_rows, tiny_wide"), std::string::npos) << "the cases are listed\n" << context_;

  // The check sees every case folder, not only the cases --case selects.
  const auto known = policy("[case.mixed_rows]\nweight = 3\n");
  const auto selected = grade(kHostReference, {"--policy", known.string(), "--case", "tiny_wide", "--kernel", "coo"});
  EXPECT_EQ(selected.exit_code, 0) << context_;
}

// A --submission naming nothing is the caller's mistake: a usage error, no
// report that would read as a student's zero.
TEST_F(Newcomer, MissingSubmissionIsAUsageError) {
  const auto missing = scratch_ / "build" / "libspmv_alice.so";
  auto run = grade(missing, {"--quiet"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("--submission " + missing.string() + ": no such file"), std::string::npos) << context_;
  EXPECT_EQ(count_of(run.err, "\n"), 1U) << context_;
  EXPECT_FALSE(std::filesystem::exists(output_dir() / "results.json")) << context_;

  // The submission's folder instead of its plugin.
  std::filesystem::create_directories(scratch_ / "alice");
  run = grade(scratch_ / "alice", {"--quiet"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("is a folder"), std::string::npos) << context_;
  EXPECT_NE(run.err.find("tools/build-submission"), std::string::npos) << context_;
}

// A file that exists but does not load is the student's problem: every row
// is a load error, and stderr says so even with --quiet.
TEST_F(Newcomer, UnloadableSubmissionIsAVerdictAndSaidOnStderr) {
  const auto broken = scratch_ / "libspmv_broken.so";
  write_text(broken, "not a shared library\n");
  const auto run = grade(broken, {"--quiet"});
  EXPECT_EQ(run.exit_code, 1) << context_;
  EXPECT_NE(run.err.find("the submission " + broken.string() + " cannot be loaded"), std::string::npos) << context_;
  EXPECT_NE(run.err.find("load error"), std::string::npos) << context_;
  const auto all_rows = rows();
  ASSERT_EQ(all_rows.size(), 12U) << context_;
  for (const auto& row : all_rows) EXPECT_EQ(verdict_of(row), "load_error") << context_;
}

// A broken case: the score line alone would hide it, so the console (with
// or without --quiet) and the top of summary.md say that cases failed and
// why the exit status is 3.
TEST_F(Newcomer, CaseErrorsAreSaidProminently) {
  write_text(cases_dir() / "broken.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1.0\n");
  for (const bool quiet : {false, true}) {
    const auto run = grade(kHostReference, quiet ? std::vector<std::string>{"--kernel", "coo,ell", "--quiet"}
                                                 : std::vector<std::string>{"--kernel", "coo,ell"});
    EXPECT_EQ(run.exit_code, 3) << context_;
    const auto note = run.out.find("SETUP PROBLEM");
    ASSERT_NE(note, std::string::npos) << context_;
    const std::string line = run.out.substr(note, run.out.find('\n', note) - note);
    EXPECT_NE(line.find("1 case could not be used (broken: case error)"), std::string::npos) << line;
    EXPECT_NE(line.find("exits with status 3"), std::string::npos) << line;
  }
  const std::string summary = read_text(output_dir() / "summary.md");
  const auto note = summary.find("SETUP PROBLEM");
  ASSERT_NE(note, std::string::npos) << summary;
  EXPECT_LT(note, summary.find("| Kernel")) << "the note comes before the table\n" << summary;
}

// What students see of a case error (results.json) names the case, never
// the folder it lies in; the instructor's console and logs keep the path.
TEST_F(Newcomer, CaseErrorsShowStudentsNoFolderPath) {
  write_text(cases_dir() / "broken.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1.0\n");
  const auto run = grade(kHostReference, {"--kernel", "coo", "--case", "broken"});
  EXPECT_EQ(run.exit_code, 3) << context_;
  const Json report = results();
  ASSERT_EQ(report.at("tests").size(), 1U) << context_;
  const std::string output = report.at("tests")[0].at("output").get<std::string>();
  EXPECT_NE(output.find("case broken: broken.mtx:3: "), std::string::npos) << output;
  EXPECT_EQ(read_text(output_dir() / "results.json").find(scratch_.path().string()), std::string::npos)
      << read_text(output_dir() / "results.json");
  EXPECT_NE(run.out.find(cases_dir().string() + "/broken.mtx:3: "), std::string::npos) << "the console keeps the path\n"
                                                                                       << context_;
  EXPECT_NE(rows().at(0).at("summary").get<std::string>().find(cases_dir().string()), std::string::npos) << context_;
}

// The manifest keys for the Matrix Market reader reach the grader: a
// symmetric file storing both triangles (upper_triangle = mirror) and one
// holding NaN and infinities (allow_nonfinite = true) are graded, and the
// host reference passes on them; without the keys they are case errors.
TEST_F(Newcomer, ReaderKeysOfACaseReachTheGrader) {
  const auto folder = scratch_ / "from-collections";
  const CsrMatrix lower = gen::banded(40, 3, seed_);
  std::string full = "%%MatrixMarket matrix coordinate real symmetric\n40 40 ";
  std::string entries;
  int count = 0;
  for (index_t row = 0; row < lower.rows; ++row) {
    for (index_t k = lower.row_ptr[row]; k < lower.row_ptr[row + 1]; ++k) {
      const index_t col = lower.col_idx[k];
      if (col > row) continue;
      char line[96];
      std::snprintf(line, sizeof line, "%d %d %.9g\n", row + 1, col + 1, static_cast<double>(lower.values[k]));
      entries += line;
      ++count;
      if (col != row) {  // the same value again, above the diagonal
        std::snprintf(line, sizeof line, "%d %d %.9g\n", col + 1, row + 1, static_cast<double>(lower.values[k]));
        entries += line;
        ++count;
      }
    }
  }
  write_text(folder / "full_storage.mtx", full + std::to_string(count) + "\n" + entries);
  write_text(folder / "nonfinite.mtx",
             "%%MatrixMarket matrix coordinate real general\n4 3 6\n1 1 inf\n1 2 0.5\n2 2 nan\n3 1 -inf\n"
             "3 3 inf\n4 3 0.75\n");
  const std::vector<std::string> all_kernels{"--cases", folder.string(), "--quiet"};

  auto run = grade(kHostReference, all_kernels);
  EXPECT_EQ(run.exit_code, 3) << "without the keys, both are case errors\n" << context_;
  EXPECT_NE(run.out.find("2 cases could not be used"), std::string::npos) << context_;

  write_text(folder / "cases.ini",
             "[full_storage]\nfile = full_storage.mtx\nupper_triangle = mirror\n\n"
             "[nonfinite]\nfile = nonfinite.mtx\nallow_nonfinite = true\n");
  run = grade(kHostReference, all_kernels);
  EXPECT_EQ(run.exit_code, 0) << context_;
  std::size_t graded = 0;
  for (const auto& row : rows()) {
    if (row.at("case").get<std::string>() != "full_storage" && row.at("case").get<std::string>() != "nonfinite")
      continue;
    ++graded;
    EXPECT_EQ(verdict_of(row), "pass") << row.at("kernel").get<std::string>() << " / "
                                       << row.at("case").get<std::string>() << ": "
                                       << row.at("summary").get<std::string>() << "\n"
                                       << context_;
    if (row.at("case").get<std::string>() == "full_storage") {
      EXPECT_EQ(row.at("nnz").get<double>(), lower.nnz());
    }
  }
  EXPECT_EQ(graded, 12U) << context_;
}

}  // namespace
}  // namespace spmv::test
