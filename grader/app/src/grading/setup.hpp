// What a grading settles before its first row: the policy, the two
// plugins' tables (probed in runners), the kernels and the cases; and what
// every runner of the grading shares.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cases/case_data.hpp"
#include "cases/case_set.hpp"
#include "model/options.hpp"
#include "model/row.hpp"
#include "runners/probe.hpp"
#include "runners/runner_client.hpp"
#include "scoring/policy.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::grade {

struct Setup {
  Policy policy;
  PluginInfo submission;
  PluginInfo reference;
  std::vector<std::string> kernels;
  std::vector<CaseEntry> cases;
};

// Loading a plugin or starting CUDA takes well under this; the row timeout
// may be set much shorter for tests of hanging kernels.
inline constexpr double kMinimumProbeTimeout = 60;

// The policy of --policy FILE, or the built-in one. Throws UsageError.
Policy read_policy(const std::optional<std::filesystem::path>& file);

// The folder of the runners' logs in an output folder.
std::filesystem::path logs_dir(const std::filesystem::path& output_dir);

// `text` for a file name: characters other than letters, digits, '-', '_'
// and '.' become '_'.
std::string file_name_part(const std::string& text);

// --isolation (`asked`), or the strongest level this machine gives; below
// the container level only with --allow-unisolated. Throws UsageError for
// an unknown level, SetupError for one not available or not allowed.
sandbox::Level isolation_level(const std::optional<std::string>& asked, bool allow_unisolated);

// What every runner of a grading shares: its isolation level, its work
// folder, its limits (from the row's time limit) and the libraries the
// policy forbids. The program, plugin and log are each runner's own.
RunnerSpec common_runner_spec(const Policy& policy, const WorkRoot& work_root, sandbox::Level level, double timeout_s);
RunnerSpec for_program(RunnerSpec spec, const std::filesystem::path& executable, const std::filesystem::path& plugin,
                       const std::filesystem::path& log);

// Probes the submission's table and the reference's, each in a runner of
// `common`'s settings logging into `logs`, into setup.submission and
// setup.reference. The reference is `reference`, else by the submission's
// memory space the default device or host reference. Throws SetupError
// when the reference cannot be used or works in another memory space than
// the submission.
void probe_plugins(Setup& setup, const RunnerSpec& common, const Defaults& defaults,
                   const std::filesystem::path& submission, const std::optional<std::filesystem::path>& reference,
                   const std::filesystem::path& logs, double timeout_s);

// The kernels to grade: `asked` (--kernel), else the policy's graded
// kernels. Throws UsageError for a kernel the reference lacks, named with
// its --kernel or its line of the policy.
std::vector<std::string> choose_kernels(const std::vector<std::string>& asked, const Setup& setup);

// A selection (--kernel, --case) whose rows carry no points is allowed (a
// kernel of weight 0 named with --kernel, a case of weight 0 looked at
// alone), but said, on stderr and in the report: the score will read 0 / 0.
// `cases_filtered`: --case was given; `kernels_chosen`: --kernel was.
// Empty when the rows carry points.
std::string no_points_note(const Setup& setup, bool cases_filtered, bool kernels_chosen);

// A --submission that names no file, or a folder, is the caller's mistake
// (a usage error), not a submission that scores 0; a file that exists but
// does not load is the submission's own problem, judged row by row.
// `given`: by --submission, not the default. Throws UsageError.
void check_submission_path(const std::filesystem::path& submission, bool given);

// A row's verdict when it needs no runner.
struct Decision {
  Verdict verdict;
  std::string cause;
  std::string why;
};

// Everything that settles a row before any plugin code runs; nullopt
// when the row needs its runner.
// `gpu_missing`: a device grading found no GPU.
std::optional<Decision> decide_without_runner(const Setup& setup, const RowResult& row, const PreparedCase& prepared,
                                              bool gpu_missing);

}  // namespace spmv::grade
