// spmv-sandbox: runs a command under a containment level with the given
// readable and writable trees, hidden paths and limits; made for untrusted
// builds (tools/build-submission). See usage() below.
//
// It spawns itself (--inner) inside the sandbox: the inner process calls
// restrict_self() (exec allowed, no network) and then execs the command, so
// Landlock and seccomp hold for the command and everything it runs.
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "spmv/sandbox/sandbox.hpp"

namespace fs = std::filesystem;
namespace sb = spmv::sandbox;

namespace {

constexpr int kExitTimeout = 124;  // as timeout(1)
constexpr int kExitSandbox = 125;  // the sandbox could not be set up

const char* const kUsage = R"(usage: spmv-sandbox [options] [--] <command> [args...]

Runs <command> contained (spmv::sandbox): it sees the --read trees (read and
execute), writes only the scratch folder and the --write trees, and never
sees the --hide paths and --except files.

  --level LEVEL        full, container, user or none (default: the strongest
                       available; none must be asked for)
  --read PATH          a tree the command may read and execute (repeatable)
  --except PATTERN     files left out of the --read trees: a glob(3) pattern
                       of absolute paths, e.g. '/usr/local/cuda/lib64/libcusparse*'
                       (repeatable; hidden as well where the level can)
  --write PATH         a tree the command may also write (repeatable)
  --hide PATH          made unreadable where the level has a mount namespace
  --dev PATH           a device node it may read, write and ioctl (repeatable)
  --scratch DIR        its cwd and HOME, writable, chowned to its uid
                       (default: a new temporary folder, removed at the end)
  --copy DIR           copies DIR into the scratch folder (scratch/<name of DIR>)
                       first: folders and regular files only, a symbolic link
                       or a special file is refused
  --copy-limit BYTES   the most --copy may copy (default 4194304), and
  --copy-files N       the most files (default 256)
  --env NAME=VALUE     its environment (repeatable); by default PATH (with
                       /usr/local/cuda/bin), HOME and TMPDIR (the scratch
                       folder) and LANG=C.UTF-8 only
  --pass-env NAME      NAME=value from this environment (repeatable)
  --time SECONDS       wall-clock limit: then everything is killed (exit 124)
  --memory BYTES       RLIMIT_DATA of each process
  --processes N        RLIMIT_NPROC (default 512)
  --files N            RLIMIT_NOFILE
  --cpu SECONDS        RLIMIT_CPU of each process
  --file-size BYTES    RLIMIT_FSIZE: the largest file it may write
  --log FILE           its output (stdout and stderr) goes to FILE, not stdout
  --log-cap BYTES      the most output kept (default 65536): the start and
                       the end, the cut marked in between
  --network            sockets of any family (default: AF_UNIX only)
  --print-level        prints the level it would use, and why, then exits

Exit status: the command's; 128+N when it died of signal N; 124 when --time
ran out; 125 when the sandbox could not be set up.
)";

[[noreturn]] void usage_error(const std::string& message) {
  std::cerr << "spmv-sandbox: " << message << "\n\n" << kUsage;
  std::exit(2);
}

std::uint64_t number(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const unsigned long long value = std::stoull(text, &used, 10);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  usage_error(option + " takes a number, not '" + text + "'");
}

// --- the inner side: restrict, then exec -----------------------------------------
[[noreturn]] void run_inner(int argc, char** argv) {
  sb::SelfRestriction restriction;
  restriction.forbid_exec = false;
  sb::Level level = sb::Level::kFull;
  int i = 2;
  for (; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) break;
    const std::string value = argv[++i];
    if (option == "--level") {
      level = sb::parse_level(value).value_or(sb::Level::kFull);
    } else if (option == "--ro") {
      restriction.read_only.emplace_back(value);
    } else if (option == "--rw") {
      restriction.read_write.emplace_back(value);
    } else if (option == "--ls") {
      restriction.list_only.emplace_back(value);
    } else if (option == "--dev") {
      restriction.devices.emplace_back(value);
    } else if (option == "--network") {
      restriction.forbid_network = value != "1";
    }
  }
  if (i >= argc) {
    std::fprintf(stderr, "spmv-sandbox: no command\n");
    _exit(kExitSandbox);
  }
  try {
    sb::restrict_self(restriction, level);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "spmv-sandbox: %s\n", error.what());
    _exit(kExitSandbox);
  }
  execvp(argv[i], argv + i);
  std::fprintf(stderr, "spmv-sandbox: %s: %s\n", argv[i], std::strerror(errno));
  _exit(127);
}

