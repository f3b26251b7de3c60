#include "harness.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace spmv::sandbox::test {
namespace {

long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Processes as /proc shows them: pid -> parent.
std::map<pid_t, pid_t> parents() {
  std::map<pid_t, pid_t> result;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    fields >> state >> parent;
    if (state != 'Z') result[std::stoi(name)] = parent;
  }
  return result;
}

std::vector<pid_t> descendants_of(pid_t root) {
  const auto tree = parents();
  std::vector<pid_t> found{root};
  for (std::size_t i = 0; i < found.size(); ++i) {
    for (const auto& [pid, parent] : tree) {
      if (parent == found[i]) found.push_back(pid);
    }
  }
  found.erase(found.begin());
  return found;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void parse_lines(const std::string& text, const std::function<void(const std::string&, const std::string&)>& take) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto equals = line.find('=');
    if (equals != std::string::npos) take(line.substr(0, equals), line.substr(equals + 1));
  }
}

std::string probe_path() { return SPMV_SANDBOX_PROBE; }

}  // namespace

// A secret in the harness's memory (the harness is a fork of the test, so it
// has the same address there); the probe tries to read it through /proc.
char g_memory_secret[] = "spmv-memory-secret-0123456789";

const std::vector<Mode>& all_modes() {
  static const std::vector<Mode> modes = {{Level::kNone, false, "none"},
                                          {Level::kUser, false, "user_session"},
                                          {Level::kUser, true, "user_ns"},
                                          {Level::kContainer, false, "container"},
                                          {Level::kFull, false, "full"}};
  return modes;
}

