// The sandbox tests' harness. Each scenario runs in a forked "harness"
// process that stands for the grader: it spawns sandbox_probe through
// spmv::sandbox and reports what it saw as key=value lines. So an attack on
// the probe's parent (kill, SIGSTOP, ptrace) hits the harness and the test
// sees it, and at the user modes the harness first becomes an unprivileged
// user (a leased uid), as a grader run by a student would be.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spmv/sandbox/sandbox.hpp"

namespace spmv::sandbox::test {

namespace fs = std::filesystem;

// A level, and for level user whether it may use namespaces.
struct Mode {
  Level level;
  bool user_namespaces;
  const char* name;  // none, user_session, user_ns, container, full

  bool has_pid_namespace() const { return level == Level::kFull || (level == Level::kUser && user_namespaces); }
  bool has_mount_namespace() const { return has_pid_namespace(); }
  bool has_distinct_uid() const { return level == Level::kContainer || level == Level::kFull; }
  bool restricted() const { return level != Level::kNone; }
};
const std::vector<Mode>& all_modes();

// A temporary folder (mode 0755) removed with its contents at the end.
class TempTree {
 public:
  TempTree();
  ~TempTree();
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  const fs::path& root() const { return root_; }
  fs::path folder(const std::string& name, unsigned mode = 0755) const;
  fs::path file(const std::string& name, const std::string& content, unsigned mode = 0644) const;

 private:
  fs::path root_;
};

struct ProbeOptions {
  std::vector<std::string> read_only;    // in addition to /usr /lib /lib64 /bin /sbin /etc
  std::vector<std::string> probe_flags;  // --deny-errno N, --thread, --allow-network
  std::optional<Level> restrict_level;   // what the probe passes to restrict_self (default: the mode's)
  std::optional<std::vector<std::string>> env;
  Limits limits;
  std::vector<fs::path> hide;
  std::vector<int> pass_fds;
};

// What a run reported.
struct Outcome {
  std::map<std::string, std::string> harness;     // the harness's reports (the last of a key wins)
  std::multimap<std::string, std::string> probe;  // the probe's output
  std::string probe_output;
  int harness_wait_status = 0;
  bool harness_stopped = false;    // seen stopped (then continued)
  bool harness_timed_out = false;  // killed by the test after its deadline

  std::string operator[](const std::string& probe_key) const;  // first value, or ""
  std::vector<std::string> all(const std::string& probe_key) const;
  std::string reported(const std::string& harness_key) const;  // or ""
  bool harness_killed_by(int signal) const;
  std::string dump() const;  // for failure messages
};

// The harness's side of a run: it stands for the grader.
class Grader {
 public:
  const Mode& mode() const { return mode_; }
  pid_t harness_pid() const;
  uid_t harness_uid() const;
  // The uid the probe runs as: the leased one (container, full) or the harness's.
  uid_t sandbox_uid() const;
  const fs::path& scratch() const { return scratch_; }

  Spec probe_spec(const std::vector<std::string>& command, const ProbeOptions& options = {}) const;
  // spawn(), wait for the end (at most `timeout_ms`), report "status",
  // kill_all(), report "leftover" (processes of the sandbox's uid, the
  // harness excluded). Returns the Process (already killed) for its notes.
  Process run_probe(const std::vector<std::string>& command, const ProbeOptions& options = {}, int timeout_ms = 5000);
  void report(const std::string& key, const std::string& value) const;
  void report_status(const std::optional<ExitStatus>& status) const;
  void report_leftovers() const;
  // A process of the harness's uid that only waits, and whether it still lives.
  pid_t start_victim();
  bool victim_alive(pid_t victim);

 private:
  friend class Harness;
  Grader(const Mode& mode, int report_fd, fs::path scratch, fs::path output, std::string probe);
  Mode mode_;
  int report_fd_;
  fs::path scratch_;
  fs::path output_;
  std::string probe_;
  std::optional<UidLease> lease_;
  std::vector<pid_t> victims_;  // not leftovers of the sandbox
};

using Script = std::function<void(Grader&)>;

// The test's side.
class Harness {
 public:
  explicit Harness(const Mode& mode);
  ~Harness();
  // "" when this mode can run here, else why not (for GTEST_SKIP).
  std::string unavailable();
  Outcome run(const Script& script, int timeout_ms = 15000);
  // The common case: one probe command, its outcome.
  Outcome probe(const std::vector<std::string>& command, const ProbeOptions& options = {}, int timeout_ms = 5000);
  TempTree& tree() { return tree_; }
  // The folder the sandbox gets as scratch in the next run.
  const fs::path& scratch() const { return scratch_; }

 private:
  void kill_leftovers();
  Mode mode_;
  TempTree tree_;
  std::optional<UidLease> harness_lease_;  // user modes run by root: the harness's unprivileged uid
  fs::path run_folder_;
  fs::path scratch_;
};

}  // namespace spmv::sandbox::test
