// spmv-grade with children forked ahead of their rows (--prestart), end to
// end on the host path: the rows are the same whatever the number; a
// crash, hang or exit() costs only its own row; a grader killed or stopped
// mid-run leaves no child behind. And, on a GPU only, the GPU check's cache
// shared by CTest's one-row runs.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <csignal>
#include <map>
#include <regex>
#include <set>

#include "grade_end_to_end.hpp"
#include "runners/probe.hpp"

namespace spmv::test {
namespace {

using grade::Json;

const std::filesystem::path kRowFaultsPlugin = SPMV_ROW_FAULTS_PLUGIN;
const std::filesystem::path kStubFaultsPlugin = SPMV_STUB_FAULTS_PLUGIN;
// The exit status of a child that finds its start channel closed.
constexpr int kNeverStartedStatus = 70;

// Fields whose values are measured times (or follow from them), or drawn at
// random (which timed launches were checked).
const std::set<std::string> kTimingFields{
    "submission_ms",   "reference_ms",       "cusparse_ms",       "speedup",          "gbps",      "percent_of_copy",
    "cusparse_gbps",   "submission_samples", "reference_samples", "checked_launches", "bound_use", "phase_ms",
    "timing_parts_ms", "timing_bursts_ms",   "burst_links",       "correctness_only"};

std::string render(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number()) return std::to_string(value.get<double>());
  if (value.is_string()) return '"' + value.get<std::string>() + '"';
  if (value.is_object()) {
    std::string text = "{";
    for (const auto& member : value.items()) text += member.key() + ":" + render(member.value()) + ",";
    return text + "}";
  }
  std::string text = "[";
  for (const auto& item : value) text += render(item) + ",";
  return text + "]";
}

// A row as text, without what differs from run to run: its times, the
// part of a pass's summary that quotes them, a pass's timing flags, and the
// output folder.
std::string row_signature(const Json& row) {
  std::string text;
  for (const auto& member : row.items()) {
    const std::string& name = member.key();
    const Json& value = member.value();
    if (kTimingFields.count(name) != 0) continue;
    std::string shown = render(value);
    if (name == "summary" && verdict_of(row) == "pass") shown = shown.substr(0, shown.find(';'));
    // A passing row's flags and their reasons come from its times too (a
    // tiny host case can time 10x apart from one run to the next).
    if ((name == "flags" || name == "detail") && verdict_of(row) == "pass") continue;
    if (name == "log_file") shown = std::filesystem::path(value.get<std::string>()).filename().string();
    text += name + "=" + shown + "\n";
  }
  return text;
}

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', ...), '\0' if gone.
char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '\0' : text[close + 2];
}

pid_t parent_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  char state = 0;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

std::set<pid_t> children_of(pid_t parent) {
  std::set<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (parent_of(pid) == parent) children.insert(pid);
  }
  return children;
}

class Prestart : public GradeEndToEnd {
 protected:
  // A policy whose rows are all short (correctness only; their runners may
  // be kept for the case's next rows) or all scored by speed (a runner
  // each, but a stub's): on the host path, whether a row is short depends
  // on its times.
  std::string policy(bool all_short) {
    const auto file = scratch_ / (all_short ? "all-short.ini" : "all-scored.ini");
    write_text(file, std::string("[timing]\nmin_reference_us = ") + (all_short ? "1e9" : "0") + "\n");
    return file.string();
  }

  // The rows of a run with --prestart N, each as its signature, in order;
  // every row scored by speed (policy(false)) unless `more` names a policy.
  std::vector<std::string> signatures(const std::filesystem::path& submission, int prestart,
                                      std::vector<std::string> more) {
    if (std::find(more.begin(), more.end(), "--policy") == more.end())
      more.insert(more.end(), {"--policy", policy(false)});
    more.insert(more.end(), {"--prestart", std::to_string(prestart)});
    last_run_ = grade(submission, std::move(more));
    std::vector<std::string> all;
    for (const auto& row : rows()) all.push_back(row_signature(row));
    return all;
  }

  GradeResult last_run_;
};

class PrestartWithFake : public Prestart, public ::testing::WithParamInterface<FakeCase> {};

