// The course staff's mistakes that must never become wrong grades (issue
// 26): each is a usage or setup error naming what is wrong, or an honest
// report, never a silent drop or another run's rows kept. Host path, no GPU.
//
//   --resume into a folder another run made (another submission, policy,
//   case set, seed, secret seed or setting) is refused, naming what differs;
//   a case folder that yields no case is an error; a policy whose weights
//   give no points is an error (a selection of weight 0 is said); the
//   effective policy is printed by --show-policy and --list and recorded in
//   the reports.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "grade_end_to_end.hpp"

namespace spmv::test {
namespace {

using grade::Json;

class StaffMistake : public GradeEndToEnd {
 protected:
  std::filesystem::path file(const std::string& name, const std::string& text) {
    const auto path = scratch_ / name;
    write_text(path, text);
    return path;
  }

  // The first grading of a folder, as a resume would find it.
  void grade_first(std::vector<std::string> more = {}) {
    more.insert(more.end(), {"--kernel", "coo,csr_scalar", "--quiet"});
    const auto run = grade(kHostReference, more);
    ASSERT_EQ(run.exit_code, 0) << context_;
    ASSERT_EQ(rows().size(), 4U) << context_;
    ASSERT_TRUE(std::filesystem::exists(output_dir() / "run.json")) << "the run's facts are beside its reports";
    // As a kill would leave it: the last row not finished.
    std::istringstream lines(read_text(output_dir() / "rows.jsonl"));
    std::string kept;
    std::string line;
    for (int i = 0; i < 3 && std::getline(lines, line); ++i) kept += line + "\n";
    write_text(output_dir() / "rows.jsonl", kept);
    rows_before_ = kept;
  }

  // A --resume that must be refused: exit 2, one line naming `what`, the
  // folder's rows untouched.
  void expect_refused(const std::filesystem::path& submission, std::vector<std::string> more,
                      const std::vector<std::string>& named) {
    if (std::find(more.begin(), more.end(), "--kernel") == more.end()) {
      more.insert(more.end(), {"--kernel", "coo,csr_scalar"});
    }
    more.insert(more.end(), {"--quiet", "--resume"});
    const auto run = grade(submission, more);
    EXPECT_EQ(run.exit_code, 2) << context_;
    EXPECT_NE(run.err.find("--resume: " + output_dir().string() + " was graded by another run: "), std::string::npos)
        << context_;
    for (const auto& part : named) EXPECT_NE(run.err.find(part), std::string::npos) << part << "\n" << context_;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << context_;
    EXPECT_EQ(read_text(output_dir() / "rows.jsonl"), rows_before_) << "the refused run changed the folder's rows";
  }

