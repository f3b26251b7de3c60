#include "runners/memcheck.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "model/row.hpp"
#include "spmv/core/text.hpp"
#include "spmv/runner/protocol.hpp"

namespace spmv::grade {
namespace {

constexpr std::string_view kPrefix = "=========";

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// The function name just before the first '(' of `text`: "k" in
// "0x70 in f.cu:12:k(int, float*)" and in "void k<int>(int)+0x70 in f.cu:12".
std::string function_name(std::string_view text) {
  const auto open = text.find('(');
  if (open == std::string_view::npos) return "";
  std::size_t start = open;
  int angle = 0;
  while (start > 0) {
    const char c = text[start - 1];
    if (c == '>') ++angle;
    if (c == '<') --angle;
    const bool part = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':' || c == '~' ||
                      c == '<' || c == '>' || (angle > 0 && c != '\n');
    if (!part) break;
    --start;
  }
  std::string name(text.substr(start, open - start));
  // "csr.cu:40:kernel": a lone ':' ends a file and line; "ns::kernel" stays.
  for (std::size_t at = name.size(); at-- > 0;) {
    const bool lone =
        name[at] == ':' && (at == 0 || name[at - 1] != ':') && (at + 1 == name.size() || name[at + 1] != ':');
    if (lone) {
      name.erase(0, at + 1);
      break;
    }
  }
  return name;
}

// The first number after `key` in `text`, or nullopt.
std::optional<int> number_after(std::string_view text, std::string_view key) {
  const auto at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string rest(text.substr(at + key.size()));
  char* end = nullptr;
  const long value = std::strtol(rest.c_str(), &end, 10);
  if (end == rest.c_str()) return std::nullopt;
  return static_cast<int>(value);
}

}  // namespace

SanitizerReport parse_sanitizer_report(std::string_view text) {
  SanitizerReport report;
  SanitizerFinding* current = nullptr;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    std::string_view rest = line;
    if (!starts_with(rest, kPrefix)) continue;
    rest.remove_prefix(kPrefix.size());
    const bool detail = starts_with(rest, "  ");  // "=========     at ..." under a finding
    rest = trim(rest);
    if (rest.empty()) continue;
    if (!detail) {
      current = nullptr;
      if (starts_with(rest, "COMPUTE-SANITIZER")) continue;
      if (starts_with(rest, "ERROR SUMMARY:")) {
        report.complete = true;
        report.errors = number_after(rest, "ERROR SUMMARY:").value_or(0);
        continue;
      }
      if (starts_with(rest, "RACECHECK SUMMARY:")) {
        report.complete = true;
        report.errors = std::max(report.errors, number_after(rest, "(").value_or(0));
        continue;
      }
      // An error of the host's CUDA calls, not of a kernel's accesses.
      if (starts_with(rest, "Program hit")) continue;
      if (starts_with(rest, "Error: ")) rest.remove_prefix(7);
      if (starts_with(rest, "Warning: ")) continue;
      report.findings.push_back({std::string(rest), "", ""});
      current = &report.findings.back();
      if (starts_with(rest, "Race reported")) {
        const auto at = rest.find(" at ");
        if (at != std::string_view::npos) current->kernel = function_name(rest.substr(at + 4));
      }
      continue;
    }
    if (current == nullptr) continue;
    if (starts_with(rest, "at ") && current->kernel.empty()) current->kernel = function_name(rest.substr(3));
    if (const auto at = rest.find("Address 0x"); at != std::string_view::npos && current->address.empty()) {
      std::string_view address = rest.substr(at + 8);
      address = address.substr(0, address.find(' '));
      current->address = std::string(address);
    }
  }
  return report;
}

std::string describe_findings(const std::string& tool, const SanitizerReport& report) {
  if (report.findings.empty()) return "";
  const SanitizerFinding& first = report.findings.front();
  std::string text = tool + ": " + first.kind;
  if (!first.kernel.empty()) text += " in kernel " + first.kernel;
  if (!first.address.empty()) text += " at " + first.address;
  const int more = std::max(report.errors, static_cast<int>(report.findings.size())) - 1;
  if (more > 0) text += ", and " + std::to_string(more) + " more error" + (more == 1 ? "" : "s");
  return text;
}