TEST_P(PrestartWithFake, RowsAreTheSameWhateverTheNumberOfChildrenAhead) {
  const FakeCase& fake_case = GetParam();
  // A hang costs the whole limit per row: two rows are enough.
  const std::vector<std::string> selection =
      fake_case.fault == "hang"
          ? std::vector<std::string>{"--kernel", "coo,csr_scalar", "--case", "tiny_wide", "--timeout", "1"}
          : std::vector<std::string>{"--timeout", "30"};
  const auto one_at_a_time = signatures(fake(fake_case.fault), 0, selection);
  const int exit_code = last_run_.exit_code;
  ASSERT_FALSE(one_at_a_time.empty()) << context_;
  for (const int prestart : {1, 2}) {
    const auto ahead = signatures(fake(fake_case.fault), prestart, selection);
    EXPECT_EQ(last_run_.exit_code, exit_code) << "--prestart " << prestart << "\n" << context_;
    ASSERT_EQ(ahead.size(), one_at_a_time.size()) << "--prestart " << prestart << "\n" << context_;
    for (std::size_t i = 0; i < ahead.size(); ++i) {
      EXPECT_EQ(ahead[i], one_at_a_time[i]) << "row " << i << " with --prestart " << prestart << "\n" << context_;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HostFakes, PrestartWithFake, ::testing::ValuesIn(read_fakes()),
                         [](const ::testing::TestParamInfo<FakeCase>& param) { return param.param.fault; });

// The row-faults plugin fails in csr_scalar (SIGSEGV), ell (hangs) and hyb
// (exit(0)) and is correct in coo, csr_vector and jds; the rows' runners
// start up ahead of their turn.
TEST_F(Prestart, AFailingRowCostsOnlyItself) {
  const std::vector<std::string> selection{"--timeout", "1"};
  const auto ahead = signatures(kRowFaultsPlugin, 2, selection);
  EXPECT_EQ(last_run_.exit_code, 1) << context_;
  const auto all_rows = rows();
  ASSERT_EQ(all_rows.size(), 12U) << "6 kernels x 2 cases\n" << context_;
  const std::map<std::string, std::pair<std::string, std::string>> expected{
      {"coo", {"pass", ""}},           {"csr_scalar", {"crash", "signal"}}, {"csr_vector", {"pass", ""}},
      {"ell", {"timeout", "timeout"}}, {"hyb", {"crash", "exit"}},          {"jds", {"pass", ""}}};
  for (const auto& row : all_rows) {
    const std::string kernel = row.at("kernel").get<std::string>();
    const std::string where =
        kernel + " / " + row.at("case").get<std::string>() + ": " + row.at("summary").get<std::string>();
    if (kernel == "jds" && row.at("rows").get<int>() > 20) {
      EXPECT_EQ(verdict_of(row), "wrong") << where;
      continue;
    }
    EXPECT_EQ(verdict_of(row), expected.at(kernel).first) << where << "\n" << context_;
    EXPECT_EQ(cause_of(row), expected.at(kernel).second) << where;
  }
  const auto one_at_a_time = signatures(kRowFaultsPlugin, 0, selection);
  ASSERT_EQ(one_at_a_time.size(), ahead.size()) << context_;
  for (std::size_t i = 0; i < ahead.size(); ++i) EXPECT_EQ(ahead[i], one_at_a_time[i]) << "row " << i;
}

// A kernel's rows are checked first, in one runner, before anything of the
// reference: a row that fails there (a crash, a wrong result) ends with no
// reference set up; a row that passes is graded in full (the reference's
// bursts, its own in the kernel's timing runner), its first check a phase
// of its time.
TEST_F(Prestart, AKernelsRowsAreCheckedBeforeTheReferenceIsTimed) {
  grade(kRowFaultsPlugin, {"--timeout", "1", "--kernel", "coo,csr_scalar,jds"});
  std::map<std::string, std::vector<Json>> by_kernel;
  for (const auto& row : rows()) by_kernel[row.at("kernel").get<std::string>()].push_back(row);
  ASSERT_EQ(by_kernel.size(), 3U) << context_;
  const auto phases = [](const Json& row) { return row.at("phase_ms"); };
  for (const auto& [kernel, kernel_rows] : by_kernel) {
    ASSERT_EQ(kernel_rows.size(), 2U) << kernel;
    // Cases in order: mixed_rows (60 rows), then tiny_wide (5 rows).
    ASSERT_GT(kernel_rows[0].at("rows").get<int>(), 20) << kernel;
  }
  for (const Json& row : by_kernel["coo"]) {
    EXPECT_EQ(verdict_of(row), "pass") << row.at("summary").get<std::string>();
    EXPECT_TRUE(phases(row).contains("correctness_first")) << "its first check is not in its time";
    EXPECT_TRUE(phases(row).contains("reference_bursts")) << "a passing row was not graded in full";
    EXPECT_TRUE(phases(row).contains("bursts")) << "its launches were not checked in bursts";
  }
  for (const Json& crash : by_kernel["csr_scalar"]) {
    EXPECT_EQ(verdict_of(crash), "crash") << crash.at("summary").get<std::string>();
    EXPECT_FALSE(phases(crash).contains("reference_bursts")) << "a crashing row had the reference timed";
  }
  const Json& wrong = by_kernel["jds"][0];
  EXPECT_EQ(verdict_of(wrong), "wrong") << wrong.at("summary").get<std::string>();
  EXPECT_FALSE(phases(wrong).contains("reference_bursts")) << "a wrong row had the reference timed";
  const Json& recovered = by_kernel["jds"][1];
  EXPECT_EQ(verdict_of(recovered), "pass") << recovered.at("summary").get<std::string>() << "\n" << context_;
  EXPECT_TRUE(phases(recovered).contains("reference_bursts")) << "the row after a failing one was not graded in full";
  EXPECT_EQ(recovered.at("detail").get<std::string>().find("Graded again"), std::string::npos)
      << "a row that passed in the runner after a failure needs no second grading";
}

// A stub's rows: each kernel's share one runner (the log of the kernel's
// first row), whatever the number of runners started ahead, and nothing of
// the reference runs for them.
TEST_F(Prestart, AStubsRowsShareOneRunnerPerKernel) {
  const std::vector<std::string> options{"--timeout", "30", "--policy", policy(true)};
  const auto each = signatures(fake("not_implemented"), 0, options);
  const auto ahead = signatures(fake("not_implemented"), 2, options);
  ASSERT_EQ(ahead.size(), each.size()) << context_;
  ASSERT_EQ(ahead.size(), 12U) << context_;
  for (const auto& row : rows()) {
    const std::string kernel = row.at("kernel").get<std::string>();
    EXPECT_EQ(verdict_of(row), "not_implemented") << row.at("summary").get<std::string>();
    EXPECT_EQ(std::filesystem::path(row.at("log_file").get<std::string>()).filename().string(),
              kernel + "__mixed_rows.log")
        << kernel << " / " << row.at("case").get<std::string>() << ": not the kernel's one runner";
    EXPECT_FALSE(row.at("phase_ms").contains("reference_bursts")) << kernel << ": a stub's row had the reference timed";
  }
  for (std::size_t i = 0; i < ahead.size(); ++i) EXPECT_EQ(ahead[i], each[i]) << "row " << i;
}

// Rows are graded kernel by kernel, a kernel's cases in their order, as
// rows.jsonl (the journal) and the reports list them.
TEST_F(Prestart, RowsAreGradedKernelByKernelAndReportedAsPlanned) {
  grade(kStubFaultsPlugin, {"--timeout", "30", "--policy", policy(false)});
  std::vector<std::string> graded;
  for (const auto& row : rows()) {
    graded.push_back(row.at("kernel").get<std::string>() + "/" + row.at("case").get<std::string>());
  }
  const std::vector<std::string> expected{"coo/mixed_rows",       "coo/tiny_wide",         "csr_scalar/mixed_rows",
                                          "csr_scalar/tiny_wide", "csr_vector/mixed_rows", "csr_vector/tiny_wide",
                                          "ell/mixed_rows",       "ell/tiny_wide",         "hyb/mixed_rows",
                                          "hyb/tiny_wide",        "jds/mixed_rows",        "jds/tiny_wide"};
  EXPECT_EQ(graded, expected) << context_;
  // The reports' order (kernel, then case: report_common.cpp) is the
  // order graded too.
  const Json report = results();
  std::vector<std::string> reported;
  for (const auto& test : report.at("tests")) {
    std::string name = test.at("name").get<std::string>();
    reported.push_back(name.replace(name.find(" / "), 3, "/"));
  }
  EXPECT_EQ(reported, expected) << context_;
}

// A kernel's rows share its runners. The stub-faults plugin: csr_scalar's
// timed rows both write into its timing runner's log; ell prints once in
// its process, and only the first row of each of its runners shows it;
// hyb, wrong on any matrix but its process's first, fails tiny_wide after
// passing mixed_rows in one runner, and passes it graded again in a runner
// of its own (the detail says so); csr_vector, wrong in any runner, fails
// each row first in its runner and is not graded again.
TEST_F(Prestart, AKernelsRowsShareItsRunnersAndAFailureAfterAnotherIsGradedAlone) {
  const GradeResult graded = grade(kStubFaultsPlugin, {"--timeout", "30", "--policy", policy(false)});
  // The Time line says where the rows' time went, step by step (each part
  // to 0.1 s): its parts, all on the grading's own thread, one after the
  // other, add up to no more than the rows' time, and the waits for
  // runners to end are part of the reference's windows.
  const std::regex time_line(
      R"(rows ([0-9.]+) s: waiting for cases ([0-9.]+) s, checks ([0-9.]+) s, the reference's windows ([0-9.]+) s )"
      R"(\(([0-9.]+) s of it waiting for runners to end\), timing runners ([0-9.]+) s, graded again alone ([0-9.]+) s\))");
  std::smatch parts;
  ASSERT_TRUE(std::regex_search(graded.out, parts, time_line)) << context_;
  const auto part = [&](int k) { return std::stod(parts[k].str()); };
  const double rows_s = part(1);
  EXPECT_LE(part(2) + part(3) + part(4) + part(6) + part(7), rows_s + 0.3) << parts[0].str();
  EXPECT_LE(part(5), part(4) + 0.1) << parts[0].str();
  std::map<std::string, std::vector<Json>> by_kernel;
  for (const auto& row : rows()) by_kernel[row.at("kernel").get<std::string>()].push_back(row);
  ASSERT_EQ(by_kernel.size(), 6U) << context_;
  const auto log = [](const Json& row) {
    return std::filesystem::path(row.at("log_file").get<std::string>()).filename().string();
  };
  const auto detail = [](const Json& row) { return row.at("detail").get<std::string>(); };
  const std::string again = "Graded again in a runner of its own";
  for (const Json& row : by_kernel["csr_scalar"]) {
    EXPECT_EQ(verdict_of(row), "pass") << row.at("summary").get<std::string>();
    EXPECT_EQ(log(row), "csr_scalar__mixed_rows.timing.log") << "not the kernel's timing runner";
  }
  // The reference runner read each image once (a case in a format) and
  // served it again from its cache: a scored row's windows after set up
  // what its windows before had.
  std::set<std::string> images;
  for (const auto& row : rows())
    images.insert(row.at("case").get<std::string>() + "/" + row.at("format").get<std::string>());
  const std::string reference_log = read_text(output_dir() / "logs" / "reference-runner.log");
  std::smatch served;
  ASSERT_TRUE(std::regex_search(reference_log, served,
                                std::regex(R"(matrix images: ([0-9]+) read, ([0-9]+) from the runner's cache)")))
      << reference_log;
  EXPECT_LE(std::stoul(served[1].str()), images.size()) << served[0].str();
  EXPECT_GT(std::stoul(served[2].str()), 0U) << served[0].str();
  // A timing runner only for a kernel that passed a row in step 1: none for
  // coo (a stub) or csr_vector (wrong everywhere).
  const std::filesystem::path logs = output_dir() / "logs";
  EXPECT_TRUE(std::filesystem::exists(logs / "csr_scalar__mixed_rows.timing.log")) << context_;
  for (const std::string kernel : {"coo", "csr_vector"}) {
    for (const auto& entry : std::filesystem::directory_iterator(logs)) {
      const std::string name = entry.path().filename().string();
      EXPECT_FALSE(name.rfind(kernel + "__", 0) == 0 && name.find(".timing.") != std::string::npos)
          << name << ": a timing runner for a kernel that passed no row";
    }
  }
  ASSERT_EQ(by_kernel["ell"].size(), 2U);
  for (const Json& row : by_kernel["ell"]) EXPECT_EQ(verdict_of(row), "pass") << row.at("summary").get<std::string>();
  const std::string first_output = by_kernel["ell"][0].at("submission_output").get<std::string>();
  const std::string second_output = by_kernel["ell"][1].at("submission_output").get<std::string>();
  EXPECT_NE(first_output.find("ell was here"), std::string::npos) << first_output;
  EXPECT_EQ(second_output.find("ell was here"), std::string::npos) << "the second row shows the first's output";
  ASSERT_EQ(by_kernel["hyb"].size(), 2U);
  EXPECT_EQ(verdict_of(by_kernel["hyb"][0]), "pass") << by_kernel["hyb"][0].at("summary").get<std::string>();
  EXPECT_EQ(detail(by_kernel["hyb"][0]).find(again), std::string::npos);
  const Json& regraded = by_kernel["hyb"][1];
  EXPECT_EQ(verdict_of(regraded), "pass") << regraded.at("summary").get<std::string>() << "\n" << context_;
  EXPECT_EQ(detail(regraded).find(again), 0U) << detail(regraded);
  EXPECT_NE(detail(regraded).find("wrong"), std::string::npos) << "the first grading's verdict is not said";
  EXPECT_TRUE(regraded.at("phase_ms").contains("first_attempt"));
  for (const Json& row : by_kernel["csr_vector"]) {
    EXPECT_EQ(verdict_of(row), "wrong") << row.at("summary").get<std::string>();
    EXPECT_EQ(detail(row).find(again), std::string::npos) << "failed first in its runner, yet graded again";
  }
}

// Two gradings sharing the GPU (--gpu-share, as tools/grade-class runs
// them), at the same time: the row-faults plugin's rows get the verdicts
// they get alone, each row that failed was graded again with the GPU to
// itself (its detail says so, its first attempt's time is a phase) but a
// later timeout of a kernel that timed out alone, and a passing row was
// graded once; the other grading is unharmed.
TEST_F(Prestart, GradingsSharingTheGpuGradeFailingRowsAgainAlone) {
  const auto alone = signatures(kRowFaultsPlugin, 2, {"--timeout", "1"});
  std::map<std::string, std::string> verdicts;
  for (const auto& row : rows())
    verdicts[row.at("kernel").get<std::string>() + "/" + row.at("case").get<std::string>()] =
        verdict_of(row) + " " + cause_of(row);
  const auto share = scratch_ / "gpu.share";
  const auto with_output = [&](const std::filesystem::path& submission, const std::filesystem::path& out) {
    auto all = args(submission, {"--timeout", "1", "--gpu-share", share.string()});
    const auto at = std::find(all.begin(), all.end(), "--output-dir");
    *(at + 1) = out.string();
    return all;
  };
  std::filesystem::create_directories(scratch_ / "faults");
  std::filesystem::create_directories(scratch_ / "correct");
  GradeProcess faults(with_output(kRowFaultsPlugin, output_dir()), scratch_ / "faults");
  GradeProcess correct(with_output(fake("correct"), scratch_ / "correct-out"), scratch_ / "correct");
  EXPECT_EQ(faults.wait(), 1) << faults.err();
  EXPECT_EQ(correct.wait(), 0) << correct.err();
  const auto shared_rows = rows();
  ASSERT_EQ(shared_rows.size(), alone.size()) << faults.out() << faults.err();
  std::set<std::string> hung_alone;  // kernels that timed out graded again alone
  for (const auto& row : shared_rows) {
    const std::string kernel = row.at("kernel").get<std::string>();
    const std::string key = kernel + "/" + row.at("case").get<std::string>();
    EXPECT_EQ(verdict_of(row) + " " + cause_of(row), verdicts.at(key)) << key;
    const std::string detail = row.at("detail").get<std::string>();
    const bool again = detail.find("Graded again with the GPU to itself") != std::string::npos;
    // A later timeout of a kernel that timed out alone stands.
    const bool stands = verdict_of(row) == "timeout" && hung_alone.count(kernel) != 0;
    EXPECT_EQ(again, verdict_of(row) != "pass" && !stands) << key << ": " << detail;
    EXPECT_EQ(row.at("phase_ms").contains("first_attempt"), again) << key;
    if (again && verdict_of(row) == "timeout") hung_alone.insert(kernel);
  }
  for (const auto& row : read_json_lines(scratch_ / "correct-out" / "rows.jsonl")) {
    EXPECT_EQ(verdict_of(row), "pass") << row.at("summary").get<std::string>();
  }
}

// Gradings sharing the GPU while two of them keep runners for their next
// rows (every row short, runners started ahead) and a third times every
// row alone: none waits for another for ever (a runner's start waited for
// while a kept runner holds the share), and each gets its verdicts.
TEST_F(Prestart, GradingsKeepingRunnersShareTheGpuWithoutStalling) {
  const auto share = scratch_ / "gpu.share";
  const auto run_args = [&](const std::filesystem::path& submission, const std::string& name, bool all_short) {
    std::filesystem::create_directories(scratch_ / name);
    auto all = args(submission, {"--timeout", "30", "--prestart", "2", "--gpu-share", share.string(), "--policy",
                                 policy(all_short)});
    *(std::find(all.begin(), all.end(), "--output-dir") + 1) = (scratch_ / (name + "-out")).string();
    return all;
  };
  GradeProcess stubs(run_args(kStubFaultsPlugin, "stubs", true), scratch_ / "stubs");
  GradeProcess correct(run_args(fake("correct"), "correct", true), scratch_ / "correct");
  GradeProcess scored(run_args(fake("correct"), "scored", false), scratch_ / "scored");
  EXPECT_EQ(stubs.wait(120), 1) << stubs.err();
  EXPECT_EQ(correct.wait(120), 0) << correct.err();
  EXPECT_EQ(scored.wait(120), 0) << scored.err();
  const auto stub_rows = read_json_lines(scratch_ / "stubs-out" / "rows.jsonl");
  EXPECT_EQ(stub_rows.size(), 12U);
  for (const auto& row : stub_rows) {
    const std::string kernel = row.at("kernel").get<std::string>();
    const std::string expected = kernel == "coo" ? "not_implemented" : kernel == "csr_vector" ? "wrong" : "pass";
    EXPECT_EQ(verdict_of(row), expected) << kernel << ": " << row.at("summary").get<std::string>();
  }
  for (const char* name : {"correct-out", "scored-out"}) {
    const auto all = read_json_lines(scratch_ / name / "rows.jsonl");
    EXPECT_EQ(all.size(), 12U) << name;
    for (const auto& row : all)
      EXPECT_EQ(verdict_of(row), "pass") << name << ": " << row.at("summary").get<std::string>();
  }
}

// With the GPU shared, a row that timed out is graded again alone, and once
// its kernel has timed out alone, its later timeouts stand (each costs the
// whole limit): the hanging fake's first row is graded twice, its second
// once.
TEST_F(Prestart, AKernelThatHangsAloneIsNotGradedAgainOnEveryRow) {
  const auto share = scratch_ / "gpu.share";
  grade(fake("hang"), {"--kernel", "coo", "--timeout", "1", "--gpu-share", share.string()});
  const auto all = rows();
  ASSERT_EQ(all.size(), 2U) << context_;
  for (const auto& row : all) EXPECT_EQ(verdict_of(row), "timeout") << row.at("summary").get<std::string>();
  const auto again = [](const Json& row) {
    return row.at("detail").get<std::string>().find("Graded again with the GPU to itself") != std::string::npos;
  };
  EXPECT_TRUE(again(all[0])) << all[0].at("detail").get<std::string>();
  EXPECT_FALSE(again(all[1])) << all[1].at("detail").get<std::string>();
}

// Each kernel's summary, on the console and at the top of summary.md: its
// rows passed and its first failing row with its cause, and a command that,
// pasted into a shell, grades that row again alone, as this run did; none
// with a secret seed.
TEST_F(GradeEndToEnd, EachKernelsSummaryNamesItsFirstFailureAndACommandThatGradesItAgain) {
  const auto run = grade(kRowFaultsPlugin, {"--kernel", "coo,jds", "--timeout", "5"});
  EXPECT_EQ(run.exit_code, 1) << context_;
  EXPECT_NE(run.out.find("Each kernel:"), std::string::npos) << context_;
  const std::string summary = read_text(output_dir() / "summary.md");
  EXPECT_NE(summary.find("- coo: 2 of 2 rows pass"), std::string::npos) << summary;
  const auto jds = summary.find("- jds: 1 of 2 rows pass");
  ASSERT_NE(jds, std::string::npos) << summary;
  const std::string line = summary.substr(jds, summary.find('\n', jds) - jds);
  EXPECT_NE(line.find("first failing: mixed_rows (wrong"), std::string::npos) << line;
  const std::string marker = "Grade it again alone: ";
  const auto command_at = line.find(marker);
  ASSERT_NE(command_at, std::string::npos) << line;
  const std::string command = line.substr(command_at + marker.size());
  EXPECT_NE(command.find("--kernel jds --case mixed_rows"), std::string::npos) << command;
  const int status = std::system((command + " --quiet > /dev/null 2>&1").c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 1) << command;
  const auto again = read_json_lines(output_dir() / "again" / "rows.jsonl");
  ASSERT_EQ(again.size(), 1U) << command;
  EXPECT_EQ(again[0].at("kernel").get<std::string>(), "jds");
  EXPECT_EQ(again[0].at("case").get<std::string>(), "mixed_rows");
  EXPECT_EQ(verdict_of(again[0]), "wrong");
  // The same x vectors as the run it came from (its --seed).
  for (const auto& row : rows()) {
    if (row.at("kernel") == "jds" && row.at("case") == "mixed_rows") {
      EXPECT_EQ(again[0].at("x_seed"), row.at("x_seed"));
    }
  }

  const auto secret = scratch_ / "secret";
  write_text(secret, "course secret " + std::to_string(seed_));
  grade(kRowFaultsPlugin, {"--kernel", "jds", "--timeout", "5", "--secret-seed-file", secret.string()});
  const std::string hidden = read_text(output_dir() / "summary.md");
  EXPECT_NE(hidden.find("- jds: 1 of 2 rows pass"), std::string::npos) << hidden;
  EXPECT_EQ(hidden.find(marker), std::string::npos) << "a command for a run with a secret seed: " << hidden;
}

// The test process adopts the grader's orphans (a child subreaper), so it
// sees whether they were left alive, and reaps them.
class PrestartStopped : public Prestart {
 protected:
  void SetUp() override {
    Prestart::SetUp();
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  }
  void TearDown() override { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }

  // Starts the hanging fake with runners started ahead and waits until its
  // runners are up: returns the grader's children then (the reference
  // runner and at least three of the kernels' runners: each kernel's
  // hanging row's and its timing runner waiting).
  std::set<pid_t> start_hanging_grader(std::unique_ptr<GradeProcess>& process) {
    process = std::make_unique<GradeProcess>(
        args(fake("hang"), {"--kernel", "coo,csr_scalar,ell", "--timeout", "2", "--prestart", "2"}), scratch_.path());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::set<pid_t> children;
    while (std::chrono::steady_clock::now() < deadline) {
      children = children_of(process->pid());
      if (children.size() >= 4) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return children;
  }

  // Reaps what the test adopted; true if all of `pids` ended by SIGKILL, or
  // by themselves on finding the grader's channel closed a moment before
  // SIGKILL came (status 0 or 70), or had already been reaped by the
  // grader. A runner that ran its row (the hanging fake) would hang.
  static bool all_killed(const std::set<pid_t>& pids, std::string& report) {
    bool killed = true;
    for (const pid_t pid : pids) {
      int status = 0;
      pid_t reaped = 0;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while ((reaped = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      // A runner's sandbox ends by SIGKILL, or by itself when its runner
      // found the grader's channel closed (status 0 or 70).
      const bool never_ran =
          (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
          (WIFEXITED(status) && (WEXITSTATUS(status) == kNeverStartedStatus || WEXITSTATUS(status) == 0));
      if (reaped == pid && !never_ran) {
        killed = false;
        report += "child " + std::to_string(pid) + " ended with status " + std::to_string(status) + "\n";
      } else if (reaped == 0) {
        killed = false;
        report += "child " + std::to_string(pid) + " still running (state " + process_state(pid) + ")\n";
      }
    }
    return killed;
  }

  void expect_finished_rows_written() const {
    const Json report = results();  // parses: never half-written
    const auto& tests = report.at("tests");
    ASSERT_EQ(tests.size(), 6U) << "every planned row is in the report";
    int finished = 0;
    for (const auto& test : tests) {
      const std::string verdict = test.at("extra_data").at("verdict").get<std::string>();
      EXPECT_TRUE(verdict == "timeout" || verdict == "not_run") << verdict;
      finished += verdict == "timeout" ? 1 : 0;
    }
    // Killed with the rows' runners up: none may have finished yet.
    EXPECT_EQ(read_json_lines(output_dir() / "rows.jsonl").size(), static_cast<std::size_t>(finished));
  }
};

class PrestartKilled : public PrestartStopped, public ::testing::WithParamInterface<int> {};

TEST_P(PrestartKilled, NoChildOutlivesTheGrader) {
  std::unique_ptr<GradeProcess> process;
  const std::set<pid_t> children = start_hanging_grader(process);
  // The kernel's running runner, its timing runner and the next kernel's
  // first waiting (and perhaps a runner ending), and the reference runner.
  ASSERT_GE(children.size(), 4U) << "expected the running row's runner, two waiting ones and the reference runner";
  ::kill(process->pid(), GetParam());
  process->wait();
  std::string report;
  EXPECT_TRUE(all_killed(children, report)) << report;
  expect_finished_rows_written();
}

INSTANTIATE_TEST_SUITE_P(Signals, PrestartKilled, ::testing::Values(SIGKILL, SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::string(sigabbrev_np(param.param));
                         });

// A grader that stops on an error of its own (here: results.json cannot be
// replaced) kills and reaps its waiting children itself, before it exits.
TEST_F(PrestartStopped, AGraderStoppingEarlyReapsItsWaitingChildren) {
  std::unique_ptr<GradeProcess> process;
  const std::set<pid_t> children = start_hanging_grader(process);
  // The kernel's running runner, its timing runner and the next kernel's
  // first waiting (and perhaps a runner ending), and the reference runner.
  ASSERT_GE(children.size(), 4U) << "expected the running row's runner, two waiting ones and the reference runner";
  std::filesystem::remove(output_dir() / "results.json");
  write_text(output_dir() / "results.json" / "in_the_way", "");
  EXPECT_EQ(process->wait(), 3) << process->err();
  for (const pid_t pid : children) {
    EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1) << "child " << pid << " was left to the test to reap";
  }
}

// CTest mode: the first row's run measures the GPU's copy bandwidth and
// keeps it beside the journals; later runs on the same GPU reuse it, a
// corrupt or foreign cache file is measured over. Needs a GPU.
TEST_F(GradeEndToEnd, CtestRowsShareTheGpuMeasurement) {
  const std::filesystem::path reference = SPMV_DEVICE_REFERENCE;
  if (reference.empty()) GTEST_SKIP() << "the device plugins are not part of this build";
  const auto rows_dir = scratch_ / "rows";
  const auto cache = rows_dir / "gpu-probe.json";
  const auto grade_row = [&](const std::string& kernel) -> std::optional<double> {
    const auto journal = rows_dir / (kernel + ".jsonl");
    const auto run = run_grade({"--submission",  reference.string(),
                                "--reference",   reference.string(),
                                "--cases",       cases_dir().string(),
                                "--case",        "tiny_wide",
                                "--kernel",      kernel,
                                "--journal",     rows_dir.string(),
                                "--output-dir",  output_dir().string(),
                                "--strict-gpu",  "--quiet",
                                "--min-runs",    "2",
                                "--min-time-ms", "0"},
                               scratch_.path());
    context_ = run.out + run.err;
    if (run.exit_code == 77) return std::nullopt;
    EXPECT_EQ(run.exit_code, 0) << context_;
    const auto lines = read_json_lines(journal);
    EXPECT_EQ(lines.size(), 1U) << context_;
    if (lines.empty() || !lines[0].at("copy_gbps").is_number()) return 0.0;
    return lines[0].at("copy_gbps").get<double>();
  };

  const auto first = grade_row("coo");
  if (!first) GTEST_SKIP() << "no CUDA GPU";
  const auto measured = grade::read_gpu_probe_cache(cache);
  ASSERT_TRUE(measured.has_value()) << "no cache after the first row\n" << context_;
  EXPECT_EQ(*first, measured->copy_gbps);
  const std::string cache_text = read_text(cache);

  EXPECT_EQ(grade_row("csr_scalar"), measured->copy_gbps) << "the second row measured again";
  EXPECT_EQ(read_text(cache), cache_text);

  write_text(cache, "{\"gpu\": \"not json");
  const auto after_corrupt = grade_row("ell");
  const auto remeasured = grade::read_gpu_probe_cache(cache);
  ASSERT_TRUE(remeasured.has_value()) << "a corrupt cache is replaced";
  EXPECT_EQ(remeasured->gpu_key, measured->gpu_key);
  EXPECT_EQ(after_corrupt, remeasured->copy_gbps);

  grade::write_gpu_probe_cache(cache, {"another GPU", 1.0});
  const auto after_foreign = grade_row("jds");
  EXPECT_NE(after_foreign, 1.0) << "another GPU's figure was used";
  EXPECT_EQ(grade::read_gpu_probe_cache(cache)->gpu_key, measured->gpu_key);
}

}  // namespace
}  // namespace spmv::test
