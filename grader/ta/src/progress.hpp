// Progress of a long spmv-cases run, on stderr: the table rows on stdout
// come one per case, but a large case may take minutes to read, generate,
// convert or run. On a terminal a status line (erased before the case's
// row) says what is going on once a case has taken a couple of seconds;
// elsewhere (a log, CI, a pipe) a line is printed after every interval, so
// a long step never looks like a hang.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace spmv::ta {

class Heartbeat {
 public:
  // `interval`: between lines when not on a terminal (the environment
  // variable SPMV_PROGRESS_SECONDS overrides it; a terminal's status line
  // is updated every second).
  Heartbeat(std::ostream& err, bool terminal, std::chrono::duration<double> interval);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // A new case: `what` names it ("case big (3 of 24)").
  void begin(const std::string& what);
  // What the case is doing now ("reading big.mtx", "converting to ell").
  void phase(const std::string& phase);
  // The case is done; erases a terminal's status line.
  void end();

  // Whether stderr is a terminal, and the interval SPMV_PROGRESS_SECONDS gives (else `fallback`).
  static bool stderr_is_terminal();
  static std::chrono::duration<double> interval_from_environment(std::chrono::duration<double> fallback);

 private:
  void run();
  void print_locked();

  std::ostream& err_;
  bool terminal_;
  std::chrono::duration<double> interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool active_ = false;
  bool status_shown_ = false;
  std::string what_;
  std::string phase_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point next_;
  std::thread thread_;
};

}  // namespace spmv::ta