std::optional<std::filesystem::path> find_compute_sanitizer() {
  std::vector<std::filesystem::path> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream folders(path);
    for (std::string folder; std::getline(folders, folder, ':');) {
      if (!folder.empty()) candidates.push_back(std::filesystem::path(folder) / "compute-sanitizer");
    }
  }
  if (const char* home = std::getenv("CUDA_HOME"))
    candidates.push_back(std::filesystem::path(home) / "bin/compute-sanitizer");
  candidates.emplace_back("/usr/local/cuda/bin/compute-sanitizer");
  for (const auto& candidate : candidates) {
    std::error_code error;
    // The real program, not bin/'s link to it: its folder holds its libraries.
    const auto real = std::filesystem::canonical(candidate, error);
    if (!error && std::filesystem::is_regular_file(real)) return real;
  }
  return std::nullopt;
}

MemcheckOutcome run_under_sanitizer(RunnerSpec spec, const std::filesystem::path& sanitizer, const std::string& tool,
                                    PreparedCase& prepared, const std::string& kernel, spmv_format format,
                                    double timeout_s) {
  using runner::Command;
  using runner::ReplyKind;
  MemcheckOutcome outcome;
  static std::atomic<int> reports = 0;
  spec.sanitizer = RunnerSpec::Sanitizer{sanitizer, tool,
                                         spec.work_root / ("sanitizer-" + std::to_string(++reports)) / "report.txt"};
  // The sanitizer makes start-up and every launch many times slower.
  const auto deadline = Clock::now() + std::chrono::seconds(static_cast<long>(4 * timeout_s + 120));
  Runner runner(spec);
  const ResultMemory results(runner::result_area_bytes(prepared.csr.rows));
  const auto ask = [&](runner::Request request, std::span<const int> fds = {}) {
    const auto reply = runner.call(request, deadline, fds);
    if (!reply) {
      outcome.problem =
          "the runner ended or did not answer (" + std::string(runner.timed_out() ? "time limit" : "ended") + ")";
      return false;
    }
    if (reply->kind != ReplyKind::kOk) {
      outcome.problem = runner::read_text(reply->message);
      return false;
    }
    return true;
  };
  runner::Request request;
  request.command = Command::kHello;
  if (!ask(request)) return outcome;
  request.command = Command::kLoad;
  if (!ask(request)) return outcome;
  runner::Request setup;
  setup.command = Command::kSetup;
  setup.format = format;
  runner::store_text(setup.kernel, kernel);
  const int fds[2] = {matrix_image(prepared, format), results.fd()};
  if (!ask(setup, fds)) return outcome;
  // memcheck stops a kernel at its first invalid access, so the launch
  // fails: the report, not the launch, says what happened.
  bool launches_ok = true;
  for (int run = 0; run < kRunsPerRow && launches_ok; ++run) {
    runner::Request launch;
    launch.command = Command::kRun;
    launch.slot = run;
    launch.seed = prepared.x_seeds[static_cast<std::size_t>(x_of_run(run))];
    launches_ok = ask(launch);
  }
  const std::string launch_problem = outcome.problem;
  if (launches_ok || !runner.timed_out()) {
    runner::Request quit;
    quit.command = Command::kQuit;
    try {
      runner.send(quit);
    } catch (const std::exception&) {
      // it has ended already
    }
  }
  // The sanitizer writes its report when the runner has ended.
  if (!runner.wait_for_exit(deadline)) {
    outcome.problem =
        "compute-sanitizer did not finish in time" + (launch_problem.empty() ? "" : " (" + launch_problem + ")");
    return outcome;
  }
  runner.end();
  std::ifstream file(spec.sanitizer->report);
  std::ostringstream text;
  text << file.rdbuf();
  outcome.report = parse_sanitizer_report(text.str());
  outcome.ran = outcome.report.complete && (launches_ok || !outcome.report.findings.empty());
  if (!outcome.report.complete) {
    outcome.problem = "compute-sanitizer's report is missing or incomplete" +
                      (launch_problem.empty() ? "" : " (" + launch_problem + ")");
  } else if (!outcome.ran) {
    outcome.problem = launch_problem;  // a launch failed with nothing reported
  } else {
    outcome.problem.clear();
  }
  return outcome;
}

}  // namespace spmv::grade