// --- the outer side ----------------------------------------------------------------
struct Options {
  std::optional<sb::Level> level;
  std::vector<fs::path> read;
  std::vector<std::string> except;
  std::vector<fs::path> write;
  std::vector<fs::path> hide;
  std::vector<fs::path> devices;
  std::optional<fs::path> scratch;
  std::vector<fs::path> copy;
  std::uint64_t copy_limit = 4 << 20;
  std::uint64_t copy_files = 256;
  std::vector<std::string> env;
  bool env_given = false;
  std::uint64_t time_seconds = 0;
  sb::Limits limits;
  std::optional<fs::path> log;
  std::uint64_t log_cap = 64 * 1024;
  bool network = false;
  bool print_level = false;
  std::vector<std::string> command;
};

Options parse(int argc, char** argv) {
  Options options;
  options.limits.processes = 512;
  int i = 1;
  const auto value = [&](const std::string& option) -> std::string {
    if (i + 1 >= argc) usage_error(option + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--") {
      ++i;
      break;
    }
    if (option.rfind("--", 0) != 0) break;
    if (option == "--level") {
      const std::string name = value(option);
      options.level = sb::parse_level(name);
      if (!options.level) usage_error("no level '" + name + "' (full, container, user, none)");
    } else if (option == "--read") {
      options.read.emplace_back(value(option));
    } else if (option == "--except") {
      options.except.push_back(value(option));
    } else if (option == "--write") {
      options.write.emplace_back(value(option));
    } else if (option == "--hide") {
      options.hide.emplace_back(value(option));
    } else if (option == "--dev") {
      options.devices.emplace_back(value(option));
    } else if (option == "--scratch") {
      options.scratch = value(option);
    } else if (option == "--copy") {
      options.copy.emplace_back(value(option));
    } else if (option == "--copy-limit") {
      options.copy_limit = number(option, value(option));
    } else if (option == "--copy-files") {
      options.copy_files = number(option, value(option));
    } else if (option == "--env") {
      const std::string entry = value(option);
      if (entry.find('=') == std::string::npos) usage_error("--env takes NAME=VALUE");
      options.env.push_back(entry);
    } else if (option == "--pass-env") {
      const std::string name = value(option);
      if (const char* found = std::getenv(name.c_str())) options.env.push_back(name + "=" + found);
    } else if (option == "--time") {
      options.time_seconds = number(option, value(option));
    } else if (option == "--memory") {
      options.limits.data_bytes = number(option, value(option));
    } else if (option == "--processes") {
      options.limits.processes = number(option, value(option));
    } else if (option == "--files") {
      options.limits.open_files = number(option, value(option));
    } else if (option == "--cpu") {
      options.limits.cpu_seconds = number(option, value(option));
    } else if (option == "--file-size") {
      options.limits.file_bytes = number(option, value(option));
    } else if (option == "--log") {
      options.log = value(option);
    } else if (option == "--log-cap") {
      options.log_cap = number(option, value(option));
    } else if (option == "--network") {
      options.network = true;
    } else if (option == "--print-level") {
      options.print_level = true;
    } else if (option == "-h" || option == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      usage_error("unknown option " + option);
    }
  }
  options.command.assign(argv + i, argv + argc);
  if (options.command.empty() && !options.print_level) usage_error("no command");
  return options;
}

