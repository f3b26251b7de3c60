// spawn(): the grader's side. Prepares everything the child needs (so the
// child only makes system calls), clones it into the level's namespaces, and
// reads the error pipe until the program is exec'd or a step failed.
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "child.hpp"
#include "internal.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::sandbox {
namespace {

constexpr unsigned long kFullNamespaces = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS;
constexpr unsigned long kUserNamespaces = CLONE_NEWUSER | kFullNamespaces;

class Pipe {
 public:
  Pipe() {
    if (pipe2(fds_, O_CLOEXEC) != 0) detail::throw_system("pipe2", errno);
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  int release_read() {
    const int fd = fds_[0];
    fds_[0] = -1;
    return fd;
  }
  void close_read() {
    if (fds_[0] >= 0) close(fds_[0]);
    fds_[0] = -1;
  }
  void close_write() {
    if (fds_[1] >= 0) close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

// NULL-terminated char* arrays over strings that outlive the child's start.
class CStringArray {
 public:
  explicit CStringArray(const std::vector<std::string>& strings) {
    for (const auto& s : strings) pointers_.push_back(const_cast<char*>(s.c_str()));
    pointers_.push_back(nullptr);
  }
  char* const* get() const { return pointers_.data(); }

 private:
  std::vector<char*> pointers_;
};

pid_t clone_child(unsigned long flags) {
  if (flags == 0) return fork();
  return static_cast<pid_t>(syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
}

// Reads the error pipe to its end: "" when the child exec'd (or finished a
// dry run), else "step: reason".
std::string read_child_error(int fd) {
  detail::ChildError report{};
  std::size_t got = 0;
  while (got < sizeof report) {
    const ssize_t n = read(fd, reinterpret_cast<char*>(&report) + got, sizeof report - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < sizeof report) return "";
  report.step[sizeof report.step - 1] = '\0';
  return detail::system_message(report.step, report.error);
}

int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, __WALL) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

std::string id_map(unsigned id) { return std::to_string(id) + " " + std::to_string(id) + " 1\n"; }

// The scratch folder and what it holds become the program's (lchown: links
// are not followed). nftw's callback takes no argument of ours: the uid is
// a thread's own, so sandboxes can be spawned from several threads.
thread_local uid_t t_chown_uid = 0;
int chown_entry(const char* path, const struct stat*, int, FTW*) {
  if (lchown(path, t_chown_uid, static_cast<gid_t>(t_chown_uid)) != 0) return errno;
  return 0;
}

void give_scratch(const std::filesystem::path& scratch, uid_t uid) {
  t_chown_uid = uid;
  const int error = nftw(scratch.c_str(), chown_entry, 16, FTW_PHYS | FTW_MOUNT);
  if (error != 0) detail::throw_system("chown -R " + scratch.string(), error > 0 ? error : errno);
  if (chmod(scratch.c_str(), 0700) != 0) detail::throw_system("chmod 0700 " + scratch.string(), errno);
}

void check_fd(int fd, const char* what) {
  if (fcntl(fd, F_GETFD) < 0) detail::throw_system(std::string(what) + " " + std::to_string(fd), errno);
}

}  // namespace

namespace detail {

std::string clone_flag_names(unsigned long flags) {
  static const std::pair<unsigned long, const char*> names[] = {
      {CLONE_NEWUSER, "CLONE_NEWUSER"}, {CLONE_NEWPID, "CLONE_NEWPID"}, {CLONE_NEWNET, "CLONE_NEWNET"},
      {CLONE_NEWNS, "CLONE_NEWNS"},     {CLONE_NEWIPC, "CLONE_NEWIPC"}, {CLONE_NEWUTS, "CLONE_NEWUTS"}};
  std::string text;
  for (const auto& [flag, name] : names) {
    if (flags & flag) text += (text.empty() ? "" : "|") + std::string(name);
  }
  return text;
}

std::string dry_run(unsigned long clone_flags, bool change_uid) {
  Pipe errors;
  const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) return system_message("open /dev/null", errno);
  const std::string uid_map = id_map(geteuid());
  const std::string gid_map = id_map(getegid());
  ChildPlan plan;
  plan.devnull_fd = devnull;
  plan.error_fd = errors.write_end();
  plan.clone_flags = clone_flags;
  plan.uid_map = uid_map.c_str();
  plan.gid_map = gid_map.c_str();
  plan.mount_proc = (clone_flags & CLONE_NEWPID) && (clone_flags & CLONE_NEWNS);
  plan.change_uid = change_uid;
  plan.uid = UidLease::kUidBase - 1;  // outside the leased range, used by no sandbox
  plan.gid = UidLease::kUidBase - 1;
  const pid_t child = clone_child(clone_flags);
  if (child < 0) {
    const int error = errno;
    close(devnull);
    return system_message("clone(" + clone_flag_names(clone_flags) + ")", error);
  }
  if (child == 0) run_child(plan);
  close(devnull);
  errors.close_write();
  std::string error = read_child_error(errors.read_end());
  const int status = wait_child(child);
  if (error.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    error = "the probe child ended with " + ExitStatus::from_wait_status(status).describe();
  }
  return error;
}

}  // namespace detail

ExitStatus ExitStatus::from_wait_status(int status) {
  ExitStatus result;
  if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.signal = WTERMSIG(status);
  } else {
    result.code = WEXITSTATUS(status);
  }
  return result;
}

std::string ExitStatus::describe() const {
  if (!signaled) return "exit " + std::to_string(code);
  const char* name = strsignal(signal);
  return "signal " + std::to_string(signal) + " (" + (name != nullptr ? name : "?") + ")";
}

Process spawn(const Spec& spec) {
  const char* level = level_name(spec.level);
  if (!spec.executable.is_absolute())
    throw SandboxError("spawn: the executable is not an absolute path: " + spec.executable.string());
  if (spec.argv.empty()) throw SandboxError("spawn: argv is empty (argv[0] is needed)");
  if (spec.uid && geteuid() != 0) throw SandboxError("spawn: running as another uid needs root");
  if (spec.uid && (*spec.uid == 0 || *spec.uid == getuid())) {
    throw SandboxError("spawn: spec.uid must be a uid of its own (a UidLease), not root's or the caller's");
  }
  if (spec.level == Level::kUser && spec.uid) {
    throw SandboxError("spawn: level user keeps the caller's uid; spec.uid must be empty");
  }
  if ((spec.level == Level::kContainer || spec.level == Level::kFull) && !spec.uid) {
    throw SandboxError(std::string("spawn: level ") + level + " needs a uid (UidLease)");
  }
  if (spec.output_fd >= 0) check_fd(spec.output_fd, "spawn: output fd");
  for (const int fd : spec.pass_fds) check_fd(fd, "spawn: fd to pass");
  if (spec.pass_fds.size() > 64) throw SandboxError("spawn: more than 64 fds to pass");
  std::filesystem::path scratch;
  if (!spec.scratch.empty()) {
    std::error_code error;
    scratch = std::filesystem::absolute(spec.scratch, error);
    if (error || !std::filesystem::is_directory(scratch, error)) {
      throw SandboxError("spawn: the scratch folder is not a folder: " + spec.scratch.string());
    }
  }

  Process process;
  process.level_ = spec.level;
  process.uid_ = spec.uid;

  unsigned long flags = 0;
  switch (spec.level) {
    case Level::kNone:
    case Level::kContainer: break;
    case Level::kUser:
      if (!spec.user_namespaces) {
        process.notes_.push_back("level user without namespaces (asked for): a new session only");
      } else if (user_namespaces_usable()) {
        flags = kUserNamespaces;
      } else {
        process.notes_.push_back("level user without namespaces (refused here): a new session only");
      }
      if (geteuid() == 0) process.notes_.push_back("level user run by root: the program runs as root");
      break;
    case Level::kFull: flags = kFullNamespaces; break;
  }
  process.has_init_ = (flags & CLONE_NEWPID) != 0;

  // Everything the child reads, prepared here.
  const std::string executable = spec.executable.string();
  const CStringArray argv(spec.argv);
  const CStringArray envp(spec.env);
  const std::string scratch_text = scratch.string();
  const std::string uid_map = id_map(geteuid());
  const std::string gid_map = id_map(getegid());

  std::vector<std::string> hidden_paths;
  std::vector<detail::HiddenPath> hidden;
  for (const auto& path : spec.hide) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) continue;  // nothing to hide
    if (!(flags & CLONE_NEWNS)) {
      process.notes_.push_back("hide: no mount namespace at this level; " + path.string() +
                               " is protected only by its permissions and Landlock");
      continue;
    }
    hidden_paths.push_back(path.string());
    hidden.push_back({nullptr, S_ISDIR(info.st_mode)});
  }
  for (std::size_t i = 0; i < hidden.size(); ++i) hidden[i].path = hidden_paths[i].c_str();

