#include "runners/runner_client.hpp"

#include <atomic>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace spmv::grade {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

// Vendor libraries a runner must not find: every libcusparse*, libcublas*,
// libcusolver* (shared and static) in the folders its sandbox lets it read.
std::vector<std::filesystem::path> find_vendor_library_files(const std::vector<std::string>& names) {
  std::vector<std::filesystem::path> files;
  for (const char* folder : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
                             "/lib/x86_64-linux-gnu", "/lib64"}) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
      const std::string name = entry.path().filename().string();
      for (const std::string& library : names) {
        if (name.rfind("lib" + library, 0) == 0 && !entry.is_symlink()) files.push_back(entry.path());
      }
    }
  }
  return files;
}

// Found once for each list: the system's library folders do not change
// during a grading.
std::vector<std::filesystem::path> vendor_library_files(const std::vector<std::string>& names) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::vector<std::filesystem::path>> found;
  const std::lock_guard lock(mutex);
  const auto it = found.find(names);
  if (it != found.end()) return it->second;
  return found.emplace(names, find_vendor_library_files(names)).first->second;
}

std::vector<std::string> runner_environment(const RunnerSpec& spec, const std::filesystem::path& folder) {
  std::vector<std::string> env{"PATH=/usr/bin:/bin", "LANG=C", "HOME=" + folder.string(), "TMPDIR=" + folder.string(),
                               "CUDA_CACHE_PATH=" + (folder / "cuda-cache").string()};
  if (!spec.visible_devices.empty()) {
    env.push_back("CUDA_VISIBLE_DEVICES=" + spec.visible_devices);
    env.emplace_back("CUDA_DEVICE_ORDER=PCI_BUS_ID");
  }
  if (const char* library_path = std::getenv("LD_LIBRARY_PATH"))
    env.push_back(std::string("LD_LIBRARY_PATH=") + library_path);
  std::string forbidden;
  for (const std::string& name : spec.forbidden_libraries) forbidden += (forbidden.empty() ? "" : ",") + name;
  env.push_back("SPMV_FORBIDDEN_LIBRARIES=" + forbidden);
  return env;
}

std::atomic<int> runner_counter = 0;

// Unallocated bytes compute-sanitizer leaves after each allocation: a read a
// row's worth beyond an array's guard zone still lands in one.
constexpr std::size_t kSanitizerPaddingBytes = std::size_t{1} << 16;

}  // namespace

