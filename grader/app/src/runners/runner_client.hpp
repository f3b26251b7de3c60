// The grader's handle on one runner (spmv-runner in its sandbox): it starts
// the runner, sends it one request at a time and waits for the reply with a
// deadline, timing each round trip with its own clock, and keeps what the
// runner prints in a log capped in size. Nothing the runner says is taken as
// more than its word; how it ended (a signal, an exit) comes from the
// sandbox's init, outside the runner.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "spmv/runner/protocol.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::grade {

using Clock = std::chrono::steady_clock;

struct RunnerSpec {
  std::filesystem::path executable;  // bin/spmv-runner or bin/spmv-reference-runner
  std::filesystem::path plugin;      // copied into the runner's folder as plugin.so
  std::string space;                 // "device", "host" or "probe"
  sandbox::Level level = sandbox::Level::kFull;
  std::string visible_devices;      // CUDA_VISIBLE_DEVICES of the runner ("" for host runners)
  std::filesystem::path work_root;  // the grader's private folder for runner folders
  std::filesystem::path log_file;   // the runner's stdout and stderr, capped
  std::size_t log_cap_bytes = std::size_t{1} << 20;
  bool append_log = false;  // add to log_file (a restarted runner's) instead of starting it afresh
  sandbox::Limits limits;
  // Vendor libraries the submission may not use (the policy's): the plugin
  // linking or importing one is refused, and their files are out of sight.
  std::vector<std::string> forbidden_libraries;
  // Run under compute-sanitizer (--memcheck): its program, its tool
  // (memcheck, racecheck) and the report file it writes. The report's folder
  // is made for the runner's uid beside the runner's own folder, where the
  // runner, once restricted, cannot write.
  struct Sanitizer {
    std::filesystem::path program;
    std::string tool;
    std::filesystem::path report;
  };
  std::optional<Sanitizer> sanitizer;
};

// How a runner ended, as the sandbox saw it.
struct RunnerEnd {
  enum class Kind { kRunning, kExited, kSignaled, kTimedOut, kKilled };
  Kind kind = Kind::kRunning;
  int code = 0;
  int signal = 0;
};

class Runner {
 public:
  // Starts the runner; throws std::runtime_error (the grader's failure).
  explicit Runner(const RunnerSpec& spec);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Sends a request without waiting (for a start-up done ahead).
  void send(const runner::Request& request, std::span<const int> fds = {});
  // Waits for the reply to the request sent last, until `deadline`. nullopt
  // when the runner ended or the deadline passed: end() then says which.
  std::optional<runner::Reply> receive(Clock::time_point deadline);
  // Waits until a reply is there to receive (or the runner ended, or
  // `deadline` passed), taking nothing: a start-up done ahead waits here
  // for its runner's CUDA context.
  void await_reply(Clock::time_point deadline) {
    if (!ended_) wait_readable(deadline);
  }
  // send() then receive().
  std::optional<runner::Reply> call(const runner::Request& request, Clock::time_point deadline,
                                    std::span<const int> fds = {});
  // The last round trip, send to reply, by the grader's clock.
  [[nodiscard]] double last_round_trip_ms() const { return last_round_trip_ms_; }

  // Kills everything of the runner's sandbox and reaps it (once); how the
  // runner ended. Its log is complete afterwards.
  RunnerEnd end();
  // Waits until the runner's program has ended by itself (after kQuit), at
  // most until `deadline`; whether it did.
  bool wait_for_exit(Clock::time_point deadline);
  [[nodiscard]] bool timed_out() const { return timed_out_; }
  [[nodiscard]] const std::filesystem::path& log_file() const { return spec_.log_file; }
  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }

 private:
  void drain_output();
  void wait_readable(Clock::time_point deadline);

  RunnerSpec spec_;
  std::filesystem::path folder_;
  std::optional<sandbox::UidLease> uid_;
  std::unique_ptr<sandbox::Process> process_;
  int control_ = -1;
  int output_ = -1;
  int log_ = -1;
  std::size_t logged_ = 0, dropped_ = 0;
  Clock::time_point sent_at_;
  double last_round_trip_ms_ = 0;
  bool timed_out_ = false;
  bool ended_ = false;
  RunnerEnd end_;
};

// A private folder for runner folders, removed with everything in it when
// the object goes. Traversable by the runners' uids, listable by none.
class WorkRoot {
 public:
  WorkRoot();
  ~WorkRoot();
  WorkRoot(const WorkRoot&) = delete;
  WorkRoot& operator=(const WorkRoot&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs jobs in order, `threads` at a time, on threads that live as long as
// the object. Runners are started there, off the path of the row being
// graded: a sandbox's processes get SIGKILL when the thread that started
// them ends (PR_SET_PDEATHSIG is a thread's), so those threads must outlive
// them.
class Launcher {
 public:
  explicit Launcher(int threads = 1);
  ~Launcher() { stop(); }
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;
  std::future<std::unique_ptr<Runner>> start(std::function<std::unique_ptr<Runner>()> job);
  // Drops the jobs not begun (their futures get broken_promise), waits for
  // the one running and ends the thread. An owner whose jobs read its
  // members calls it before those members go.
  void stop();

 private:
  void work();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<std::unique_ptr<Runner>()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// A memfd of `bytes` zero bytes, mapped read-only here; the runner gets the
// descriptor and writes into it.
class ResultMemory {
 public:
  explicit ResultMemory(std::size_t bytes);
  ~ResultMemory();
  ResultMemory(const ResultMemory&) = delete;
  ResultMemory& operator=(const ResultMemory&) = delete;
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] const std::uint32_t* words() const { return static_cast<const std::uint32_t*>(data_); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace spmv::grade
