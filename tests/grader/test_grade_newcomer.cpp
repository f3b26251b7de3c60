// What a new instructor or TA gets wrong, and what spmv-grade must tell
// them: a partial policy file, a typo in a policy, a plugin path that does
// not exist or does not load, broken cases. Each test runs the grader as a
// subprocess (host path, no GPU) and checks its exit status, its messages
// and its reports.
#include <gtest/gtest.h>

#include <algorithm>

#include "grade_end_to_end.hpp"

namespace spmv::test {
namespace {

using grade::JsonValue;

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

  const auto graded = grade(kHostReference, {"--policy", policy("correctness_share = 1\n").string(), "--case",
                                             "tiny_wide", "--quiet"});
  ASSERT_EQ(graded.exit_code, 0) << context_;
  const JsonValue report = results();
  EXPECT_EQ(report.at("tests").as_array().size(), 6U) << context_;
  EXPECT_NEAR(report.at("score").as_number(), 100, 0.05) << "a correct submission earns every point\n" << context_;
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

}  // namespace
}  // namespace spmv::test