Runner::Runner(const RunnerSpec& spec) : spec_(spec) {
  folder_ = spec.work_root / ("runner-" + std::to_string(++runner_counter));
  std::filesystem::create_directory(folder_);
  std::filesystem::copy_file(spec.plugin, folder_ / "plugin.so");
  std::filesystem::permissions(folder_ / "plugin.so", std::filesystem::perms::owner_read |
                                                          std::filesystem::perms::group_read |
                                                          std::filesystem::perms::others_read);
  if (::geteuid() == 0 && spec.level >= sandbox::Level::kContainer) uid_.emplace(sandbox::UidLease::acquire());

  int sockets[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) fail("socketpair");
  int pipe_fds[2] = {-1, -1};
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    fail("pipe2");
  }
  control_ = sockets[0];
  output_ = pipe_fds[0];
  ::fcntl(output_, F_SETFL, O_NONBLOCK);
  log_ = ::open(spec.log_file.c_str(), O_WRONLY | O_CREAT | (spec.append_log ? O_APPEND : O_TRUNC) | O_CLOEXEC, 0644);

  sandbox::Spec sandbox_spec;
  sandbox_spec.level = spec.level;
  sandbox_spec.executable = spec.executable;
  sandbox_spec.argv = {"spmv-runner", "--space", spec.space, "--level", sandbox::level_name(spec.level)};
  sandbox_spec.env = runner_environment(spec, folder_);
  if (spec.sanitizer) {
    const auto report_folder = spec.sanitizer->report.parent_path();
    std::filesystem::create_directories(report_folder);
    if (uid_ && ::chown(report_folder.c_str(), uid_->uid(), uid_->uid()) != 0) fail("chown of the sanitizer's folder");
    ::chmod(report_folder.c_str(), 0700);
    sandbox_spec.executable = spec.sanitizer->program;
    // --padding: memcheck only knows whether an address lies in some
    // allocation, and cudaMalloc packs small allocations back to back, so a
    // read just past x's guard zone would land in the next array unseen;
    // an unallocated pad after every allocation makes it an invalid access.
    sandbox_spec.argv = {"compute-sanitizer",
                         "--tool",
                         spec.sanitizer->tool,
                         "--padding",
                         std::to_string(kSanitizerPaddingBytes),
                         "--log-file",
                         spec.sanitizer->report.string(),
                         "--print-limit",
                         "20",
                         spec.executable.string(),
                         "--space",
                         spec.space,
                         "--level",
                         sandbox::level_name(spec.level)};
    // The sanitizer's libraries, loaded into the runner, may read their folder.
    sandbox_spec.env.push_back("SPMV_RUNNER_READ_ONLY=" + spec.sanitizer->program.parent_path().string());
    // Its library in the runner stops answering its front end once Landlock
    // applies (seen on the H100: every memcheck run hung): the runner under
    // the sanitizer leaves Landlock out, keeping namespaces, uid, rlimits and
    // seccomp. It runs after the grading, on cases already graded.
    sandbox_spec.env.emplace_back("SPMV_RUNNER_UNDER_SANITIZER=1");
  }
  sandbox_spec.pass_fds = {sockets[1]};
  sandbox_spec.output_fd = pipe_fds[1];
  sandbox_spec.scratch = folder_;
  if (uid_) sandbox_spec.uid = uid_->uid();
  sandbox_spec.limits = spec.limits;
  sandbox_spec.hide = vendor_library_files(spec.forbidden_libraries);
  try {
    process_ = std::make_unique<sandbox::Process>(sandbox::spawn(sandbox_spec));
  } catch (...) {
    ::close(sockets[1]);
    ::close(pipe_fds[1]);
    throw;
  }
  ::close(sockets[1]);
  ::close(pipe_fds[1]);
}

Runner::~Runner() {
  if (!ended_) end();
  if (control_ >= 0) ::close(control_);
  if (output_ >= 0) ::close(output_);
  if (log_ >= 0) ::close(log_);
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

void Runner::drain_output() {
  std::array<char, 65536> buffer{};
  while (output_ >= 0) {
    const ssize_t got = ::read(output_, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got == 0) {  // every writer is gone
        ::close(output_);
        output_ = -1;
      }
      return;
    }
    const auto bytes = static_cast<std::size_t>(got);
    const std::size_t kept = logged_ < spec_.log_cap_bytes ? std::min(bytes, spec_.log_cap_bytes - logged_) : 0;
    if (kept > 0 && log_ >= 0) {
      const ssize_t written = ::write(log_, buffer.data(), kept);
      static_cast<void>(written);
    }
    logged_ += kept;
    dropped_ += bytes - kept;
  }
}

void Runner::send(const runner::Request& request, std::span<const int> fds) {
  sent_at_ = Clock::now();
  runner::send_message(control_, &request, sizeof request, fds);
}

void Runner::wait_readable(Clock::time_point deadline) {
  while (true) {
    drain_output();
    pollfd fds[2] = {{control_, POLLIN, 0}, {output_, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return;
    const int ready = ::poll(fds, output_ >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left + 1, 1000)));
    if (ready < 0 && errno != EINTR) fail("poll");
    if (ready > 0 && fds[0].revents != 0) return;
  }
}

std::optional<runner::Reply> Runner::receive(Clock::time_point deadline) {
  if (ended_) return std::nullopt;
  wait_readable(deadline);
  pollfd control{control_, POLLIN, 0};
  if (::poll(&control, 1, 0) <= 0) {
    timed_out_ = true;
    return std::nullopt;
  }
  auto reply = std::make_unique<runner::Reply>();
  bool got = false;
  try {
    got = runner::receive_message(control_, reply.get(), sizeof *reply);
  } catch (const std::runtime_error&) {
    got = false;  // a malformed reply: the runner's own doing
  }
  last_round_trip_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - sent_at_).count();
  drain_output();
  if (!got) return std::nullopt;
  return *reply;
}