  std::vector<detail::ResourceLimit> limits;
  const auto limit = [&](int resource, std::uint64_t value) {
    if (value != 0) limits.push_back({resource, static_cast<rlim_t>(value)});
  };
  limit(RLIMIT_DATA, spec.limits.data_bytes);
  limit(RLIMIT_NPROC, spec.limits.processes);
  limit(RLIMIT_NOFILE, spec.limits.open_files);
  limit(RLIMIT_CPU, spec.limits.cpu_seconds);
  limit(RLIMIT_FSIZE, spec.limits.file_bytes);
  limits.push_back({RLIMIT_CORE, static_cast<rlim_t>(spec.limits.core_bytes)});

  if (spec.uid && !scratch.empty()) give_scratch(scratch, *spec.uid);

  Pipe errors;
  std::optional<Pipe> status;
  if (process.has_init_) status.emplace();
  const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0) detail::throw_system("open /dev/null", errno);

  detail::ChildPlan plan;
  plan.executable = executable.c_str();
  plan.argv = argv.get();
  plan.envp = envp.get();
  plan.scratch = scratch.empty() ? nullptr : scratch_text.c_str();
  plan.devnull_fd = devnull;
  plan.output_fd = spec.output_fd;
  plan.pass_fds = spec.pass_fds.data();
  plan.pass_count = static_cast<int>(spec.pass_fds.size());
  plan.error_fd = errors.write_end();
  plan.status_fd = status ? status->write_end() : -1;
  plan.change_uid = spec.uid.has_value();
  plan.uid = spec.uid.value_or(0);
  plan.gid = static_cast<gid_t>(spec.uid.value_or(0));
  plan.limits = limits.data();
  plan.limit_count = static_cast<int>(limits.size());
  plan.no_new_privs = spec.level != Level::kNone;
  plan.clone_flags = flags;
  plan.uid_map = uid_map.c_str();
  plan.gid_map = gid_map.c_str();
  plan.mount_proc = process.has_init_;
  plan.hidden = hidden.data();
  plan.hidden_count = static_cast<int>(hidden.size());

  const pid_t child = clone_child(flags);
  if (child < 0) {
    const int error = errno;
    close(devnull);
    detail::throw_system(flags != 0 ? "clone(" + detail::clone_flag_names(flags) + ")" : "fork", error);
  }
  if (child == 0) detail::run_child(plan);

  close(devnull);
  errors.close_write();
  if (status) status->close_write();
  process.pid_ = child;
  if (status) {
    process.status_fd_ = status->release_read();
    fcntl(process.status_fd_, F_SETFL, O_NONBLOCK);
  }
  const std::string error = read_child_error(errors.read_end());
  if (!error.empty()) {
    process.kill_all();
    throw SandboxError(std::string("spawn (level ") + level + "): " + error);
  }
  return process;
}

}  // namespace spmv::sandbox
