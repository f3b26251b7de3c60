#include <algorithm>
#include <map>

#include "case_check.hpp"
#include "commands.hpp"
#include "kernel_run.hpp"
#include "progress.hpp"
#include "text_report.hpp"

namespace spmv::ta {
namespace {

using Problems = std::vector<std::string>;

// Between progress lines on stderr when it is not a terminal.
constexpr int kProgressSeconds = 15;

// Errors of load_cases name the manifest and line; one that does not name
// the source at all gets it in front.
std::string naming_source(const std::filesystem::path& source, const std::string& message) {
  return message.find(source.string()) == std::string::npos ? source.string() + ": " + message : message;
}

std::vector<TestCase> load_all_cases(const std::vector<std::filesystem::path>& sources, Problems& problems) {
  std::vector<TestCase> all;
  std::map<std::string, std::filesystem::path> source_of;
  for (const auto& source : sources) {
    std::vector<TestCase> cases;
    try {
      cases = load_cases(source);
    } catch (const std::exception& e) {
      problems.push_back(naming_source(source, e.what()));
      continue;
    }
    if (cases.empty()) problems.push_back(source.string() + ": expected at least one case, found none");
    // A matrix the loader does not read would be left out without a word.
    for (const auto& file : unread_matrix_files(source)) {
      problems.push_back(file.string() +
                         ": not read: only .mtx and .mtx.gz files (and cases.ini sections) are "
                         "cases; rename it, or move it out of the case folder");
    }
    for (const auto& file : subfolder_matrix_files(source)) {
      problems.push_back(file.string() +
                         ": not read: in a subfolder of the case folder, and no cases.ini line names it (a case "
                         "folder's cases are its own .mtx and .mtx.gz files and its cases.ini sections); move it "
                         "up, or name it in cases.ini with \"file = " +
                         std::filesystem::relative(file, source).generic_string() + "\"");
    }
    for (auto& test_case : cases) {
      if (const auto [it, fresh] = source_of.emplace(test_case.name, source); !fresh) {
        problems.push_back(source.string() + ": case " + test_case.name + " is also in " + it->second.string() +
                           " (spmv-grade refuses two cases of one name)");
        continue;
      }
      all.push_back(std::move(test_case));
    }
  }
  return all;
}

std::size_t longest_name(const std::vector<TestCase>& cases) {
  std::size_t longest = 0;
  for (const auto& test_case : cases) longest = std::max(longest, test_case.name.size());
  return longest;
}

void print_kernel_mode(std::ostream& out, const ValidateOptions& options, bool run_kernels) {
  if (run_kernels) {
    out << "reference kernels: run on each case, x = random_vector(cols, seed " << options.x_seed << ")\n";
  } else if (options.run_kernels) {
    out << "no GPU: reference kernels not run\n";
  } else {
    out << "reference kernels not run (--no-kernels)\n";
  }
}

void print_list(std::ostream& out, const char* title, const std::vector<std::string>& lines) {
  if (lines.empty()) return;
  out << '\n' << title << " (" << lines.size() << "):\n";
  for (const auto& line : lines) out << "  " << line << '\n';
}

}  // namespace

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err) {
  const auto kernels = reference_kernels();
  CheckOptions check_options;
  check_options.limits.max_bytes = static_cast<std::size_t>(options.common.format_limit_bytes);
  check_options.x_seed = options.x_seed;
  check_options.run_kernels = options.run_kernels && reference_kernels_runnable();

  Problems problems;
  const std::vector<TestCase> cases = load_all_cases(options.sources, problems);
  out << cases.size() << " cases; padded formats limited to " << (options.common.format_limit_bytes >> 20)
      << " MiB; generator cache " << options.common.cache_dir.string() << '\n';
  print_kernel_mode(out, options, check_options.run_kernels);
  out << '\n';

  const CaseTable table(longest_name(cases), kernels);
  if (!cases.empty()) table.print_header(out);
  std::vector<std::string> notes;
  std::size_t cases_with_problems = 0;
  // A large case may take minutes: its progress goes to stderr (progress.hpp).
  Heartbeat heartbeat(err, Heartbeat::stderr_is_terminal(),
                      Heartbeat::interval_from_environment(std::chrono::seconds(kProgressSeconds)));
  check_options.on_phase = [&heartbeat](const std::string& phase) { heartbeat.phase(phase); };
  std::size_t done = 0;
  for (const auto& test_case : cases) {
    heartbeat.begin("case " + test_case.name + " (" + std::to_string(++done) + " of " + std::to_string(cases.size()) +
                    ")");
    const CaseReport report = check_case(test_case, options.common.cache_dir, kernels, check_options);
    heartbeat.end();
    table.print_row(out, report);
    out.flush();
    if (report.check) {
      for (const auto& note : not_applicable_notes(*report.check, kernels)) notes.push_back(report.name + ": " + note);
    }
    if (!report.problems.empty()) ++cases_with_problems;
    for (const auto& problem : report.problems) problems.push_back(problem);
  }

  // Problems of the folders and files given (one that cannot be loaded, a
  // name in two folders) are counted with those of the cases.
  out << '\n' << cases.size() << " cases checked, " << cases_with_problems << " with problems; ";
  if (problems.empty()) {
    out << "no problem found\n";
  } else {
    out << problems.size() << (problems.size() == 1 ? " problem" : " problems") << " in all, listed on stderr\n";
  }
  print_list(out, "Not applicable", notes);
  out.flush();
  print_list(err, "Problems", problems);
  return problems.empty() ? kExitOk : kExitProblems;
}

}  // namespace spmv::ta