  std::string rows_before_;
};

// The first mistake: another submission resumed into the folder of
// a correct one kept its rows and scored 99.81 / 100.
TEST_F(StaffMistake, ResumeRefusesAnotherSubmission) {
  grade_first();
  expect_refused(fake("wrong_element"), {}, {"the submission differs", "libspmv_fake_wrong_element.so"});
  // The same submission resumes.
  const auto run = grade(kHostReference, {"--kernel", "coo,csr_scalar", "--quiet", "--resume"});
  EXPECT_EQ(run.exit_code, 0) << context_;
  EXPECT_EQ(rows().size(), 4U) << context_;
  EXPECT_EQ(first_lines(read_text(output_dir() / "rows.jsonl"), 3), first_lines(rows_before_, 3))
      << "the finished rows were not kept as they were";
}

TEST_F(StaffMistake, ResumeRefusesAnotherPolicySeedOrSetting) {
  grade_first();
  const auto policy = file("my-policy.ini", "correctness_share = 0.5\n");
  expect_refused(kHostReference, {"--policy", policy.string()},
                 {"the effective policy differs", "'correctness_share = 0.7' there, 'correctness_share = 0.5' now"});
  // A policy file that restates the defaults is the same policy.
  const auto same = file("same-policy.ini", "# the defaults\ntotal_points = 100\n");
  auto args =
      this->args(kHostReference, {"--kernel", "coo,csr_scalar", "--quiet", "--resume", "--policy", same.string()});
  auto run = run_grade(args, scratch_.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;

  grade_first();
  auto other_seed = this->args(kHostReference, {"--kernel", "coo,csr_scalar", "--quiet", "--resume"});
  other_seed[std::find(other_seed.begin(), other_seed.end(), "--seed") - other_seed.begin() + 1] = "12345";
  run = run_grade(other_seed, scratch_.path());
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("the seed differs (" + std::to_string(seed_) + " there, --seed 12345 now)"), std::string::npos)
      << run.err;
  expect_refused(kHostReference, {"--timeout", "30"}, {"--timeout differs (60 there, 30 now)"});
  expect_refused(kHostReference, {"--kernel", "coo"}, {"the kernels differ"});
}

TEST_F(StaffMistake, ResumeRefusesAnotherCaseSet) {
  grade_first();
  // A case changed since: the folder's rows are of the old matrix.
  write_case(cases_dir(), "tiny_wide", gen::uniform_random(5, 9, 3, seed_ + 7));
  expect_refused(kHostReference, {},
                 {"the case set differs", "changed since (matrix or cases.ini section): tiny_wide"});
  grade_first();
  write_case(scratch_ / "more", "extra", gen::uniform_random(6, 6, 2, seed_));
  expect_refused(kHostReference, {"--cases", (scratch_ / "more").string()}, {"only now: extra"});
  expect_refused(kHostReference, {"--case", "tiny_wide"}, {"only there: mixed_rows"});
}

TEST_F(StaffMistake, ResumeRefusesAnotherSecretSeed) {
  const auto secret = file("secret-seed", "the-course-secret\n");
  const auto other = file("other-seed", "another-secret\n");
  grade_first({"--secret-seed-file", secret.string()});
  EXPECT_EQ(read_text(output_dir() / "run.json").find("the-course-secret"), std::string::npos)
      << "the run's facts hold a check of the secret, never the secret";
  expect_refused(kHostReference, {"--secret-seed-file", other.string()}, {"the secret seed differs"});
  expect_refused(kHostReference, {}, {"it was graded with a secret seed (--secret-seed-file), this run has none"});
  const auto run = grade(kHostReference,
                         {"--kernel", "coo,csr_scalar", "--quiet", "--resume", "--secret-seed-file", secret.string()});
  EXPECT_EQ(run.exit_code, 0) << context_;
  EXPECT_EQ(rows().size(), 4U) << context_;
}

// Without --seed, a resumed run takes the folder's seed: its rows are of
// the same x vectors as the rows it keeps.
TEST_F(StaffMistake, ResumeKeepsTheFoldersSeed) {
  const std::vector<std::string> common{"--submission",  kHostReference.string(),
                                        "--reference",   kHostReference.string(),
                                        "--cases",       cases_dir().string(),
                                        "--output-dir",  output_dir().string(),
                                        "--min-runs",    "2",
                                        "--min-time-ms", "0",
                                        "--kernel",      "coo,csr_scalar",
                                        "--quiet"};
  ASSERT_EQ(run_grade(common, scratch_.path()).exit_code, 0);
  const auto first = rows();
  ASSERT_EQ(first.size(), 4U);
  std::istringstream lines(read_text(output_dir() / "rows.jsonl"));
  std::string line;
  std::getline(lines, line);
  write_text(output_dir() / "rows.jsonl", line + "\n");
  auto resumed_args = common;
  resumed_args.push_back("--resume");
  const auto run = run_grade(resumed_args, scratch_.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto after = rows();
  ASSERT_EQ(after.size(), 4U);
  for (const auto& row : after) {
    const auto same = std::find_if(first.begin(), first.end(), [&](const Json& r) {
      return r.at("kernel").get<std::string>() == row.at("kernel").get<std::string>() &&
             r.at("case").get<std::string>() == row.at("case").get<std::string>();
    });
    ASSERT_NE(same, first.end());
    EXPECT_EQ(row.at("x_seed").get<std::string>(), same->at("x_seed").get<std::string>())
        << "another seed in the resumed run";
  }
}

TEST_F(StaffMistake, ResumeRefusesAFolderWithoutRunFacts) {
  grade_first();
  std::filesystem::remove(output_dir() / "run.json");
  const auto run = grade(kHostReference, {"--kernel", "coo,csr_scalar", "--quiet", "--resume"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("--resume: " + output_dir().string() + " holds rows (rows.jsonl) but no run facts (run.json)"),
            std::string::npos)
      << context_;
  EXPECT_EQ(read_text(output_dir() / "rows.jsonl"), rows_before_);
}

// A hidden set left empty (or every file mistyped) was dropped silently:
// 100 / 100 on the other folders, exit 0.
TEST_F(StaffMistake, ACaseFolderWithoutCasesIsAnError) {
  std::filesystem::create_directories(scratch_ / "hidden");
  write_text(scratch_ / "hidden" / "big.MTX", "not read: the extension is .mtx\n");
  const auto run = grade(kHostReference, {"--cases", (scratch_ / "hidden").string(), "--quiet"});
  EXPECT_EQ(run.exit_code, 3) << context_;
  EXPECT_NE(run.err.find("--cases " + (scratch_ / "hidden").string() + ": holds no case"), std::string::npos)
      << context_;
  EXPECT_NE(run.err.find("big.MTX"), std::string::npos) << "what the folder holds instead\n" << context_;
  EXPECT_FALSE(std::filesystem::exists(output_dir() / "results.json")) << "a report that reads as a grade";

  // A manifest whose every section is commented out yields no case either.
  write_text(scratch_ / "commented" / "cases.ini", "# [big]\n# generator = diagonal n=10\n");
  const auto commented = grade(kHostReference, {"--cases", (scratch_ / "commented").string(), "--show-policy"});
  EXPECT_EQ(commented.exit_code, 3) << context_;
  EXPECT_NE(commented.err.find("holds no case"), std::string::npos) << context_;
}

// A matrix the loader does not read (named .MTX, compressed with bzip2)
// beside the cases was left out without a word: it is said.
TEST_F(StaffMistake, AMatrixNoCaseReadsIsSaid) {
  write_text(cases_dir() / "big.MTX", read_text(cases_dir() / "tiny_wide.mtx"));
  const auto run = grade(kHostReference, {"--kernel", "coo", "--quiet"});
  EXPECT_EQ(run.exit_code, 0) << context_;
  EXPECT_NE(run.err.find("look like matrices but are no case"), std::string::npos) << context_;
  EXPECT_NE(run.err.find("big.MTX"), std::string::npos) << context_;
  // The reports say it without naming a case folder's files (a hidden
  // folder's names are the course's): the console does.
  for (const char* report : {"summary.md", "results.json"}) {
    const std::string text = read_text(output_dir() / report);
    EXPECT_NE(text.find("1 file of the case folders that look like matrices but are no case"), std::string::npos)
        << report;
    EXPECT_EQ(text.find("big.MTX"), std::string::npos) << report;
  }
}

// Matrices in a subfolder of a case folder were graded as nothing, exit 0,
// without a word: said on the console with the fix, counted in the reports.
TEST_F(StaffMistake, AMatrixInASubfolderIsSaid) {
  std::filesystem::create_directories(cases_dir() / "extra");
  write_text(cases_dir() / "extra" / "more.mtx", read_text(cases_dir() / "tiny_wide.mtx"));
  const auto run = grade(kHostReference, {"--kernel", "coo", "--quiet"});
  EXPECT_EQ(run.exit_code, 0) << context_;
  EXPECT_NE(run.err.find("Matrices in a subfolder of a case folder were not graded"), std::string::npos) << context_;
  EXPECT_NE(run.err.find((cases_dir() / "extra" / "more.mtx").string()), std::string::npos) << context_;
  const std::string summary = read_text(output_dir() / "summary.md");
  EXPECT_NE(summary.find("1 file of the case folders"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("more.mtx"), std::string::npos) << summary;
}

// Every case of weight 0 made every score 0.00 / 0.00 without a word.
TEST_F(StaffMistake, APolicyWhoseWeightsGiveNoPointsIsAnError) {
  const auto policy = file("zero.ini", "[case.mixed_rows]\nweight = 0\n\n[case.tiny_wide]\nweight = 0\n");
  const auto run = grade(kHostReference, {"--policy", policy.string(), "--quiet"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("weighs 0 under the policy (" + policy.string() +
                         ") and the manifests, so no row could earn "
                         "a point"),
            std::string::npos)
      << context_;
  EXPECT_NE(run.err.find(policy.string() + ":2: case.mixed_rows.weight"), std::string::npos) << context_;
  EXPECT_NE(run.err.find(policy.string() + ":5: case.tiny_wide.weight"), std::string::npos) << context_;

  // One case of weight 0 graded alone is allowed, and said.
  const auto one = file("one.ini", "[case.tiny_wide]\nweight = 0\n");
  const auto alone = grade(kHostReference, {"--policy", one.string(), "--case", "tiny_wide", "--kernel", "coo"});
  EXPECT_EQ(alone.exit_code, 0) << context_;
  EXPECT_NE(alone.err.find("carry no points"), std::string::npos) << context_;
  EXPECT_NE(read_text(output_dir() / "summary.md").find("carry no points"), std::string::npos);
}

TEST_F(StaffMistake, AMistypedForbiddenLibraryIsAnError) {
  const auto policy = file("lib.ini", "# course\n[libraries]\nforbidden = cusparce\n");
  const auto run = grade(kHostReference, {"--policy", policy.string(), "--list"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find(policy.string() + ":3: libraries.forbidden"), std::string::npos) << context_;
  EXPECT_NE(run.err.find("did you mean cusparse?"), std::string::npos) << context_;
}

// A GPU share's file that is not one (another file given by mistake), or
// that others could write: the grader cannot do its job (exit 3, as for an
// unusable case folder), says so before any row, naming the option and the
// file, and leaves the file as it was.
TEST_F(StaffMistake, AGpuShareFileThatIsNotOneIsAnError) {
  const auto notes = file("notes.txt", "the class's notes\n");
  ::chmod(notes.c_str(), 0600);
  auto run = grade(kHostReference, {"--gpu-share", notes.string(), "--kernel", "coo"});
  EXPECT_EQ(run.exit_code, 3) << context_;
  EXPECT_NE(run.err.find("--gpu-share " + notes.string() + ": not a GPU share's file"), std::string::npos) << context_;
  EXPECT_EQ(read_text(notes), "the class's notes\n");
  EXPECT_FALSE(std::filesystem::exists(output_dir() / "rows.jsonl")) << "rows graded before the refusal";
  const auto open = file("open.share", "");
  ::chmod(open.c_str(), 0666);
  run = grade(kHostReference, {"--gpu-share", open.string(), "--kernel", "coo"});
  EXPECT_EQ(run.exit_code, 3) << context_;
  EXPECT_NE(run.err.find("another user could write it"), std::string::npos) << context_;
}

// A cache folder (cuSPARSE's, the GPU's) given as a file: a usage error
// naming the option, the file left as it was.
TEST_F(StaffMistake, ACacheFolderThatIsAFileIsAnError) {
  for (const std::string option : {"--cusparse-cache", "--gpu-cache"}) {
    SCOPED_TRACE(option);
    const auto notes = file("notes.txt", "the class's notes\n");
    const auto run = grade(kHostReference, {option, notes.string(), "--kernel", "coo"});
    EXPECT_EQ(run.exit_code, 2) << context_;
    EXPECT_NE(run.err.find(option), std::string::npos) << context_;
    EXPECT_NE(run.err.find(notes.string()), std::string::npos) << context_;
    EXPECT_EQ(read_text(notes), "the class's notes\n");
  }
}

TEST_F(StaffMistake, ShowPolicyPrintsTheEffectivePolicy) {
  const auto policy = file("course.ini",
                           "correctness_share = 0.5\n[libraries]\nforbidden = cusparse, cufft\n"
                           "[case.tiny_wide]\nvisibility = hidden\n");
  auto run = grade(kHostReference, {"--policy", policy.string(), "--show-policy"});
  ASSERT_EQ(run.exit_code, 0) << context_;
  for (const std::string line : {"correctness_share = 0.5\n", "full_credit_at = 0.9\n", "forbidden = cusparse, cufft\n",
                                 "[kernels]\ncoo = 1\n", "[case.tiny_wide]\nvisibility = hidden\n"}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << context_;
  }
  EXPECT_FALSE(std::filesystem::exists(output_dir())) << "--show-policy writes nothing";
  // What it prints is a policy file: read back, the same policy.
  const auto resolved = file("resolved.ini", run.out);
  const auto json_run = grade(kHostReference, {"--policy", policy.string(), "--show-policy=json"});
  ASSERT_EQ(json_run.exit_code, 0) << context_;
  const Json json = grade::parse_json(json_run.out);
  const auto again = grade(kHostReference, {"--policy", resolved.string(), "--show-policy", "--json"});
  ASSERT_EQ(again.exit_code, 0) << context_;
  EXPECT_EQ(grade::parse_json(again.out).at("digest").get<std::string>(), json.at("digest").get<std::string>());
  EXPECT_EQ(json.at("correctness_share").get<double>(), 0.5);
  EXPECT_EQ(json.at("libraries").at("forbidden").size(), 2U);

  // With --cases, its case sections are checked against them.
  run =
      grade(kHostReference, {"--policy", file("typo.ini", "[case.tiny_wid]\nweight = 2\n").string(), "--show-policy"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("no case named tiny_wid"), std::string::npos) << context_;
}

TEST_F(StaffMistake, ListAndTheReportsShowThePolicy) {
  const auto policy = file("course.ini", "correctness_share = 0.6\n[flags]\naccept = speedup_review\n");
  auto run = grade(kHostReference, {"--policy", policy.string(), "--list"});
  ASSERT_EQ(run.exit_code, 0) << context_;
  EXPECT_NE(run.out.find("  correctness_share = 0.6\n"), std::string::npos) << context_;
  EXPECT_NE(run.out.find("  accept = speedup_review\n"), std::string::npos) << context_;
  EXPECT_NE(run.out.find("  forbidden = cusparse, cublas, cusolver, nvblas\n"), std::string::npos) << context_;

  run = grade(kHostReference, {"--policy", policy.string(), "--kernel", "coo", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << context_;
  const std::string summary = read_text(output_dir() / "summary.md");
  EXPECT_NE(summary.find("## Policy"), std::string::npos) << summary;
  EXPECT_NE(summary.find("correctness_share = 0.6\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- Cases: `" + cases_dir().string() + "` (2 cases)"), std::string::npos) << summary;
  const Json facts = read_json(output_dir() / "run.json");
  EXPECT_NE(facts.at("policy").get<std::string>().find("correctness_share = 0.6\n"), std::string::npos);
}

}  // namespace
}  // namespace spmv::test
