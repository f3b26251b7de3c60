#include "rows/row_plan.hpp"

#include <sys/random.h>
#include <unistd.h>

namespace spmv::grade {

runner::Request make_request(runner::Command command) {
  runner::Request request;
  request.command = command;
  return request;
}

double total_ms(const std::map<std::string, double>& phases) {
  double total = 0;
  for (const auto& [name, ms] : phases) total += ms;
  return total;
}

Clock::time_point after_seconds(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string how_it_ended(const RunnerEnd& end) {
  switch (end.kind) {
    case RunnerEnd::Kind::kSignaled: return "was killed by signal " + std::to_string(end.signal);
    case RunnerEnd::Kind::kExited: return "exited with status " + std::to_string(end.code);
    case RunnerEnd::Kind::kTimedOut: return "did not answer in time";
    case RunnerEnd::Kind::kKilled: return "ended";
    case RunnerEnd::Kind::kRunning: break;
  }
  return "is still running";
}

Unpredictable::result_type Unpredictable::operator()() {
  result_type value = 0;
  while (::getrandom(&value, sizeof value, 0) != static_cast<ssize_t>(sizeof value)) {
  }
  return value;
}

PendingRunner start_submission_runner(RunnerFactory& factory, const std::filesystem::path& log, bool append_log) {
  PendingRunner pending;
  pending.log = log;
  // Making a sandbox (namespaces, a uid, a copy of the plugin) takes the
  // grader tens of milliseconds: not on the path of the row being graded.
  pending.starting = factory.start_submission(log, append_log);
  return pending;
}

bool RowState::phase(const char* name, bool ok) {
  const Clock::time_point now = Clock::now();
  record.phase_ms[name] += std::chrono::duration<double, std::milli>(now - phase_start_).count();
  phase_start_ = now;
  return ok;
}

void RowState::be_active() {
  alone.release();
  if (!active.held()) active = factory.active();
}

void RowState::be_alone() {
  active.release();
  if (!alone.held()) alone = factory.alone();
}

runner::Request RowState::setup_request() const {
  runner::Request request = make_request(runner::Command::kSetup);
  request.format = plan.format;
  runner::store_text(request.kernel, plan.kernel);
  return request;
}

std::array<int, 2> RowState::setup_fds(const ResultMemory& results) {
  return {matrix_image(prepared, plan.format), results.fd()};
}

}  // namespace spmv::grade