fs::path canonical_or_throw(const fs::path& path, const char* what) {
  std::error_code error;
  fs::path resolved = fs::canonical(path, error);
  if (error) throw sb::SandboxError(std::string(what) + " " + path.string() + ": " + error.message());
  return resolved;
}

bool beneath(const fs::path& path, const fs::path& tree) {
  const auto [tree_end, path_end] = std::mismatch(tree.begin(), tree.end(), path.begin(), path.end());
  return tree_end == tree.end();
}

// The --read trees as Landlock rules, without the excepted files: a tree
// holding some is granted entry by entry along the way to each of them
// (its folders list-only), everything else whole. Paths are resolved, as
// Landlock resolves them: a link into excepted ground is followed there.
class ReadRules {
 public:
  explicit ReadRules(std::set<fs::path> excepted) : excepted_(std::move(excepted)) {}

  void grant(const fs::path& tree, int depth = 0) {
    if (depth > 32 || excepted_.count(tree) != 0) return;
    const bool holds_excepted =
        std::any_of(excepted_.begin(), excepted_.end(), [&](const fs::path& path) { return beneath(path, tree); });
    if (!holds_excepted) {
      read_only.push_back(tree);
      return;
    }
    list_only.push_back(tree);
    for (const auto& entry : fs::directory_iterator(tree)) {
      std::error_code error;
      const fs::path resolved = fs::canonical(entry.path(), error);
      if (!error) grant(resolved, depth + 1);
    }
  }

  std::vector<fs::path> read_only;
  std::vector<fs::path> list_only;

 private:
  std::set<fs::path> excepted_;
};

std::set<fs::path> expand_exceptions(const std::vector<std::string>& patterns) {
  std::set<fs::path> paths;
  for (const auto& pattern : patterns) {
    glob_t matches{};
    if (glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
      for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
        std::error_code error;
        const fs::path resolved = fs::canonical(matches.gl_pathv[i], error);
        if (!error) paths.insert(resolved);
        paths.insert(fs::path(matches.gl_pathv[i]));  // the name itself, for --hide
      }
    }
    globfree(&matches);
  }
  return paths;
}

// Copies `source` into `target` (a new folder): folders and regular files
// only, at most `limit` bytes and `files` files.
void copy_in(const fs::path& source, const fs::path& target, std::uint64_t limit, std::uint64_t files) {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  const fs::path root = canonical_or_throw(source, "--copy");
  fs::create_directory(target);
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = fs::relative(it->path(), root);
    const fs::file_status status = it->symlink_status();
    if (fs::is_symlink(status)) throw sb::SandboxError("--copy: " + it->path().string() + " is a symbolic link");
    if (fs::is_directory(status)) {
      fs::create_directory(target / relative);
      continue;
    }
    if (!fs::is_regular_file(status))
      throw sb::SandboxError("--copy: " + it->path().string() + " is not a regular file");
    bytes += fs::file_size(it->path());
    if (++count > files)
      throw sb::SandboxError("--copy: " + source.string() + " holds more than " + std::to_string(files) + " files");
    if (bytes > limit)
      throw sb::SandboxError("--copy: " + source.string() + " holds more than " + std::to_string(limit) + " bytes");
    fs::copy_file(it->path(), target / relative);
  }
}

// The command's output, capped: the first part and the last part are kept,
// the cut marked between them.
class CappedOutput {
 public:
  CappedOutput(int fd, std::uint64_t cap)
      : fd_(fd), head_cap_(cap - std::min<std::uint64_t>(cap / 4, 8192)), tail_cap_(cap - head_cap_) {}

  void take(const char* data, std::size_t size) {
    total_ += size;
    const std::size_t to_head = static_cast<std::size_t>(std::min<std::uint64_t>(size, head_cap_ - head_written_));
    write_all(data, to_head);
    head_written_ += to_head;
    tail_.append(data + to_head, size - to_head);
    if (tail_.size() > 2 * tail_cap_) tail_.erase(0, tail_.size() - tail_cap_);
  }

