// Hostile submissions (hostile/hostile_plugin.cpp) graded end to end on the
// host path, at every isolation level this machine offers: each row gets its
// verdict, the grader and its reports survive untouched, nothing the
// submission should not reach shows up anywhere, and no process of a row
// outlives it.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "grade_end_to_end.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::test {
namespace {

const std::filesystem::path kHostileDir = SPMV_HOSTILE_DIR;
const std::filesystem::path kProbeDir = SPMV_HOSTILE_PROBE_DIR;

std::filesystem::path hostile(const std::string& attack) { return kHostileDir / ("libspmv_hostile_" + attack + ".so"); }

// What the grader must make of an attack's rows.
struct Expectation {
  std::string attack;
  std::string verdict;  // of every row
  std::string cause;    // "" for any
  std::string flag;     // a flag every row must carry ("" for none)
};

const Expectation kExpectations[] = {
    {"kill_grader", "pass", "", ""},
    {"stop_grader", "pass", "", ""},
    {"read_grader", "pass", "", ""},
    {"ptrace_grader", "pass", "", ""},
    {"daemon", "pass", "", ""},
    {"write_outside", "pass", "", ""},
    {"fork_bomb", "pass", "", ""},
    {"flood_output", "pass", "", ""},
    {"exec_shell", "pass", "", ""},
    {"network", "pass", "", ""},
    {"environment", "pass", "", ""},
    {"namespaces", "pass", "", ""},
    {"grab_memory", "pass", "", ""},
    // Once its plugin is loaded, whatever happens in the runner is the submission's.
    {"abort_at_load", "crash", "signal", ""},
    // Caught by the correctness runs already: run 2 has the same pointers, another x.
    {"cache_by_pointer", "wrong", "", ""},
    {"first_calls_only", "wrong", "timed_result_wrong", "timed_result_wrong"},
    // The runner's own timer forged: the grade's time is the grader's clock,
    // and the disagreement is flagged.
    {"forged_time", "pass", "", "implausible_timing"},
    // A burst answered before it ran: its digests match no y it left.
    {"early_reply", "wrong", "timed_result_wrong", "timed_result_wrong"},
    {"reads_outside_x", "wrong", "non_finite", ""},
    // The matrix's arrays lie between guard zones: NaN after the values.
    {"reads_past_values", "wrong", "non_finite", ""},
};

void PrintTo(const Expectation& expectation, std::ostream* out) { *out << expectation.attack; }

std::string level_of(const ::testing::TestParamInfo<std::tuple<sandbox::Level, Expectation>>& info) {
  return std::string(sandbox::level_name(std::get<0>(info.param))) + "_" + std::get<1>(info.param).attack;
}

// A listener for the network attack: it must never see a connection.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    const int yes = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(SPMV_HOSTILE_PORT);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    listening_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && ::listen(fd_, 8) == 0;
  }
  ~Listener() { ::close(fd_); }
  [[nodiscard]] bool connected() const {
    const int client = ::accept(fd_, nullptr, nullptr);
    if (client >= 0) ::close(client);
    return client >= 0;
  }
  [[nodiscard]] bool listening() const { return listening_; }

 private:
  int fd_ = -1;
  bool listening_ = false;
};

std::string everything_in(const std::filesystem::path& folder) {
  std::string text;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) text += read_text(entry.path());
  }
  return text;
}

// Processes whose working folder is inside `folder` (a runner's is its own
// folder under the grader's work folder).
std::vector<pid_t> processes_working_in(const std::filesystem::path& folder) {
  std::vector<pid_t> found;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code error;
    const auto cwd = std::filesystem::read_symlink(entry.path() / "cwd", error);
    if (!error && cwd.string().rfind(folder.string(), 0) == 0) found.push_back(std::stoi(name));
  }
  return found;
}