// --- TempTree ----------------------------------------------------------------
TempTree::TempTree() {
  std::string pattern = (fs::temp_directory_path() / "spmv-sandbox-test.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  root_ = pattern;
  fs::permissions(root_, fs::perms(0755));
}

TempTree::~TempTree() {
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

fs::path TempTree::folder(const std::string& name, unsigned mode) const {
  const fs::path path = root_ / name;
  fs::create_directories(path);
  fs::permissions(path, fs::perms(mode));
  return path;
}

fs::path TempTree::file(const std::string& name, const std::string& content, unsigned mode) const {
  const fs::path path = root_ / name;
  fs::create_directories(path.parent_path());
  std::ofstream(path) << content;
  fs::permissions(path, fs::perms(mode));
  return path;
}

// --- Outcome -------------------------------------------------------------------
std::string Outcome::operator[](const std::string& probe_key) const {
  const auto found = probe.find(probe_key);
  return found == probe.end() ? "" : found->second;
}

std::vector<std::string> Outcome::all(const std::string& probe_key) const {
  std::vector<std::string> values;
  const auto [first, last] = probe.equal_range(probe_key);
  for (auto it = first; it != last; ++it) values.push_back(it->second);
  return values;
}

std::string Outcome::reported(const std::string& harness_key) const {
  const auto found = harness.find(harness_key);
  return found == harness.end() ? "" : found->second;
}

bool Outcome::harness_killed_by(int signal) const {
  return WIFSIGNALED(harness_wait_status) && WTERMSIG(harness_wait_status) == signal;
}

std::string Outcome::dump() const {
  std::ostringstream text;
  text << "harness reports:\n";
  for (const auto& [key, value] : harness) text << "  " << key << "=" << value << "\n";
  text << "harness ended: " << ExitStatus::from_wait_status(harness_wait_status).describe()
       << (harness_stopped ? " (was stopped)" : "") << (harness_timed_out ? " (timed out)" : "") << "\n";
  text << "probe output:\n" << probe_output;
  return text.str();
}

// --- Grader (in the harness) --------------------------------------------------------
Grader::Grader(const Mode& mode, int report_fd, fs::path scratch, fs::path output, std::string probe)
    : mode_(mode),
      report_fd_(report_fd),
      scratch_(std::move(scratch)),
      output_(std::move(output)),
      probe_(std::move(probe)) {}

pid_t Grader::harness_pid() const { return getpid(); }
uid_t Grader::harness_uid() const { return getuid(); }
uid_t Grader::sandbox_uid() const { return lease_ ? lease_->uid() : getuid(); }

void Grader::report(const std::string& key, const std::string& value) const {
  std::string flat = value;
  for (char& c : flat) c = c == '\n' ? ' ' : c;
  write_all(report_fd_, key + "=" + flat + "\n");
}

void Grader::report_status(const std::optional<ExitStatus>& status) const {
  if (!status) {
    report("status", "still running");
    return;
  }
  report("status", status->describe());
  report("status.signaled", status->signaled ? "1" : "0");
  report("status.code", std::to_string(status->code));
  report("status.signal", std::to_string(status->signal));
}

void Grader::report_leftovers() const {
  // Processes of a leased uid, and the test's descendants: it is a
  // subreaper, so the sandbox's orphans come back to it. Not the sandbox's
  // uid when it is not leased: the test itself has it then.
  std::vector<pid_t> left;
  if (lease_) left = processes_of_uid(lease_->uid());
  for (const pid_t pid : descendants_of(getppid())) {
    if (std::find(left.begin(), left.end(), pid) == left.end()) left.push_back(pid);
  }
  std::erase(left, getpid());
  for (const pid_t victim : victims_) std::erase(left, victim);
  std::string list;
  for (const pid_t pid : left) list += (list.empty() ? "" : " ") + std::to_string(pid);
  report("leftover", list);
}

Spec Grader::probe_spec(const std::vector<std::string>& command, const ProbeOptions& options) const {
  Spec spec;
  spec.level = mode_.level;
  spec.user_namespaces = mode_.user_namespaces;
  spec.executable = probe_;
  spec.argv = {probe_, "--level", level_name(options.restrict_level.value_or(mode_.level))};
  for (const char* tree : {"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc"}) {
    spec.argv.insert(spec.argv.end(), {"--ro", tree});
  }
  for (const auto& tree : options.read_only) spec.argv.insert(spec.argv.end(), {"--ro", tree});
  spec.argv.insert(spec.argv.end(), {"--rw", scratch_.string(), "--dev", "/dev/null"});
  spec.argv.insert(spec.argv.end(), options.probe_flags.begin(), options.probe_flags.end());
  spec.argv.push_back("--");
  spec.argv.insert(spec.argv.end(), command.begin(), command.end());
  spec.env = options.env.value_or(std::vector<std::string>{"PATH=/usr/bin:/bin", "SPMV_PROBE=1"});
  spec.pass_fds = options.pass_fds;
  const int output = open(output_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (output < 0) throw std::runtime_error("cannot open " + output_.string());
  spec.output_fd = output;  // closed when the harness ends
  spec.scratch = scratch_;
  if (lease_) spec.uid = lease_->uid();
  spec.limits = options.limits;
  spec.hide = options.hide;
  return spec;
}

Process Grader::run_probe(const std::vector<std::string>& command, const ProbeOptions& options, int timeout_ms) {
  Process process = spawn(probe_spec(command, options));
  report("has_pid_namespace", process.has_pid_namespace() ? "1" : "0");
  for (const auto& note : process.notes()) report("note", note);
  report_status(process.wait(timeout_ms));
  const auto final_status = process.kill_all();
  report("final_status", final_status ? final_status->describe() : "unknown");
  report_leftovers();
  return process;
}

pid_t Grader::start_victim() {
  const pid_t victim = fork();
  if (victim < 0) throw std::runtime_error("fork of the victim failed");  // never pass -1 to `kill`
  if (victim == 0) {
    alarm(30);  // ends by itself whatever happens
    const int devnull = open("/dev/null", O_RDWR);
    for (const int fd : {0, 1, 2}) dup2(devnull, fd);
    for (;;) pause();
  }
  victims_.push_back(victim);
  return victim;
}

bool Grader::victim_alive(pid_t victim) {
  int status = 0;
  const bool alive = waitpid(victim, &status, WNOHANG | WUNTRACED) == 0;
  kill(victim, SIGKILL);
  waitpid(victim, nullptr, 0);
  return alive;
}

// --- Harness (in the test) -------------------------------------------------------------
Harness::Harness(const Mode& mode) : mode_(mode) {
  // Orphans of a run (a daemon at level none, a probe whose harness was
  // killed) come back to the test, which kills and reaps them.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  run_folder_ = tree_.folder("run");
  scratch_ = tree_.folder("run/scratch", 0777);
  if (mode_.level == Level::kUser && geteuid() == 0) {
    harness_lease_ = UidLease::acquire();
    for (const auto& path : {run_folder_, scratch_}) {
      if (chown(path.c_str(), harness_lease_->uid(), harness_lease_->gid()) != 0) throw std::runtime_error("chown");
    }
  }
}

Harness::~Harness() { kill_leftovers(); }

void Harness::kill_leftovers() {
  // The harness's uid is still leased here. The sandbox's uid is not (the
  // harness held that lease, and another test may hold it now): whatever a
  // dead harness left with it is killed by the next UidLease::acquire().
  if (geteuid() == 0 && harness_lease_) kill_uid(harness_lease_->uid());
  for (int round = 0; round < 3; ++round) {
    for (const pid_t pid : descendants_of(getpid())) kill(pid, SIGKILL);
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }
}

std::string Harness::unavailable() {
  if (mode_.level != Level::kUser) return why_unavailable(mode_.level);
  if (!why_unavailable(Level::kUser).empty()) return why_unavailable(Level::kUser);
  if (!mode_.user_namespaces) return "";
  // Asked as the harness's uid: an unprivileged user may be refused what root gets.
  const Outcome outcome = run(
      [](Grader& run) { run.report("user_namespaces", user_namespaces_usable() ? "" : describe_level(Level::kUser)); });
  if (outcome.harness.count("user_namespaces") == 0) return "the harness did not answer:\n" + outcome.dump();
  return outcome.reported("user_namespaces");
}

Outcome Harness::run(const Script& script, int timeout_ms) {
  const fs::path output = run_folder_ / "output.txt";
  std::error_code ignored;
  fs::remove(output, ignored);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  const pid_t harness = fork();
  if (harness < 0) throw std::runtime_error("fork");
  if (harness == 0) {
    close(pipe_fds[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    alarm(static_cast<unsigned>(timeout_ms / 1000 + 5));  // ends by itself whatever happens
    // Not holding the test's output: CTest waits for every holder to end.
    const int devnull = open("/dev/null", O_RDWR);
    for (const int fd : {0, 1, 2}) dup2(devnull, fd);
    Grader run(mode_, pipe_fds[1], scratch_, output, probe_path());
    try {
      if (harness_lease_) {
        const uid_t uid = harness_lease_->uid();
        if (setgroups(0, nullptr) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) {
          throw std::runtime_error(std::string("dropping to the harness uid: ") + std::strerror(errno));
        }
        // An ordinary user's grader is dumpable; dropping root cleared that.
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
      } else if (mode_.has_distinct_uid()) {
        run.lease_ = UidLease::acquire();
      }
      run.report("sandbox_uid", std::to_string(run.sandbox_uid()));
      run.report("harness_pid", std::to_string(getpid()));
      script(run);
      run.report("done", "1");
    } catch (const std::exception& error) {
      run.report("exception", error.what());
    }
    _exit(0);  // never back into GoogleTest
  }
  close(pipe_fds[1]);

  Outcome outcome;
  std::string reports;
  bool pipe_open = true;
  bool ended = false;
  const long deadline = now_ms() + timeout_ms;
  while (!ended || pipe_open) {
    if (pipe_open) {
      pollfd readable{pipe_fds[0], POLLIN, 0};
      if (poll(&readable, 1, 10) > 0) {
        char buffer[4096];
        const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0) reports.append(buffer, static_cast<std::size_t>(n));
        if (n == 0) pipe_open = false;
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!ended) {
      int status = 0;
      const pid_t got = waitpid(harness, &status, WNOHANG | WUNTRACED);
      if (got == harness && WIFSTOPPED(status)) {
        outcome.harness_stopped = true;
        kill(harness, SIGCONT);
      } else if (got == harness) {
        outcome.harness_wait_status = status;
        ended = true;
      }
    }
    // A killed harness leaves the pipe's write end to its children: stop reading then.
    if (ended && pipe_open) {
      pollfd readable{pipe_fds[0], POLLIN, 0};
      if (poll(&readable, 1, 50) <= 0) pipe_open = false;
    }
    if (now_ms() > deadline && !ended) {
      outcome.harness_timed_out = true;
      kill(harness, SIGKILL);
    }
  }
  close(pipe_fds[0]);
  parse_lines(reports, [&](const std::string& key, const std::string& value) { outcome.harness[key] = value; });
  outcome.probe_output = read_file(output);
  parse_lines(outcome.probe_output,
              [&](const std::string& key, const std::string& value) { outcome.probe.emplace(key, value); });
  kill_leftovers();
  return outcome;
}

Outcome Harness::probe(const std::vector<std::string>& command, const ProbeOptions& options, int timeout_ms) {
  return run([&](Grader& run) { run.run_probe(command, options, timeout_ms); }, timeout_ms + 10000);
}

}  // namespace spmv::sandbox::test
