// spmv-grade end to end through the host path: the host reference and the
// faulty fake submissions (grader/hostpath) graded on small random cases in
// a scratch folder, no GPU needed. Each test runs the grader as a
// subprocess and reads back its exit status, results.json and rows.jsonl.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "grade_end_to_end.hpp"

namespace spmv::test {
namespace {

using grade::Json;

TEST_F(GradeEndToEnd, HostReferencePassesEveryKernelOnEveryCase) {
  const auto run = grade(kHostReference);
  ASSERT_EQ(run.exit_code, 0) << context_;
  const auto all_rows = rows();
  ASSERT_EQ(all_rows.size(), 12U) << "6 kernels x 2 cases\n" << context_;
  for (const auto& row : all_rows) {
    EXPECT_EQ(verdict_of(row), "pass") << row.at("kernel").get<std::string>() << " / "
                                       << row.at("case").get<std::string>() << ": "
                                       << row.at("summary").get<std::string>() << "\n"
                                       << context_;
    // Timed: a speedup, or the reason its speed is not scored (these cases'
    // launches take microseconds on the CPU).
    EXPECT_TRUE(row.at("speedup").is_number() || !row.at("correctness_only").get<std::string>().empty())
        << "a correct row is timed\n"
        << context_;
  }
  const Json report = results();
  ASSERT_EQ(report.at("tests").size(), 12U) << context_;
  for (const auto& test : report.at("tests")) {
    EXPECT_EQ(test.at("status").get<std::string>(), "passed") << test.at("name").get<std::string>();
    // Correctness alone earns the policy's correctness share (0.7).
    EXPECT_GE(test.at("score").get<double>(), 0.7 * test.at("max_score").get<double>() - 0.01)
        << test.at("name").get<std::string>();
  }
  EXPECT_NEAR(report.at("extra_data").at("max_score").get<double>(), 100, 0.05);
  EXPECT_GE(report.at("score").get<double>(), 69.9) << context_;
  EXPECT_TRUE(std::filesystem::exists(output_dir() / "summary.md"));
}

// fakes.tsv's labels as (verdict, cause); an empty cause is not checked.
std::pair<std::string, std::string> expected_row(const FakeCase& fake_case) {
  static const std::map<std::string, std::pair<std::string, std::string>> kByLabel{
      {"pass", {"pass", ""}},
      {"wrong", {"wrong", ""}},
      {"crash", {"crash", ""}},
      {"timeout", {"timeout", "timeout"}},
      {"out_of_bounds", {"wrong", "out_of_bounds_write"}},
      {"modified_input", {"wrong", "modified_input"}},
      {"nondeterministic", {"wrong", "race"}},
      {"not_implemented", {"not_implemented", ""}},
      {"launch_error", {"crash", "launch_error"}},
  };
  // Faults whose likely cause the grader can name precisely.
  static const std::map<std::string, std::string> kCauseByFault{
      {"wrong_element", "missing_term"}, {"unwritten_row", "unwritten_rows"}, {"doubled", "doubled"},
      {"crash_segfault", "signal"},      {"crash_abort", "signal"},           {"exit0", "exit"},
  };
  auto expected = kByLabel.at(fake_case.expected);
  if (const auto it = kCauseByFault.find(fake_case.fault); it != kCauseByFault.end()) expected.second = it->second;
  return expected;
}

// One row per fake in fakes.tsv: the verdict the grader must give, checked
// on two kernels of different formats and both cases.
class FakeVerdict : public GradeEndToEnd, public ::testing::WithParamInterface<FakeCase> {};

TEST_P(FakeVerdict, EveryRowGetsTheFaultsVerdict) {
  const FakeCase& fake_case = GetParam();
  const bool hangs = fake_case.fault == "hang";
  // A hang costs the whole timeout per row: one row is enough.
  const std::vector<std::string> selection =
      hangs ? std::vector<std::string>{"--kernel", "csr_scalar", "--case", "tiny_wide", "--timeout", "2"}
            : std::vector<std::string>{"--kernel", "csr_scalar,ell", "--timeout", "30"};
  const auto run = grade(fake(fake_case.fault), selection);
  const auto [verdict, cause] = expected_row(fake_case);
  EXPECT_EQ(run.exit_code, verdict == "pass" ? 0 : 1) << context_;

  const auto all_rows = rows();
  ASSERT_EQ(all_rows.size(), hangs ? 1U : 4U) << "one row per (kernel, case)\n" << context_;
  for (const auto& row : all_rows) {
    const std::string where = row.at("kernel").get<std::string>() + " / " + row.at("case").get<std::string>() + ": " +
                              row.at("summary").get<std::string>() + "\n" + row.at("detail").get<std::string>();
    EXPECT_EQ(verdict_of(row), verdict) << where << "\n" << context_;
    if (!cause.empty()) {
      EXPECT_EQ(cause_of(row), cause) << where << "\n" << context_;
    }
  }
  const Json report = results();
  EXPECT_EQ(report.at("tests").size(), all_rows.size()) << context_;
  if (verdict != "pass") {
    EXPECT_EQ(report.at("score").get<double>(), 0) << context_;
  }
}

INSTANTIATE_TEST_SUITE_P(HostFakes, FakeVerdict, ::testing::ValuesIn(read_fakes()),
                         [](const ::testing::TestParamInfo<FakeCase>& param) { return param.param.fault; });

TEST_F(GradeEndToEnd, CrashesNameTheSignalAndTheStage) {
  grade(fake("crash_segfault"), {"--kernel", "coo", "--case", "tiny_wide"});
  const auto all_rows = rows();
  ASSERT_EQ(all_rows.size(), 1U) << context_;
  EXPECT_NE(all_rows[0].at("summary").get<std::string>().find("SIGSEGV"), std::string::npos) << context_;
  EXPECT_NE(all_rows[0].at("summary").get<std::string>().find("run 1"), std::string::npos) << context_;

  grade(fake("exit0"), {"--kernel", "coo", "--case", "tiny_wide"});
  EXPECT_NE(rows().at(0).at("summary").get<std::string>().find("called exit(0)"), std::string::npos) << context_;
}

TEST_F(GradeEndToEnd, ForgedScoreInTheOutputChangesNothing) {
  const auto run = grade(fake("prints_forged_score"), {"--kernel", "csr_vector"});
  EXPECT_EQ(run.exit_code, 1) << context_;
  const Json report = results();
  EXPECT_EQ(report.at("score").get<double>(), 0) << context_;
  for (const auto& row : rows()) {
    EXPECT_EQ(verdict_of(row), "wrong") << context_;
    // Captured and shown, never parsed.
    EXPECT_NE(row.at("submission_output").get<std::string>().find("score: 100"), std::string::npos) << context_;
  }
  EXPECT_EQ(run.out.find("All tests passed"), std::string::npos) << "the submission's output leaked\n" << context_;
}

// A crash, a format that cannot hold a case and a case that cannot be read
// in one run: every row gets its own verdict.
TEST_F(GradeEndToEnd, EachRowKeepsItsOwnVerdict) {
  // ELL of this case pads 2000 rows to its dense first row: 32 MB > 1 MiB.
  write_case(cases_dir(), "one_long_row", gen::arrow(2000, seed_));
  write_text(cases_dir() / "broken.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1.0\n");
  const auto run = grade(fake("crash_segfault"), {"--kernel", "csr_scalar,ell", "--format-limit-mib", "1"});
  EXPECT_EQ(run.exit_code, 3) << "a case that cannot be read is a setup problem\n" << context_;

  std::map<std::pair<std::string, std::string>, std::string> verdicts;
  for (const auto& row : rows())
    verdicts[{row.at("kernel").get<std::string>(), row.at("case").get<std::string>()}] = verdict_of(row);
  ASSERT_EQ(verdicts.size(), 8U) << "2 kernels x 4 cases\n" << context_;
  EXPECT_EQ((verdicts[{"ell", "one_long_row"}]), "not_applicable") << context_;
  EXPECT_EQ((verdicts[{"csr_scalar", "one_long_row"}]), "crash") << context_;
  EXPECT_EQ((verdicts[{"ell", "broken"}]), "case_error") << context_;
  EXPECT_EQ((verdicts[{"csr_scalar", "broken"}]), "case_error") << context_;
  EXPECT_EQ((verdicts[{"ell", "tiny_wide"}]), "crash") << context_;

  const Json report = results();
  EXPECT_EQ(report.at("tests").size(), 8U) << context_;
  for (const auto& test : report.at("tests")) {
    const std::string verdict = test.at("extra_data").at("verdict").get<std::string>();
    if (verdict == "not_applicable" || verdict == "case_error") {
      EXPECT_EQ(test.at("max_score").get<double>(), 0)
          << "left out of the maximum: " << test.at("name").get<std::string>();
    }
  }
}

TEST_F(GradeEndToEnd, KilledMidRunLeavesValidResultsWithFinishedRows) {
  // Each row of the hanging fake takes the 3 s limit, the kernels' rows
  // checked at once: kill the grader once the first are reported (all
  // three kernels' first rows timed out), before or while the rest are.
  std::vector<std::string> arguments = args(fake("hang"), {"--kernel", "coo,csr_scalar,ell", "--timeout", "3"});
  GradeProcess process(arguments, scratch_.path());
  const auto rows_file = output_dir() / "rows.jsonl";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (read_json_lines(rows_file).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(read_json_lines(rows_file).size(), 1U) << "the first row did not finish in time";
  process.kill_now();
  process.wait();

  const Json report = results();  // parses: never half-written
  const auto& tests = report.at("tests");
  ASSERT_EQ(tests.size(), 6U) << "every planned row is in the report";
  int finished = 0;
  int not_run = 0;
  for (const auto& test : tests) {
    const std::string verdict = test.at("extra_data").at("verdict").get<std::string>();
    finished += verdict == "timeout" ? 1 : 0;
    not_run += verdict == "not_run" ? 1 : 0;
  }
  EXPECT_GE(finished, 1);
  EXPECT_EQ(finished + not_run, 6);
  // The reports are written before rows.jsonl, a batch of rows at a time (a
  // kernel's rows are reported together): a kill between the two leaves the
  // journal behind by the rows of that batch (graded again by --resume),
  // never ahead. Every row in the journal is finished in the report, with
  // the same verdict.
  std::map<std::string, std::string> reported;
  for (const auto& test : tests) {
    reported[test.at("name").get<std::string>()] = test.at("extra_data").at("verdict").get<std::string>();
  }
  const auto journal_rows = read_json_lines(rows_file);
  const int journal = static_cast<int>(journal_rows.size());
  EXPECT_LE(journal, finished) << journal << " rows in the journal, " << finished << " finished in the report";
  for (const auto& row : journal_rows) {
    const std::string name = row.at("kernel").get<std::string>() + " / " + row.at("case").get<std::string>();
    EXPECT_EQ(reported[name], row.at("verdict").get<std::string>()) << name << ": in the journal, not so in the report";
  }

  // The hanging child died with the grader (it runs in the scratch folder).
  const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool child_alive = true;
  while (child_alive && std::chrono::steady_clock::now() < gone_by) {
    child_alive = false;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::error_code error;
      if (std::filesystem::read_symlink(entry.path() / "cwd", error) == scratch_.path()) child_alive = true;
    }
    if (child_alive) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_FALSE(child_alive) << "a child of the killed grader is still running";
}

TEST_F(GradeEndToEnd, JournalsAggregateIntoOneReport) {
  const auto rows_dir = scratch_ / "rows";
  for (const std::string kernel : {"coo", "jds"}) {
    const auto run = run_grade(args(kHostReference, {"--kernel", kernel, "--journal", rows_dir.string(), "--quiet"}),
                               scratch_.path());
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_FALSE(std::filesystem::exists(output_dir() / "results.json")) << "journal mode writes only the journal";
  }
  const auto run =
      run_grade({"--aggregate", rows_dir.string(), "--output-dir", output_dir().string()}, scratch_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("Score:"), std::string::npos) << run.out;
  const Json report = results();
  EXPECT_EQ(names_of_tests(report),
            (std::set<std::string>{"coo / mixed_rows", "coo / tiny_wide", "jds / mixed_rows", "jds / tiny_wide"}));
  EXPECT_NEAR(report.at("extra_data").at("max_score").get<double>(), 100, 0.05);
}

// The CTest report says what a direct run's says: the runs' isolation (the
// weakest of them: here one kernel was graded at the user level), seed,
// device and provenance, read from beside the journals.
TEST_F(GradeEndToEnd, TheAggregatedReportSaysHowTheRunsGraded) {
  const auto rows_dir = scratch_ / "rows";
  const auto contained = run_grade(
      args(kHostReference, {"--kernel", "coo,jds", "--journal", rows_dir.string(), "--quiet"}), scratch_.path());
  ASSERT_EQ(contained.exit_code, 0) << contained.out << contained.err;
  const auto weak = run_grade(args(kHostReference, {"--kernel", "csr_scalar", "--journal", rows_dir.string(), "--quiet",
                                                    "--isolation", "user", "--allow-unisolated"}),
                              scratch_.path());
  ASSERT_EQ(weak.exit_code, 0) << weak.out << weak.err;
  // Times as long runs would leave them: the report's time is theirs added
  // up, the first run's once although it graded two kernels.
  for (const auto& [kernel, seconds] :
       {std::pair<std::string, std::string>{"coo", "1000.25"}, {"jds", "1000.25"}, {"csr_scalar", "500.5"}}) {
    std::string run_info = read_text(rows_dir / (kernel + ".run.json"));
    const auto at = run_info.find("\"elapsed_s\": ");
    ASSERT_NE(at, std::string::npos) << run_info;
    const auto end = run_info.find_first_of(",\n}", at);
    run_info.replace(at, end - at, "\"elapsed_s\": " + seconds);
    write_text(rows_dir / (kernel + ".run.json"), run_info);
  }
  const auto run =
      run_grade({"--aggregate", rows_dir.string(), "--output-dir", output_dir().string()}, scratch_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json extra = results().at("extra_data");
  EXPECT_EQ(extra.at("isolation").get<std::string>(), "user");
  EXPECT_TRUE(extra.at("unisolated").get<bool>());
  EXPECT_EQ(extra.at("seed").get<std::string>(), std::to_string(seed_));
  EXPECT_EQ(extra.at("submission").get<std::string>(), "host-reference") << "the plugin's own name";
  EXPECT_TRUE(extra.at("provenance").contains("submission"));
  EXPECT_TRUE(extra.at("provenance").contains("case tiny_wide"));
  EXPECT_NE(results().at("output").get<std::string>().find("Isolation: user"), std::string::npos);
  EXPECT_GE(results().at("execution_time").get<double>(), 1501);
  EXPECT_LE(results().at("execution_time").get<double>(), 1560) << "a run was counted twice";
  EXPECT_NE(read_text(output_dir() / "summary.md").find("not isolated for marks"), std::string::npos);
}

// A student's own account has the user level only: grading refuses it for
// marks, and with --allow-unisolated grades and says so in the reports.
TEST_F(GradeEndToEnd, AnUnprivilegedUserGradesOnlyWhenAllowedAndTheReportsSaySo) {
  if (::geteuid() != 0 || std::system("command -v setpriv > /dev/null") != 0) {
    GTEST_SKIP() << "needs root and setpriv to run the grader as another user";
  }
  std::filesystem::permissions(scratch_.path(), std::filesystem::perms::all);
  std::filesystem::permissions(cases_dir(), std::filesystem::perms::all);
  const auto command = [&](const std::string& more) {
    std::string line = "cd " + scratch_.path().string() + " && TMPDIR=" + scratch_.path().string() +
                       " setpriv --reuid=65534 --regid=65534 --clear-groups " SPMV_GRADE_EXE " --submission " +
                       kHostReference.string() + " --cases " + cases_dir().string() + " --kernel coo --output-dir " +
                       output_dir().string() + " --min-runs 2 --min-time-ms 0 " + more + " > " +
                       (scratch_ / "user.out").string() + " 2>&1";
    const int status = std::system(line.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(command(""), 3) << read_text(scratch_ / "user.out");
  EXPECT_NE(read_text(scratch_ / "user.out").find("--allow-unisolated"), std::string::npos);
  ASSERT_EQ(command("--allow-unisolated"), 0) << read_text(scratch_ / "user.out");
  const Json report = results();
  EXPECT_EQ(report.at("extra_data").at("isolation").get<std::string>(), "user");
  EXPECT_TRUE(report.at("extra_data").at("unisolated").get<bool>());
  EXPECT_NE(read_text(output_dir() / "summary.md").find("not isolated for marks"), std::string::npos);
}

// A row file no CTest test planned (one the submission might have forged)
// is not aggregated; the aggregation says so.
TEST_F(GradeEndToEnd, AggregationReadsOnlyThePlannedRowFiles) {
  const auto rows_dir = scratch_ / "rows";
  const auto run_coo = run_grade(
      args(fake("wrong_element"), {"--kernel", "coo", "--journal", rows_dir.string(), "--quiet"}), scratch_.path());
  ASSERT_EQ(run_coo.exit_code, 0) << "a journal run succeeds once every row has a verdict\n"
                                  << run_coo.out << run_coo.err;
  // A forged file: the same rows, all passing.
  std::string forged = read_text(rows_dir / "coo.jsonl");
  for (std::size_t at = 0; (at = forged.find("\"verdict\":\"wrong\"", at)) != std::string::npos;) {
    forged.replace(at, 17, "\"verdict\":\"pass\"");
  }
  write_text(rows_dir / "forged.jsonl", forged);
  write_text(scratch_ / "planned.txt", "coo.jsonl\n");
  const auto run = run_grade({"--aggregate", rows_dir.string(), "--planned", (scratch_ / "planned.txt").string(),
                              "--output-dir", output_dir().string()},
                             scratch_.path());
  EXPECT_NE(run.err.find("forged.jsonl"), std::string::npos) << run.err;
  const Json report = results();
  EXPECT_EQ(report.at("tests").size(), 2U);
  EXPECT_EQ(report.at("score").get<double>(), 0) << "the forged passes were not counted";
}

#ifdef SPMV_LINKS_CUSPARSE_PLUGIN
// The policy's [libraries] forbidden is what the runner checks a plugin
// against: a plugin linking libcusparse is refused by default, and passes
// that check (to fail later, its stand-in library out of the runner's
// sight) when only cuBLAS is forbidden.
TEST_F(GradeEndToEnd, TheForbiddenLibrariesAreThePolicys) {
  const std::filesystem::path plugin = SPMV_LINKS_CUSPARSE_PLUGIN;
  const auto refused = grade(plugin, {"--kernel", "coo"});
  EXPECT_EQ(refused.exit_code, 1) << context_;
  const std::string by_default = rows().at(0).at("summary").get<std::string>();
  EXPECT_NE(by_default.find("links libcusparse.so.99"), std::string::npos) << by_default;
  write_text(scratch_ / "cublas-only.ini", "[libraries]\nforbidden = cublas\n");
  grade(plugin, {"--kernel", "coo", "--policy", (scratch_ / "cublas-only.ini").string()});
  const std::string allowed = rows().at(0).at("summary").get<std::string>();
  EXPECT_EQ(allowed.find("links libcusparse.so.99"), std::string::npos) << allowed;
}
#endif

// CTest's row tests: --show-row prints one row of a kernel's journal and
// exits with its verdict; a row the journal lacks is "not graded" (3).
TEST_F(GradeEndToEnd, ShowRowExitsWithTheRowsVerdict) {
  const auto rows_dir = scratch_ / "rows";
  const auto journal = [&](const std::string& kernel) { return (rows_dir / (kernel + ".jsonl")).string(); };
  // coo of this fake is wrong on every case; csr_scalar of the host reference passes.
  ASSERT_EQ(run_grade(args(fake("wrong_element"), {"--kernel", "coo", "--journal", rows_dir.string(), "--quiet"}),
                      scratch_.path())
                .exit_code,
            0);
  ASSERT_EQ(run_grade(args(kHostReference, {"--kernel", "csr_scalar", "--journal", rows_dir.string(), "--quiet"}),
                      scratch_.path())
                .exit_code,
            0);
  const auto show = [&](const std::string& file, const std::string& kernel, const std::string& case_name) {
    return run_grade({"--show-row", file, "--kernel", kernel, "--case", case_name}, scratch_.path());
  };
  const auto wrong = show(journal("coo"), "coo", "tiny_wide");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out << wrong.err;
  EXPECT_NE(wrong.out.find("coo / tiny_wide: wrong"), std::string::npos) << wrong.out;
  const auto passed = show(journal("csr_scalar"), "csr_scalar", "mixed_rows");
  EXPECT_EQ(passed.exit_code, 0) << passed.out << passed.err;
  EXPECT_NE(passed.out.find("csr_scalar / mixed_rows: pass"), std::string::npos) << passed.out;
  EXPECT_EQ(show(journal("csr_scalar"), "csr_scalar", "no_such_case").exit_code, 3);
  EXPECT_EQ(show(journal("coo"), "csr_scalar", "mixed_rows").exit_code, 3) << "the row is not in that journal";
  EXPECT_EQ(show(journal("ell"), "ell", "mixed_rows").exit_code, 3) << "no journal: the kernel was not graded";
  EXPECT_EQ(run_grade({"--show-row", journal("coo"), "--kernel", "coo"}, scratch_.path()).exit_code, 2)
      << "a row needs its --case";
}

// CTest's whole grading writes every kernel's journal in one run; a kernel's
// own run after it finds its rows finished and grades nothing (here a wrong
// submission would change them), and where a row is missing it grades that
// row only, keeping the others as they were.
TEST_F(GradeEndToEnd, AKernelsOwnRunGradesOnlyTheRowsTheWholeRunLeft) {
  const auto rows_dir = scratch_ / "rows";
  const auto whole = run_grade(args(kHostReference, {"--kernel", "coo,jds", "--journal", rows_dir.string(), "--quiet"}),
                               scratch_.path());
  ASSERT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  for (const std::string kernel : {"coo", "jds"}) {
    const auto journal = read_json_lines(rows_dir / (kernel + ".jsonl"));
    ASSERT_EQ(journal.size(), 2U) << kernel;
    for (const auto& row : journal) {
      EXPECT_EQ(row.at("kernel").get<std::string>(), kernel);
      EXPECT_EQ(row.at("verdict").get<std::string>(), "pass") << kernel;
    }
  }
  const std::string coo_rows = read_text(rows_dir / "coo.jsonl");

  const auto own = [&] {
    return run_grade(args(fake("wrong_element"), {"--kernel", "coo", "--journal", rows_dir.string(), "--quiet"}),
                     scratch_.path());
  };
  const auto nothing_left = own();
  EXPECT_EQ(nothing_left.exit_code, 0) << nothing_left.out << nothing_left.err;
  EXPECT_NE(nothing_left.out.find("graded already"), std::string::npos) << nothing_left.out;
  EXPECT_NE(nothing_left.out.find("coo / tiny_wide: pass"), std::string::npos) << nothing_left.out;
  EXPECT_EQ(read_text(rows_dir / "coo.jsonl"), coo_rows) << "a finished row was graded again";

  // The whole run stopped after coo's first row: the second is "not run".
  std::istringstream lines(coo_rows);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  auto unfinished = second;
  const auto verdict_at = unfinished.find("\"verdict\":\"pass\"");
  ASSERT_NE(verdict_at, std::string::npos) << unfinished;
  unfinished.replace(verdict_at, 16, "\"verdict\":\"not_run\"");
  write_text(rows_dir / "coo.jsonl", first + "\n" + unfinished + "\n");
  const auto one_left = own();
  EXPECT_EQ(one_left.exit_code, 0) << one_left.out << one_left.err;
  EXPECT_EQ(one_left.out.find("graded already"), std::string::npos) << one_left.out;
  const auto after = read_json_lines(rows_dir / "coo.jsonl");
  ASSERT_EQ(after.size(), 2U);
  std::istringstream after_lines(read_text(rows_dir / "coo.jsonl"));
  std::string after_first;
  std::getline(after_lines, after_first);
  EXPECT_EQ(after_first, first) << "the finished row was kept as it was";
  EXPECT_EQ(after[1].at("verdict").get<std::string>(), "wrong") << "the missing row was graded, with this submission";
  EXPECT_EQ(read_json_lines(rows_dir / "jds.jsonl").size(), 2U) << "another kernel's journal was touched";
}

// A grader killed midway leaves its finished rows; --resume grades only the
// rest and keeps the finished ones as they were.
TEST_F(GradeEndToEnd, ResumeGradesOnlyTheMissingRows) {
  grade(kHostReference, {"--kernel", "coo,csr_scalar,jds"});
  const auto all = read_json_lines(output_dir() / "rows.jsonl");
  ASSERT_EQ(all.size(), 6U) << context_;
  // As a kill would leave it: four rows and half of the fifth.
  std::istringstream lines(read_text(output_dir() / "rows.jsonl"));
  std::string kept, line;
  for (int i = 0; i < 4 && std::getline(lines, line); ++i) kept += line + "\n";
  std::getline(lines, line);
  write_text(output_dir() / "rows.jsonl", kept + line.substr(0, line.size() / 2));
  const std::string kept_rows = kept;
  grade(kHostReference, {"--kernel", "coo,csr_scalar,jds", "--resume"});
  ASSERT_EQ(read_json_lines(output_dir() / "rows.jsonl").size(), 6U) << context_;
  const std::string after = read_text(output_dir() / "rows.jsonl");
  EXPECT_EQ(first_lines(after, 4), first_lines(kept_rows, 4)) << "the finished rows were not kept as they were";
  const auto resumed = read_json_lines(output_dir() / "rows.jsonl");
  ASSERT_EQ(resumed.size(), 6U) << context_;
  for (std::size_t i = 4; i < resumed.size(); ++i) EXPECT_EQ(resumed[i].at("verdict").get<std::string>(), "pass");
  const std::string progress = read_text(scratch_ / "grader.stdout");
  EXPECT_NE(progress.find("[5/6]"), std::string::npos) << "rows 5 and 6 graded in the resumed run\n" << context_;
  EXPECT_EQ(progress.find("[4/6]"), std::string::npos) << "row 4 graded again\n" << context_;
  EXPECT_EQ(results().at("tests").size(), 6U);
}

TEST_F(GradeEndToEnd, PolicyFileSetsKernelWeightsAndShares) {
  write_text(scratch_ / "policy.ini",
             "total_points = 40\ncorrectness_share = 1\n[kernels]\ncoo = 3\ncsr_scalar = 1\nell = 0\n");
  const auto run = grade(kHostReference, {"--policy", (scratch_ / "policy.ini").string(), "--case", "tiny_wide"});
  ASSERT_EQ(run.exit_code, 0) << context_;
  const Json report = results();
  std::map<std::string, double> max_scores;
  for (const auto& test : report.at("tests")) {
    max_scores[test.at("name").get<std::string>()] = test.at("max_score").get<double>();
    // With a correctness share of 1, speed does not matter.
    EXPECT_EQ(test.at("score").get<double>(), test.at("max_score").get<double>()) << test.at("name").get<std::string>();
  }
  EXPECT_EQ(max_scores, (std::map<std::string, double>{{"coo / tiny_wide", 30}, {"csr_scalar / tiny_wide", 10}}))
      << context_;
  EXPECT_EQ(report.at("score").get<double>(), 40);
}

// A row scored by speed gets the submission's runner's calibration (before
// its plugin is loaded) and the reference's bursts after; a row too short
// to score (the policy's timing.min_reference_us), known from the
// reference's pilot, gets neither, and says why it is correctness-only.
TEST_F(GradeEndToEnd, OnlyARowScoredBySpeedIsCalibratedInItsRunnerAndTimedAgainAfter) {
  for (const bool scored : {true, false}) {
    write_text(scratch_ / "policy.ini", std::string("[timing]\nmin_reference_us = ") + (scored ? "0" : "1e9") + "\n");
    const auto run = grade(kHostReference, {"--policy", (scratch_ / "policy.ini").string(), "--kernel", "csr_scalar"});
    ASSERT_EQ(run.exit_code, 0) << context_;
    const auto graded = rows();
    ASSERT_FALSE(graded.empty()) << context_;
    for (const auto& row : graded) {
      const std::string where = row.at("case").get<std::string>() + (scored ? " (scored)" : " (short)");
      const auto& bursts = row.at("timing_bursts_ms");
      ASSERT_FALSE(bursts.at("reference_before").empty()) << where;
      EXPECT_FALSE(bursts.at("submission").empty()) << where;
      if (scored) {
        ASSERT_TRUE(bursts.contains("submission_calibration")) << where;
        EXPECT_EQ(bursts.at("submission_calibration").size(), 3U) << where;
        EXPECT_FALSE(bursts.at("reference_after").empty()) << where;
      } else {
        EXPECT_FALSE(bursts.contains("submission_calibration")) << where;
        EXPECT_TRUE(bursts.at("reference_after").empty()) << where;
        // Under any threshold this high by the pilot already: the reason
        // names it, and the reference's bursts are the fewest.
        EXPECT_NE(row.at("correctness_only").get<std::string>().find("pilot bursts"), std::string::npos)
            << where << ": " << row.at("correctness_only").get<std::string>();
        EXPECT_GT(row.at("timing_parts_ms").at("reference_pilot_link").get<double>(), 0) << where;
        EXPECT_EQ(bursts.at("reference_before").size(), 2U) << where;
        EXPECT_TRUE(row.at("flags").empty()) << where;
      }
    }
  }
}

TEST_F(GradeEndToEnd, SecretSeedIsNeverWritten) {
  const std::string secret = "hunter2-correct-horse-" + std::to_string(seed_);
  const auto secret_file = scratch_ / "secret-seed";
  std::ofstream(secret_file) << secret << '\n';
  grade(kHostReference, {"--kernel", "coo", "--secret-seed-file", secret_file.string()});
  std::string everything = read_text(output_dir() / "results.json") + read_text(output_dir() / "rows.jsonl") +
                           read_text(output_dir() / "summary.md") + read_text(scratch_ / "grader.stdout");
  for (const auto& log : std::filesystem::recursive_directory_iterator(output_dir())) {
    if (log.is_regular_file()) everything += read_text(log.path());
  }
  EXPECT_EQ(everything.find(secret), std::string::npos);
  for (const auto& row : rows()) EXPECT_TRUE(row.at("x_seed").is_null()) << "x seeds would reveal x";
  EXPECT_FALSE(results().at("extra_data").contains("seed"));

  grade(kHostReference, {"--kernel", "coo"});
  EXPECT_EQ(results().at("extra_data").at("seed").get<std::string>(), std::to_string(seed_)) << context_;
}

TEST_F(GradeEndToEnd, ConfigFileFillsInAndTheCommandLineWins) {
  write_text(scratch_ / "grade.cfg", "kernel = coo\ncase = tiny_*\nmin-runs = 2\n");
  const auto run = grade(kHostReference, {"--config", (scratch_ / "grade.cfg").string(), "--kernel", "jds"});
  ASSERT_EQ(run.exit_code, 0) << context_;
  EXPECT_EQ(names_of_tests(results()), (std::set<std::string>{"jds / tiny_wide"})) << context_;
}

TEST_F(GradeEndToEnd, ListShowsCasesAndKernels) {
  const auto run = grade(kHostReference, {"--list"});
  ASSERT_EQ(run.exit_code, 0) << context_;
  for (const std::string name : {"mixed_rows", "tiny_wide", "csr_vector", "hyb"}) {
    EXPECT_NE(run.out.find(name), std::string::npos) << name << " missing\n" << context_;
  }
}

// Usage errors: exit status 2 and one line on stderr naming the option.
struct UsageCase {
  std::vector<std::string> args;
  std::string named;
};

class UsageErrors : public GradeEndToEnd, public ::testing::WithParamInterface<UsageCase> {};

TEST_P(UsageErrors, ExitTwoWithOneLineNamingTheOption) {
  const auto& usage = GetParam();
  const auto run = run_grade(usage.args, scratch_.path());
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(usage.named), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "one line: " << run.err;
}

INSTANTIATE_TEST_SUITE_P(Options, UsageErrors,
                         ::testing::Values(UsageCase{{"--bogus"}, "--bogus"},
                                           UsageCase{{"--timeout", "abc"}, "timeout"},
                                           UsageCase{{"--timeout", "-1"}, "timeout"},
                                           UsageCase{{"--seed", "-5"}, "--seed"},
                                           UsageCase{{"--min-runs", "0"}, "min-runs"},
                                           UsageCase{{"--prestart", "9"}, "prestart"}, UsageCase{{"stray"}, "stray"},
                                           UsageCase{{"--config", "/nonexistent/grade.cfg"}, "/nonexistent/grade.cfg"},
                                           UsageCase{{"--policy", "/nonexistent/policy.ini"}, "policy"}));

TEST_F(GradeEndToEnd, UnknownKernelAndUnmatchedCaseAreUsageErrors) {
  auto run = grade(kHostReference, {"--kernel", "sell_c_sigma"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("sell_c_sigma"), std::string::npos) << context_;
  run = grade(kHostReference, {"--case", "no_such_case"});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("tiny_wide"), std::string::npos) << "the message lists the cases\n" << context_;
}

TEST_F(GradeEndToEnd, BadConfigAndPolicyValuesAreUsageErrors) {
  write_text(scratch_ / "grade.cfg", "timeout = soon\n");
  auto run = grade(kHostReference, {"--config", (scratch_ / "grade.cfg").string()});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("grade.cfg"), std::string::npos) << context_;

  write_text(scratch_ / "policy.ini", "[speedup]\nfull_credit_at = fast\n");
  run = grade(kHostReference, {"--policy", (scratch_ / "policy.ini").string()});
  EXPECT_EQ(run.exit_code, 2) << context_;
  EXPECT_NE(run.err.find("speedup.full_credit_at"), std::string::npos) << context_;
}

TEST_F(GradeEndToEnd, HelpHasExamplesAndExitCodes) {
  const auto run = run_grade({"--help"}, scratch_.path());
  EXPECT_EQ(run.exit_code, 0);
  for (const std::string part : {"Examples:", "Exit status:", "--submission", "--strict-gpu", "--prestart", "77"}) {
    EXPECT_NE(run.out.find(part), std::string::npos) << part;
  }
}

// A device plugin where CUDA finds no GPU: rows skipped, host-side work
// done, exit 0 (or 77 with --strict-gpu). CUDA_VISIBLE_DEVICES hides any GPU
// the machine has.
TEST_F(GradeEndToEnd, WithoutAGpuDeviceRowsAreSkipped) {
  const std::filesystem::path student = SPMV_STUDENT_PLUGIN;
  const std::filesystem::path reference = SPMV_DEVICE_REFERENCE;
  if (student.empty() || reference.empty()) GTEST_SKIP() << "the device plugins are not part of this build";
  std::vector<std::string> arguments{"--submission", student.string(),     "--reference",  reference.string(),
                                     "--cases",      cases_dir().string(), "--output-dir", output_dir().string()};
  const std::vector<std::pair<std::string, std::string>> no_gpu{{"CUDA_VISIBLE_DEVICES", ""}};
  auto run = run_grade(arguments, scratch_.path(), no_gpu);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("No CUDA GPU found"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("2 cases read, converted and checked"), std::string::npos) << run.out;
  const Json report = results();
  ASSERT_EQ(report.at("tests").size(), 12U);
  for (const auto& test : report.at("tests")) {
    EXPECT_EQ(test.at("extra_data").at("verdict").get<std::string>(), "skipped") << test.at("name").get<std::string>();
  }
  arguments.emplace_back("--strict-gpu");
  run = run_grade(arguments, scratch_.path(), no_gpu);
  EXPECT_EQ(run.exit_code, 77) << run.out << run.err;
}

}  // namespace
}  // namespace spmv::test