std::set<std::string> probe_files() {
  std::set<std::string> names;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(kProbeDir, ignored)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

class HostileSubmission : public GradeEndToEnd,
                          public ::testing::WithParamInterface<std::tuple<sandbox::Level, Expectation>> {
 protected:
  void SetUp() override {
    GradeEndToEnd::SetUp();
    const sandbox::Level level = std::get<0>(GetParam());
    if (!sandbox::why_unavailable(level).empty()) {
      GTEST_SKIP() << "isolation level " << sandbox::level_name(level)
                   << " is not available here: " << sandbox::why_unavailable(level);
    }
    // Runners of other uids reach their folders under it (TMPDIR below).
    std::filesystem::permissions(scratch_.path(), std::filesystem::perms::owner_all |
                                                      std::filesystem::perms::group_exec |
                                                      std::filesystem::perms::others_exec);
    std::filesystem::remove_all(kProbeDir);
    std::filesystem::create_directories(kProbeDir);
    std::filesystem::permissions(kProbeDir, std::filesystem::perms::all);  // any uid could write, if it got here
  }
};

TEST_P(HostileSubmission, GetsItsVerdictAndReachesNothing) {
  const auto [level, expected] = GetParam();
  if (level == sandbox::Level::kUser && ::geteuid() == 0 && expected.attack == "fork_bomb") {
    // The user level is for an unprivileged user, whose RLIMIT_NPROC holds;
    // a grader run as root keeps root's uid there, which no process limit binds.
    GTEST_SKIP() << "the user level run as root has no process limit (docs/grading.md)";
  }
  const Listener listener;
  ASSERT_TRUE(listener.listening()) << "port " << SPMV_HOSTILE_PORT << " is taken";
  const std::string secret = "secret-" + std::to_string(seed_) + "-never-shown";
  const auto secret_file = scratch_ / "secret-seed";
  std::ofstream(secret_file) << secret << '\n';
  const std::string reference_before = read_text(kHostReference);

  // The runners' folders go under the scratch folder, where the test can
  // look for survivors (other tests' graders run beside this one).
  const auto result = grade(hostile(expected.attack),
                            {"--kernel", "csr_scalar", "--isolation", sandbox::level_name(level), "--allow-unisolated",
                             "--secret-seed-file", secret_file.string(), "--timeout", "20"},
                            {{"TMPDIR", scratch_.path().string()}});
  ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 1) << context_;

  const auto graded = rows();
  ASSERT_EQ(graded.size(), 2u) << "every row is reported\n" << context_;
  for (const auto& row : graded) {
    EXPECT_EQ(verdict_of(row), expected.verdict) << row.at("summary").get<std::string>() << "\n" << context_;
    if (!expected.cause.empty()) {
      EXPECT_EQ(cause_of(row), expected.cause) << row.at("summary").get<std::string>();
    }
    if (expected.attack == "abort_at_load") {
      EXPECT_NE(row.at("summary").get<std::string>().find("SIGABRT"), std::string::npos)
          << row.at("summary").get<std::string>();
      EXPECT_EQ(row.at("stage").get<std::string>(), "loading the submission's plugin");
    }
    if (!expected.flag.empty()) {
      bool flagged = false;
      for (const auto& flag : row.at("flags")) flagged = flagged || flag.get<std::string>() == expected.flag;
      EXPECT_TRUE(flagged) << "flag " << expected.flag << " missing: " << row.at("summary").get<std::string>();
    }
  }
  if (!expected.flag.empty() && expected.verdict == "pass") {
    // A flagged row earns no speed credit: at most its correctness share.
    const grade::Json report = results();
    for (const auto& test : report.at("tests")) {
      EXPECT_LE(test.at("score").get<double>(), 0.7 * test.at("max_score").get<double>() + 1e-9);
    }
  }

  // Nothing got out, now or later: reports unchanged after the row's
  // processes would have acted, no process of a runner left.
  const std::string reports = read_text(output_dir() / "results.json") + read_text(output_dir() / "rows.jsonl") +
                              read_text(output_dir() / "summary.md");
  std::this_thread::sleep_for(std::chrono::seconds(expected.attack == "daemon" ? 3 : 0));
  EXPECT_EQ(read_text(output_dir() / "results.json") + read_text(output_dir() / "rows.jsonl") +
                read_text(output_dir() / "summary.md"),
            reports);
  EXPECT_EQ(probe_files(), std::set<std::string>{}) << "an attack wrote where it must not";
  EXPECT_FALSE(listener.connected()) << "the submission reached the network";
  EXPECT_EQ(read_text(kHostReference), reference_before) << "the reference plugin was changed";
  EXPECT_EQ(processes_working_in(scratch_.path()), std::vector<pid_t>{}) << "a process of a row survived";
  const std::string written = everything_in(output_dir()) + result.out + result.err;
  EXPECT_EQ(written.find(secret), std::string::npos) << "the secret seed leaked";
  EXPECT_EQ(written.find("--secret-seed-file"), std::string::npos) << "the grader's command line leaked";
  const std::string student_visible = read_text(output_dir() / "results.json") + everything_in(output_dir() / "logs");
  EXPECT_EQ(student_visible.find(cases_dir().string()), std::string::npos) << "the case folder's path leaked";
  for (const auto& log : std::filesystem::directory_iterator(output_dir() / "logs")) {
    EXPECT_LE(std::filesystem::file_size(log.path()), (std::size_t{1} << 20) + 4096) << log.path();
  }
}

// An instructor who accepts a flag in the policy gives the row its speed
// credit back, and rows.jsonl says which flags were accepted. (Full credit
// from a speedup of 0.001 on: these tiny cases' one-launch bursts on the
// host are too short for their speedup to mean anything.)
TEST_F(GradeEndToEnd, AnAcceptedFlagIsRecordedAndEarnsItsSpeedCredit) {
  write_text(scratch_ / "accept.ini",
             "[flags]\naccept = implausible_timing\n[speedup]\nfull_credit_at = 0.001\nno_credit_below = 0.0005\n");
  for (const bool accepting : {false, true}) {
    std::vector<std::string> more{"--kernel", "csr_scalar", "--allow-unisolated"};
    if (accepting) more.insert(more.end(), {"--policy", (scratch_ / "accept.ini").string()});
    const auto result = grade(hostile("forged_time"), more);
    ASSERT_EQ(result.exit_code, 0) << context_;
    const auto graded = rows();
    ASSERT_FALSE(graded.empty()) << context_;
    for (const auto& row : graded) {
      ASSERT_EQ(verdict_of(row), "pass") << row.at("summary").get<std::string>();
      const auto& accepted = row.at("accepted_flags");
      if (accepting) {
        ASSERT_EQ(accepted.size(), 1U) << row.at("summary").get<std::string>();
        EXPECT_EQ(accepted[0].get<std::string>(), "implausible_timing");
      } else {
        EXPECT_TRUE(accepted.empty());
      }
    }
    const grade::Json report = results();
    for (const auto& test : report.at("tests")) {
      const double score = test.at("score").get<double>(), max = test.at("max_score").get<double>();
      if (accepting) {
        EXPECT_GT(score, 0.7 * max + 1e-9) << "the accepted row earns speed credit";
      } else {
        EXPECT_LE(score, 0.7 * max + 1e-9) << "the flagged row earns none";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryLevel, HostileSubmission,
                         ::testing::Combine(::testing::Values(sandbox::Level::kFull, sandbox::Level::kContainer,
                                                              sandbox::Level::kUser),
                                            ::testing::ValuesIn(kExpectations)),
                         level_of);

}  // namespace
}  // namespace spmv::test