std::optional<runner::Reply> Runner::call(const runner::Request& request, Clock::time_point deadline,
                                          std::span<const int> fds) {
  try {
    send(request, fds);
  } catch (const std::runtime_error&) {
    return std::nullopt;  // the runner is gone; end() says how
  }
  return receive(deadline);
}

bool Runner::wait_for_exit(Clock::time_point deadline) {
  while (Clock::now() < deadline) {
    drain_output();
    if (process_->poll()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

RunnerEnd Runner::end() {
  if (ended_) return end_;
  ended_ = true;
  // A runner whose socket closed is ending on its own: give its init a
  // moment to report the real status before everything is killed.
  std::optional<sandbox::ExitStatus> status;
  if (!timed_out_) {
    const auto until = Clock::now() + std::chrono::milliseconds(500);
    pollfd control{control_, POLLIN, 0};
    const bool closing = ::poll(&control, 1, 0) > 0;
    while (closing && !(status = process_->poll()) && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  process_->kill_all();
  if (!status) status = process_->poll();
  drain_output();
  if (dropped_ > 0 && log_ >= 0) {
    const std::string note = "\n[... " + std::to_string(dropped_) +
                             " more bytes of output cut: the log keeps the first " +
                             std::to_string(spec_.log_cap_bytes) + " bytes]\n";
    const ssize_t written = ::write(log_, note.data(), note.size());
    static_cast<void>(written);
  }
  if (timed_out_) {
    end_.kind = RunnerEnd::Kind::kTimedOut;
  } else if (status && status->signaled) {
    end_.kind = RunnerEnd::Kind::kSignaled;
    end_.signal = status->signal;
  } else if (status) {
    end_.kind = RunnerEnd::Kind::kExited;
    end_.code = status->code;
  } else {
    end_.kind = RunnerEnd::Kind::kKilled;
  }
  return end_;
}

WorkRoot::WorkRoot() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/spmv-grade.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) fail("mkdtemp " + pattern);
  path_ = pattern;
  // Runners of other uids reach their own folders inside, and list nothing.
  ::chmod(path_.c_str(), 0711);
}

WorkRoot::~WorkRoot() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

ResultMemory::ResultMemory(std::size_t bytes) : bytes_(bytes) {
  fd_ = ::memfd_create("spmv-result", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd_ < 0) fail("memfd_create");
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) fail("ftruncate of the result area");
  // A runner that could shrink it would make the grader's reads fault.
  if (::fcntl(fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) fail("sealing the result area");
  data_ = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd_, 0);
  if (data_ == MAP_FAILED) fail("mmap of the result area");
}

ResultMemory::~ResultMemory() {
  if (data_ != nullptr && data_ != MAP_FAILED) ::munmap(data_, bytes_);
  if (fd_ >= 0) ::close(fd_);
}

Launcher::Launcher(int threads) {
  for (int k = 0; k < std::max(threads, 1); ++k) threads_.emplace_back([this] { work(); });
}

void Launcher::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    jobs_.clear();
  }
  wake_.notify_all();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

std::future<std::unique_ptr<Runner>> Launcher::start(std::function<std::unique_ptr<Runner>()> job) {
  std::packaged_task<std::unique_ptr<Runner>()> task(std::move(job));
  auto result = task.get_future();
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return result;  // the task dropped here: broken_promise
    jobs_.push_back(std::move(task));
  }
  wake_.notify_one();
  return result;
}

void Launcher::work() {
  while (true) {
    std::packaged_task<std::unique_ptr<Runner>()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      task = std::move(jobs_.front());
      jobs_.pop_front();
    }
    task();
  }
}

}  // namespace spmv::grade
