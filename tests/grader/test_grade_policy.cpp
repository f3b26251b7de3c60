// The scoring policy (parsing, the documented default) and the points of
// rows under it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "model/json.hpp"
#include "scoring/policy.hpp"
#include "scoring/scoring.hpp"
#include "spmv/contract/catalog.h"

namespace spmv::grade {
namespace {

// The documented file, with "<kernel> = 1" under [kernels] for each kernel
// of the catalog, in its order.
TEST(DefaultPolicy, IsTheDocumentedFileWithTheCatalogsKernels) {
  std::ifstream file(std::string(SPMV_SOURCE_DIR) + "/grader/policy/default-policy.ini");
  std::ostringstream text;
  text << file.rdbuf();
  std::string expected = text.str();
  const std::string section = "\n[kernels]\n";
  const std::size_t at = expected.find(section);
  ASSERT_NE(at, std::string::npos) << "the file has no [kernels] line";
#define SPMV_POLICY_LINE(name, description) #name " = 1\n"
  expected.insert(at + section.size(), SPMV_SUBMISSION_KERNELS(SPMV_POLICY_LINE));
#undef SPMV_POLICY_LINE
  EXPECT_EQ(default_policy_text(), expected) << "the compiled-in default differs from the file: rebuild";
}

TEST(DefaultPolicy, GradesTheSixKernelsEqually) {
  const Policy& policy = default_policy();
  EXPECT_EQ(policy.graded_kernels(),
            (std::vector<std::string>{"coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"}));
  for (const auto& kernel : policy.graded_kernels()) EXPECT_EQ(policy.kernel_weight(kernel), 1);
  EXPECT_EQ(policy.total_points, 100);
  EXPECT_EQ(policy.band.full_credit_at, 0.9);
  EXPECT_EQ(policy.band.no_credit_below, 0.25);
  EXPECT_GT(policy.correctness_share, 0);
  EXPECT_LT(policy.correctness_share, 1);
}

TEST(PolicyFile, ReadsEveryKey) {
  const Policy policy = parse_policy(
      "total_points = 50\ncorrectness_share = 0.5\n# comment\n[speedup]\nfull_credit_at = 1.2\nno_credit_below = 0.5\n"
      "[kernels]\nell = 2\ncoo = 0\n[case.big.one]\nweight = 3\nvisibility = hidden\n",
      "test.ini");
  EXPECT_EQ(policy.total_points, 50);
  EXPECT_EQ(policy.correctness_share, 0.5);
  EXPECT_EQ(policy.band.full_credit_at, 1.2);
  EXPECT_EQ(policy.band.no_credit_below, 0.5);
  EXPECT_EQ(policy.graded_kernels(), std::vector<std::string>{"ell"});
  EXPECT_EQ(policy.kernel_weight("ell"), 2);
  EXPECT_EQ(policy.kernel_weight("coo"), 0);
  EXPECT_EQ(policy.kernel_weight("jds"), 1) << "unlisted kernels weigh 1";
  EXPECT_EQ(policy.kernel_order("coo"), 1U);
  EXPECT_EQ(policy.case_weight("big.one", 1), 3) << "case names may hold dots";
  EXPECT_EQ(policy.case_visibility("big.one", "visible"), "hidden");
  EXPECT_EQ(policy.case_weight("other", 0.5), 0.5) << "the manifest's weight otherwise";
}

TEST(PolicyFile, KeysLeftOutKeepTheirDefaults) {
  const Policy& defaults = default_policy();
  const Policy points_only = parse_policy("total_points = 40\n", "points.ini");
  EXPECT_EQ(points_only.total_points, 40);
  EXPECT_EQ(points_only.graded_kernels(), defaults.graded_kernels()) << "no [kernels] section: the default six";
  for (const auto& kernel : defaults.graded_kernels()) EXPECT_EQ(points_only.kernel_weight(kernel), 1) << kernel;
  EXPECT_EQ(points_only.graded_kernels().size(), 6U);
  EXPECT_EQ(points_only.correctness_share, defaults.correctness_share);
  EXPECT_EQ(points_only.band.full_credit_at, defaults.band.full_credit_at);
  EXPECT_EQ(points_only.band.no_credit_below, defaults.band.no_credit_below);

  const Policy band_top_only = parse_policy("[speedup]\nfull_credit_at = 1.5\n", "band.ini");
  EXPECT_EQ(band_top_only.band.full_credit_at, 1.5);
  EXPECT_EQ(band_top_only.band.no_credit_below, defaults.band.no_credit_below);
  EXPECT_EQ(band_top_only.total_points, defaults.total_points);
  EXPECT_EQ(band_top_only.graded_kernels().size(), 6U);

  const Policy cases_only = parse_policy("[case.big]\nweight = 2\n", "cases.ini");
  EXPECT_EQ(cases_only.graded_kernels(), defaults.graded_kernels());
  EXPECT_EQ(cases_only.case_weight("big", 1), 2);
}

TEST(PolicyFile, ForbiddenLibrariesDefaultAndReplace) {
  EXPECT_EQ(default_policy().forbidden_libraries, kDefaultForbiddenLibraries);
  EXPECT_EQ(parse_policy("total_points = 10\n", "p.ini").forbidden_libraries, kDefaultForbiddenLibraries);
  EXPECT_EQ(
      parse_policy("[libraries]\nforbidden = cusparse, cublasLt ,cusolver, cusparse\n", "p.ini").forbidden_libraries,
      (std::vector<std::string>{"cusparse", "cublasLt", "cusolver"}))
      << "a name given twice counts once";
  EXPECT_TRUE(parse_policy("[libraries]\nforbidden =\n", "p.ini").forbidden_libraries.empty());
  try {
    parse_policy("[libraries]\nforbidden = lib/cusparse.so\n", "p.ini");
    ADD_FAILURE() << "a path accepted as a library name";
  } catch (const PolicyError& e) {
    EXPECT_NE(std::string(e.what()).find("p.ini:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("libraries.forbidden"), std::string::npos) << e.what();
  }
}

// A library name the census does not know would forbid nothing: a typo
// such as cusparce, which replaces the default list, would let cuSPARSE
// through. It is an error naming the file, the line and the name meant.
TEST(PolicyFile, ForbiddenLibrariesMustBeKnownToTheCensus) {
  for (const auto& name : kDefaultForbiddenLibraries) {
    const auto& known = known_libraries();
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name << " is a default but not known";
  }
  struct Bad {
    std::string text, named, meant;
  };
  const std::vector<Bad> bad{{"# course policy\n[libraries]\nforbidden = cusparce\n", "cusparce", "cusparse"},
                             {"[libraries]\nforbidden = cusparse, cuBLAS\n", "cuBLAS", "cublas"},
                             {"[libraries]\nforbidden = my_private_lib\n", "my_private_lib", ""}};
  for (const auto& [text, named, meant] : bad) {
    try {
      parse_policy(text, "my-policy.ini");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const PolicyError& e) {
      const std::string message = e.what();
      const auto line = std::count(text.begin(), text.end(), '\n');
      EXPECT_EQ(message.rfind("my-policy.ini:" + std::to_string(line) + ": libraries.forbidden", 0), 0U) << message;
      EXPECT_NE(message.find(named), std::string::npos) << message;
      if (!meant.empty()) {
        EXPECT_NE(message.find("did you mean " + meant + "?"), std::string::npos) << message;
      }
    }
  }
  EXPECT_NO_THROW(parse_policy("[libraries]\nforbidden = cusparse, cublas, cufft, curand, openblas, mkl\n", "p.ini"));
}

// The effective policy, every key resolved, reads back as the same policy:
// what --show-policy prints and the reports record.
TEST(PolicyFile, TheResolvedTextReadsBackToTheSamePolicy) {
  const Policy policy = parse_policy(
      "total_points = 40 # out of 40\ncorrectness_share = 0.55\n[speedup]\nno_credit_below = 0.3\n"
      "[flags]\naccept = speedup_review\n[libraries]\nforbidden = cusparse, cufft\n[kernels]\njds = 2\ncoo = 0.5\n"
      "[case.big]\nweight = 3\n[case.secret_one]\nvisibility = hidden\n",
      "course.ini");
  const std::string text = policy_text(policy);
  EXPECT_EQ(text.rfind("# The effective policy: course.ini", 0), 0U) << text;
  for (const std::string line :
       {"total_points = 40\n", "correctness_share = 0.55\n", "full_credit_at = 0.9\n", "no_credit_below = 0.3\n",
        "review_above = 10\n", "accept = speedup_review\n", "forbidden = cusparse, cufft\n",
        "[kernels]\njds = 2\ncoo = 0.5\n", "[case.big]\nweight = 3\n", "[case.secret_one]\nvisibility = hidden\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " missing from:\n" << text;
  }
  const Policy again = parse_policy(text, "again.ini");
  EXPECT_EQ(policy_text(again, false), policy_text(policy, false));
  EXPECT_EQ(policy_digest(again), policy_digest(policy));
  EXPECT_EQ(again.graded_kernels(), policy.graded_kernels());
  EXPECT_EQ(again.forbidden_libraries, policy.forbidden_libraries);
  EXPECT_EQ(again.accepted_flags, policy.accepted_flags);

  // The default policy, resolved, is the default file's policy.
  EXPECT_EQ(policy_digest(parse_policy(policy_text(default_policy()), "copy.ini")), policy_digest(default_policy()));
  EXPECT_NE(policy_digest(parse_policy("correctness_share = 0.5\n", "p.ini")), policy_digest(default_policy()));
  EXPECT_EQ(policy_digest(parse_policy("# only a comment\n\ntotal_points = 100\n", "p.ini")),
            policy_digest(default_policy()))
      << "a file that restates a default is the default policy";
}

TEST(PolicyFile, TheResolvedPolicyAsJson) {
  const Policy policy = parse_policy("[kernels]\nell = 2\ncoo = 0\n[case.big]\nweight = 3\n", "course.ini");
  const Json json = parse_json(policy_json(policy));
  EXPECT_EQ(json.at("source").get<std::string>(), "course.ini");
  EXPECT_EQ(json.at("digest").get<std::string>(), policy_digest(policy));
  EXPECT_EQ(json.at("total_points").get<double>(), 100);
  EXPECT_EQ(json.at("speedup").at("full_credit_at").get<double>(), 0.9);
  ASSERT_EQ(json.at("kernels").size(), 2U);
  EXPECT_EQ(json.at("kernels")[0].at("name").get<std::string>(), "ell");
  EXPECT_EQ(json.at("kernels")[1].at("weight").get<double>(), 0);
  ASSERT_EQ(json.at("graded_kernels").size(), 1U);
  EXPECT_EQ(json.at("libraries").at("forbidden").size(), kDefaultForbiddenLibraries.size());
  EXPECT_EQ(json.at("cases").at("big").at("weight").get<double>(), 3);
  EXPECT_EQ(json.at("text").get<std::string>(), policy_text(policy));
}

TEST(PolicyFile, AKernelsSectionReplacesTheDefaultList) {
  const Policy policy = parse_policy("[kernels]\njds = 2\ncsr_vector = 1\n", "two.ini");
  EXPECT_EQ(policy.graded_kernels(), (std::vector<std::string>{"jds", "csr_vector"}));
  EXPECT_EQ(policy.kernel_weight("jds"), 2);
}

TEST(PolicyFile, ErrorsNameTheFileTheLineAndTheKey) {
  struct Bad {
    std::string text, key;
    int line;
  };
  const std::vector<Bad> bad{
      {"totl_points = 3\n", "totl_points", 1},
      {"# the band\n\n[speedup]\nfull_credit_at = fast\n", "speedup.full_credit_at", 4},
      {"correctness_share = 1.5\n", "correctness_share", 1},
      {"total_points = 0\n", "total_points", 1},
      {"[kernels]\ncoo = -1\n", "kernels.coo", 2},
      {"[speedup]\nno_credit_below = 0.5\nfull_credit_at = 0.2\n", "no_credit_below", 2},
      {"[case.x]\nvisibility = secret\n", "case.x.visibility", 2},
      {"[case.x]\ncolour = red\n", "case.x.colour", 2},
      {"[kernels]\ncoo = 1\ncoo = 2\n", "key \"coo\" is already set in [kernels] at line 2", 3},
      {"speedup.review_above = 4\n[speedup]\nreview_above = 5\n", "speedup.review_above is given twice", 3},
      {"total_points = 100\njust some words\n", "just some words", 2},
      {"[kernels\ncoo = 1\n", "[kernels", 1},
      {"[kernels]\ncoo = 0\nell = 0\n", "weight 0", 0},
  };
  for (const auto& [text, key, line] : bad) {
    try {
      parse_policy(text, "my-policy.ini");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const PolicyError& e) {
      const std::string message = e.what();
      const std::string where = line > 0 ? "my-policy.ini:" + std::to_string(line) + ": " : "my-policy.ini: ";
      EXPECT_EQ(message.rfind(where, 0), 0U) << "expected it to start with " << where << ": " << message;
      EXPECT_NE(message.find(key), std::string::npos) << message;
    }
  }
}

TEST(PolicyFile, CaseSectionsMustNameALoadedCase) {
  const Policy policy = parse_policy(
      "total_points = 10\n[case.poisson]\nweight = 2\n\n[case.poison]\nvisibility = hidden\n", "course.ini");
  EXPECT_NO_THROW(policy.check_case_names({"poisson", "poison", "other"}, "--cases here"));
  try {
    policy.check_case_names({"poisson", "other"}, "--cases testcases/public");
    ADD_FAILURE() << "a section naming no case was accepted";
  } catch (const PolicyError& e) {
    const std::string message = e.what();
    EXPECT_EQ(
        message.rfind("course.ini:6: case.poison.visibility: no case named poison in --cases testcases/public", 0), 0U)
        << message;
    EXPECT_NE(message.find("poisson, other"), std::string::npos) << "the message lists the cases: " << message;
  }
  EXPECT_NO_THROW(default_policy().check_case_names({}, "--cases empty"));
}

TEST(SpeedupBand, LinearBetweenTheEdges) {
  const SpeedupBand band{0.25, 0.9};
  EXPECT_EQ(performance_credit(band, 0.25), 0);
  EXPECT_EQ(performance_credit(band, 0.9), 1);
  EXPECT_DOUBLE_EQ(performance_credit(band, 0.575), 0.5);
  EXPECT_DOUBLE_EQ(performance_credit(band, 0.25 + 0.65 / 4), 0.25);
  EXPECT_EQ(performance_credit(band, 0.2499), 0);
  EXPECT_EQ(performance_credit(band, 0), 0);
  EXPECT_EQ(performance_credit(band, 7.5), 1);
  EXPECT_EQ(performance_credit(band, std::nan("")), 0);
}

RowResult row(const std::string& kernel, const std::string& case_name, Verdict verdict,
              std::optional<double> speedup = std::nullopt, double case_weight = 1) {
  RowResult r;
  r.kernel = kernel;
  r.case_name = case_name;
  r.verdict = verdict;
  r.speedup = speedup;
  r.case_weight = case_weight;
  return r;
}

Policy two_kernel_policy() {
  return parse_policy("total_points = 100\ncorrectness_share = 0.7\n[kernels]\ncoo = 1\nell = 3\n", "test");
}

TEST(Scoring, KernelsShareThePointsByWeightAndCasesWithinAKernel) {
  const auto summary =
      score_rows(two_kernel_policy(), {row("coo", "a", Verdict::kPass, 1.0), row("coo", "b", Verdict::kPass, 1.0, 3),
                                       row("ell", "a", Verdict::kPass, 1.0)});
  EXPECT_DOUBLE_EQ(summary.rows[0].max_score, 25 * 0.25);
  EXPECT_DOUBLE_EQ(summary.rows[1].max_score, 25 * 0.75);
  EXPECT_DOUBLE_EQ(summary.rows[2].max_score, 75);
  EXPECT_DOUBLE_EQ(summary.max_score, 100);
  EXPECT_DOUBLE_EQ(summary.score, 100);
}

TEST(Scoring, CorrectnessAndPerformanceParts) {
  const auto summary = score_rows(two_kernel_policy(),
                                  {row("ell", "fast", Verdict::kPass, 2.0), row("ell", "mid", Verdict::kPass, 0.575),
                                   row("ell", "slow", Verdict::kPass, 0.1), row("ell", "untimed", Verdict::kPass),
                                   row("ell", "wrong", Verdict::kWrong, 3.0)});
  // Only ell is present, so its share is all 100 points, over 5 cases.
  EXPECT_DOUBLE_EQ(summary.rows[0].max_score, 100.0 / 5);
  EXPECT_DOUBLE_EQ(summary.rows[0].score, summary.rows[0].max_score);
  EXPECT_DOUBLE_EQ(summary.rows[1].score, summary.rows[1].max_score * (0.7 + 0.3 * 0.5));
  EXPECT_DOUBLE_EQ(summary.rows[2].score, summary.rows[2].max_score * 0.7);
  EXPECT_DOUBLE_EQ(summary.rows[3].score, summary.rows[3].max_score * 0.7);
  EXPECT_EQ(summary.rows[4].score, 0) << "no performance points without a correct result";
  EXPECT_TRUE(summary.rows[4].counted);
}

TEST(Scoring, RowsLeftOutHandTheirShareToTheOthers) {
  const auto summary =
      score_rows(two_kernel_policy(), {row("coo", "a", Verdict::kPass, 1.0), row("ell", "a", Verdict::kNotApplicable),
                                       row("ell", "b", Verdict::kPass, 1.0), row("ell", "c", Verdict::kCaseError)});
  EXPECT_FALSE(summary.rows[1].counted);
  EXPECT_EQ(summary.rows[1].max_score, 0);
  EXPECT_DOUBLE_EQ(summary.rows[2].max_score, 75) << "ell's whole share on its one counted row";
  EXPECT_DOUBLE_EQ(summary.max_score, 100);

  const auto all_left_out =
      score_rows(two_kernel_policy(), {row("coo", "a", Verdict::kPass, 1.0), row("ell", "a", Verdict::kNotApplicable)});
  EXPECT_DOUBLE_EQ(all_left_out.rows[0].max_score, 100) << "a kernel with no counted row has no share";
}

TEST(Scoring, FailuresOfEveryKindScoreZeroButCount) {
  for (const Verdict verdict : {Verdict::kWrong, Verdict::kCrash, Verdict::kTimeout, Verdict::kNotImplemented,
                                Verdict::kSkipped, Verdict::kLoadError, Verdict::kNotRun}) {
    const auto summary =
        score_rows(two_kernel_policy(), {row("coo", "a", verdict, 1.0), row("coo", "b", Verdict::kPass, 1.0)});
    EXPECT_TRUE(summary.rows[0].counted) << describe(verdict);
    EXPECT_EQ(summary.rows[0].score, 0) << describe(verdict);
    EXPECT_DOUBLE_EQ(summary.score, 50) << describe(verdict);
  }
}

TEST(Scoring, GeometricMeanSpeedupOfCorrectTimedRows) {
  const auto summary =
      score_rows(two_kernel_policy(), {row("coo", "a", Verdict::kPass, 2.0), row("coo", "b", Verdict::kPass, 0.5),
                                       row("coo", "c", Verdict::kPass, 4.0), row("coo", "d", Verdict::kWrong, 100.0)});
  ASSERT_TRUE(summary.geomean_speedup);
  EXPECT_NEAR(*summary.geomean_speedup, std::cbrt(4.0), 1e-12);
  EXPECT_EQ(summary.timed_rows, 3);
  EXPECT_FALSE(score_rows(two_kernel_policy(), {row("coo", "a", Verdict::kPass)}).geomean_speedup);
}

TEST(Scoring, PolicyCaseOverridesApply) {
  const Policy policy = parse_policy("[kernels]\ncoo = 1\n[case.b]\nweight = 3\n", "test");
  const auto summary = score_rows(policy, {row("coo", "a", Verdict::kPass, 1.0), row("coo", "b", Verdict::kPass, 1.0)});
  EXPECT_DOUBLE_EQ(summary.rows[0].max_score, 25);
  EXPECT_DOUBLE_EQ(summary.rows[1].max_score, 75);
}

}  // namespace
}  // namespace spmv::grade