  void finish() {
    if (tail_.size() > tail_cap_) tail_.erase(0, tail_.size() - tail_cap_);
    const std::uint64_t cut = total_ - head_written_ - tail_.size();
    if (cut > 0) {
      const std::string marker = "\n[spmv-sandbox: " + std::to_string(cut) + " bytes of output cut here; " +
                                 std::to_string(total_) + " in all]\n";
      write_all(marker.data(), marker.size());
    }
    write_all(tail_.data(), tail_.size());
    tail_.clear();
  }

 private:
  void write_all(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = write(fd_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      data += n;
      size -= static_cast<std::size_t>(n);
    }
  }

  int fd_;
  std::uint64_t head_cap_;
  std::uint64_t tail_cap_;
  std::uint64_t head_written_ = 0;
  std::uint64_t total_ = 0;
  std::string tail_;
};

std::atomic<int> g_interrupted{0};
void on_interrupt(int signal) { g_interrupted = signal; }

int exit_code(const sb::ExitStatus& status) { return status.signaled ? 128 + status.signal : status.code; }

int run_outer(const Options& options) {
  const sb::Level level = options.level.value_or(sb::strongest_available());
  if (options.print_level) {
    std::cout << sb::describe_level(level) << "\n";
    const std::string why = sb::why_unavailable(level);
    if (!why.empty()) std::cout << "not available here: " << why << "\n";
    return why.empty() ? 0 : 1;
  }
  if (!options.level && level == sb::Level::kNone) {
    throw sb::SandboxError("no containment is available here (" + sb::why_unavailable(sb::Level::kUser) +
                           "); --level none runs without");
  }
  const std::string why = sb::why_unavailable(level);
  if (!why.empty())
    throw sb::SandboxError(std::string("level ") + sb::level_name(level) + " is not available here: " + why);

  // The scratch folder.
  std::optional<fs::path> temporary;
  fs::path scratch;
  if (options.scratch) {
    fs::create_directories(*options.scratch);
    scratch = canonical_or_throw(*options.scratch, "--scratch");
  } else {
    std::string pattern = (fs::temp_directory_path() / "spmv-sandbox.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw sb::SandboxError(std::string("mkdtemp: ") + std::strerror(errno));
    scratch = temporary.emplace(pattern);
  }
  struct RemoveTemporary {
    const std::optional<fs::path>& path;
    ~RemoveTemporary() {
      std::error_code ignored;
      if (path) fs::remove_all(*path, ignored);
    }
  } remove_temporary{temporary};
  for (const auto& source : options.copy) {
    copy_in(source, scratch / canonical_or_throw(source, "--copy").filename(), options.copy_limit, options.copy_files);
  }
  fs::create_directories(scratch / "tmp");

  // What the command may read.
  const std::set<fs::path> excepted = expand_exceptions(options.except);
  ReadRules rules(excepted);
  for (const auto& tree : options.read) {
    std::error_code error;
    const fs::path resolved = fs::canonical(tree, error);
    if (!error) rules.grant(resolved);
  }

  std::optional<sb::UidLease> lease;
  if (level == sb::Level::kContainer || level == sb::Level::kFull) lease = sb::UidLease::acquire();

  const fs::path self = canonical_or_throw("/proc/self/exe", "this program:");
  sb::Spec spec;
  spec.level = level;
  spec.executable = self;
  spec.argv = {"spmv-sandbox", "--inner", "--level", sb::level_name(level), "--network", options.network ? "1" : "0"};
  const auto add = [&](const char* flag, const fs::path& path) {
    spec.argv.insert(spec.argv.end(), {flag, path.string()});
  };
  for (const auto& path : rules.read_only) add("--ro", path);
  for (const auto& path : rules.list_only) add("--ls", path);
  add("--ro", self);  // itself, to be exec'd
  add("--rw", scratch);
  for (const auto& path : options.write) add("--rw", path);
  add("--dev", "/dev/null");
  for (const auto& path : options.devices) add("--dev", path);
  spec.argv.push_back("--");
  spec.argv.insert(spec.argv.end(), options.command.begin(), options.command.end());
  if (options.env.empty()) {
    spec.env = {"PATH=/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"};
  } else {
    spec.env = options.env;
  }
  const auto has = [&](const char* name) {
    return std::any_of(spec.env.begin(), spec.env.end(),
                       [&](const std::string& entry) { return entry.rfind(name, 0) == 0; });
  };
  if (!has("HOME=")) spec.env.push_back("HOME=" + scratch.string());
  if (!has("TMPDIR=")) spec.env.push_back("TMPDIR=" + (scratch / "tmp").string());
  spec.scratch = scratch;
  if (lease) spec.uid = lease->uid();
  spec.limits = options.limits;
  spec.hide = options.hide;
  // Excepted files are out of Landlock's rules at every level; where there
  // is a mount namespace they are hidden as well.
  if (level == sb::Level::kFull || (level == sb::Level::kUser && sb::user_namespaces_usable())) {
    spec.hide.insert(spec.hide.end(), excepted.begin(), excepted.end());
  }

  int output_pipe[2];
  if (pipe2(output_pipe, O_CLOEXEC) != 0) throw sb::SandboxError(std::string("pipe2: ") + std::strerror(errno));
  spec.output_fd = output_pipe[1];
  int log_fd = STDOUT_FILENO;
  if (options.log) {
    log_fd = open(options.log->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) throw sb::SandboxError("--log " + options.log->string() + ": " + std::strerror(errno));
  }

  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);

  sb::Process process = sb::spawn(spec);
  close(output_pipe[1]);
  for (const auto& note : process.notes()) std::cerr << "spmv-sandbox: " << note << "\n";

  CappedOutput output(log_fd, std::max<std::uint64_t>(options.log_cap, 1024));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.time_seconds);
  bool output_open = true;
  std::optional<sb::ExitStatus> status;
  bool timed_out = false;
  // After the program's end (and kill_all()), the pipe is read to its end,
  // for 2 s at most: a process out of kill_all()'s reach may hold it.
  std::optional<std::chrono::steady_clock::time_point> drain_until;
  while (!status || output_open) {
    if (status && !drain_until) drain_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    if (drain_until && std::chrono::steady_clock::now() > *drain_until) break;
    if (output_open) {
      pollfd readable{output_pipe[0], POLLIN, 0};
      if (poll(&readable, 1, 20) > 0) {
        char buffer[65536];
        const ssize_t n = read(output_pipe[0], buffer, sizeof buffer);
        if (n > 0) output.take(buffer, static_cast<std::size_t>(n));
        if (n == 0) output_open = false;
      }
    } else {
      status = process.wait(20);
    }
    if (!status) status = process.poll();
    if (status && output_open) {
      // The program ended: whatever it left running is killed, then the
      // pipe drains to its end.
      process.kill_all();
    }
    const bool late = options.time_seconds > 0 && std::chrono::steady_clock::now() > deadline;
    if (!status && (late || g_interrupted != 0)) {
      timed_out = late;
      status = process.kill_all();
    }
  }
  output.finish();
  close(output_pipe[0]);
  if (options.log) close(log_fd);
  if (timed_out) {
    std::cerr << "spmv-sandbox: killed after " << options.time_seconds << " s\n";
    return kExitTimeout;
  }
  return exit_code(*status);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--inner") run_inner(argc, argv);
  const Options options = parse(argc, argv);
  try {
    return run_outer(options);
  } catch (const std::exception& error) {
    std::cerr << "spmv-sandbox: " << error.what() << "\n";
    return kExitSandbox;
  }
}
