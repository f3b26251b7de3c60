#include "cli/options.hpp"

#include "cli/ini_files.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/program_options.hpp>

#include "model/exit_codes.hpp"
#include "spmv/core/format_table.hpp"

#ifndef SPMV_GRADE_PLUGIN_DIR_FROM_BIN
#error "SPMV_GRADE_PLUGIN_DIR_FROM_BIN must give the plugin folder relative to the executable's"
#endif

namespace spmv::grade {
namespace po = boost::program_options;
using cli::get;
using cli::parse_seed;
using cli::require;
namespace {

std::string usage_header() {
  return R"(Usage: spmv-grade [options]

Grades a kernel plugin (default: the student plugin) against the reference
plugin on a set of test cases. For each (kernel, case) a child process
uploads the case's matrix in the kernel's format, fills y with NaN between
guard zones, runs the submission three times (x, another x, x again) and
checks every row against the fp64 golden result, the guard zones and the
inputs; a correct kernel is then timed against the reference kernel
(interleaved, CUDA events, median). A crash or hang costs only its row.

Examples:
  spmv-grade
      grade student/ on testcases/public with the default policy
  spmv-grade --kernel csr_vector --case 'stencil*'
      one kernel, the cases whose names match a pattern
  spmv-grade --submission my/libspmv_mine.so --cases /secret/cases \
             --secret-seed-file /autograder/secret-seed --output-dir /autograder/results
      a hidden run: Gradescope's results.json lands in the output folder
  spmv-grade --config grading.cfg --timeout 120
      options from a file (same names, "timeout = 30"); the command line wins
  spmv-grade --list
      the cases and kernels a run would grade, and the effective policy
  spmv-grade --policy my-policy.ini --show-policy=json
      the effective policy, every key resolved, as JSON

Exit status:
  0   every row passed (or is not applicable); also when no CUDA GPU is
      found and the host-side checks passed, unless --strict-gpu
  1   some row failed (wrong, crash, timeout, not implemented, ...)
  2   usage error: an unknown or malformed option, a bad config or policy file
      (one under which no case weighs anything too), a --resume into a
      folder another run made (it names what differs)
  3   setup error: a --cases folder that yields no case, a case or the
      reference that could not be used, or the report could not be written
  77  no CUDA GPU for a device plugin, with --strict-gpu (CTest: skipped)

Reports (in --output-dir): results.json (Gradescope), summary.md,
rows.jsonl (one line per row), run.json (the run's facts: what graded the
rows, the effective policy; --resume checks it), logs/ (each row's captured
submission output).
GB/s counts the bytes a kernel must move at least: the matrix arrays of its
format, read once, x read once (4 cols) and y written once (4 rows). The
arrays of each format:
  )" + byte_models("\n  ") +
         "\n";
}

// Each waiting runner holds a CUDA context (some hundred MB of device
// memory); a few cover any start-up cost.
constexpr int kMaxPrestart = 8;

// Wider than Boost's default of 80 columns, so option names and their
// descriptions sit side by side.
constexpr unsigned kHelpWidth = 100;
constexpr unsigned kHelpDescriptionColumn = 50;

struct Described {
  po::options_description grading{"Grading", kHelpWidth, kHelpDescriptionColumn};
  po::options_description measuring{"Measuring", kHelpWidth, kHelpDescriptionColumn};
  po::options_description reporting{"Reports and modes", kHelpWidth, kHelpDescriptionColumn};
  po::options_description general{"General", kHelpWidth, kHelpDescriptionColumn};
};

std::string default_paths(const Defaults& defaults) {
  return "Default paths (from where this spmv-grade was built):\n"
         "  student plugin    " +
         defaults.student_plugin.string() +
         "\n"
         "  reference plugin  " +
         defaults.reference_plugin.string() +
         "\n"
         "  host reference    " +
         defaults.host_reference_plugin.string() +
         "\n"
         "  cases             " +
         defaults.cases.string() +
         "\n"
         "  generator cache   " +
         defaults.cache_dir.string() + "\n";
}

void describe_options(Described& d) {
  d.grading.add_options()("submission", po::value<std::string>()->value_name("PATH.so"),
                          "plugin to grade (default: the student plugin)")(
      "reference", po::value<std::string>()->value_name("PATH.so"),
      "plugin to compare with (default: the reference plugin, or the host reference for a host-memory "
      "submission)")("cases", po::value<std::vector<std::string>>()->value_name("DIR|FILE"),
                     "a case folder (*.mtx, *.mtx.gz, cases.ini), a manifest or a matrix file; repeatable "
                     "(default: the public cases)")(
      "kernel", po::value<std::vector<std::string>>()->value_name("NAME"),
      "kernel to grade; repeatable or comma-separated (default: the policy's kernels)")(
      "case", po::value<std::vector<std::string>>()->value_name("PATTERN"),
      "grade only cases whose names match this shell pattern; repeatable")(
      "policy", po::value<std::string>()->value_name("FILE"),
      "scoring policy (default: the built-in grader/policy/default-policy.ini)")(
      "seed", po::value<std::string>()->value_name("N"),
      "seed of the random x vectors (default: a fresh one, written in the report)")(
      "secret-seed-file", po::value<std::string>()->value_name("FILE"),
      "file whose first line is mixed into the seed for hidden runs; never written in reports (a secret never "
      "goes on a command line; `secret-seed = TEXT` in a --config file works too)")(
      "secret-seed", po::value<std::string>()->value_name("TEXT"), "in a --config file only: the secret seed")(
      "isolation", po::value<std::string>()->value_name("LEVEL"),
      "how each submission runner is contained: full, container, user or none (default: the strongest "
      "available; see docs/grading.md)")(
      "allow-unisolated", po::bool_switch(),
      "grade even below the container level (a student grading their own work); the reports say so")(
      "timeout", po::value<double>()->value_name("SECONDS"), "time limit of one (kernel, case) row (default 60)")(
      "format-limit-mib", po::value<std::uint64_t>()->value_name("MIB"),
      "largest padded format (ELL, HYB) to build; larger is \"not applicable\" (default 4096)")(
      "cache-dir", po::value<std::string>()->value_name("DIR"), "cache of generated matrices (default: see below)")(
      "prestart", po::value<int>()->value_name("N"),
      "start the runners of the next N rows ahead, each creating its CUDA context while the current row "
      "runs, then waiting for its turn without loading the plugin (default 5; 0: start each runner at its "
      "row's turn)");
  d.measuring.add_options()("min-runs", po::value<int>()->value_name("N"),
                            "timed bursts per side, at least (default 4; more while their spread is over 2%)")(
      "min-time-ms", po::value<double>()->value_name("MS"),
      "a burst's launches take about this long on the GPU (default 3; 0: one launch a burst)")(
      "max-runs", po::value<int>()->value_name("N"), "timed bursts per side, at most (default 10)")(
      "warmup-runs", po::value<int>()->value_name("N"), "untimed bursts per side first (default 1)")(
      "no-cusparse", po::bool_switch(), "do not time cuSPARSE (CSR ALG1) as context")(
      "cusparse-cache", po::value<std::string>()->value_name("DIR"),
      "keep cuSPARSE's time on each case in DIR, and take it from there if it is there already: for gradings of "
      "the same cases on the same GPU (tools/grade-class)")(
      "gpu-cache", po::value<std::string>()->value_name("DIR"),
      "keep in DIR what is measured once a GPU, for the other gradings on the same GPU (tools/grade-class): its copy "
      "bandwidth, and the reference's window on each case, which serves them for at most 5 minutes (a row scored by "
      "speed still times the reference after its runner, and sets aside a kept window more than 2% from that); "
      "default for a GPU grading: the cache folder's gpu/ (none with an empty --cache-dir)")(
      "memcheck", po::bool_switch(),
      "then run each kernel's runs again on its 3 smallest passing cases under compute-sanitizer (memcheck; "
      "racecheck too for csr_vector): an error it reports makes the row wrong, naming kernel, kind and address")(
      "device", po::value<int>()->value_name("N"), "CUDA device index (default 0)")(
      "gpu-share", po::value<std::string>()->value_name("FILE"),
      "share the GPU with other gradings given the same FILE (tools/grade-class --gradings-per-gpu): their "
      "untimed work overlaps, and each row's timed stretch has the GPU to itself (docs/grading.md)")(
      "device-from-ctest", po::bool_switch(),
      "the device CTest allotted (CTEST_RESOURCE_GROUP_0_GPUS, from its resource spec file), else --device");
  d.reporting.add_options()("output-dir", po::value<std::string>()->value_name("DIR"),
                            "where reports go (default: spmv-results)")(
      "journal", po::value<std::string>()->value_name("DIR"),
      "CTest mode: write each kernel's rows to DIR/<kernel>.jsonl (JSON lines) instead of the reports; rows "
      "already finished there are kept, not graded again; exits 0 once every row has a verdict, whatever it "
      "is (--show-row gives each row's)")(
      "show-row", po::value<std::string>()->value_name("FILE"),
      "CTest's row test: print the row of --kernel and --case from the kernel's journal FILE; exit 0 if it passed, 1 "
      "if it failed, 3 if it was not graded (77 with --strict-gpu when it was skipped for want of a GPU)")(
      "aggregate", po::value<std::string>()->value_name("DIR"),
      "CTest's final step: read the row files (*.jsonl) in DIR, write results.json and "
      "summary.md to --output-dir, print the score")(
      "resume", po::bool_switch(),
      "grade only the rows missing from --output-dir's rows.jsonl (a run killed midway); the finished rows "
      "are kept as they are, once the folder's run.json shows they were graded by the same submission, "
      "reference, policy, kernels, cases, seed (taken from there without --seed), secret seed and timing "
      "settings: anything else is refused, naming what differs")(
      "planned", po::value<std::string>()->value_name("FILE"),
      "with --aggregate: read only the row files FILE names, one per line (any other *.jsonl in the folder "
      "is ignored and reported)")(
      "list", po::bool_switch(),
      "list the cases and kernels a run would grade and the effective policy, checked against the cases and "
      "the reference, then exit")(
      "show-policy", po::value<std::string>()->implicit_value("text")->value_name("text|json"),
      "print the effective policy (--policy read over the built-in default, every key resolved) and exit: as a "
      "policy file --policy reads back, or as JSON (--show-policy=json); with --cases, its [case.<name>] "
      "sections are checked against them")("json", po::bool_switch(), "with --show-policy: print JSON")(
      "quiet", po::bool_switch(), "print only the final score (a row's verdict with --journal)")(
      "strict-gpu", po::bool_switch(), "exit 77 when no CUDA GPU is found (for CTest) instead of 0");
  d.general.add_options()("help,h", "this help")(
      "config", po::value<std::string>()->value_name("FILE"),
      "read options from FILE (name = value lines, names as above without --; '#' or ';' starts a comment at the "
      "start of a line or after a blank, elsewhere it is part of the value)")(
      "show-ini", po::value<std::vector<std::string>>()->multitoken()->value_name("TYPE FILE"),
      "check FILE as a file of TYPE (host: the autograder's host.ini, cases: a cases.ini, policy, config: a "
      "--config file), read as the grader reads it, and print it as JSON (for tools; exit 2 naming the file, line "
      "and key if it is not valid)");
}

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const auto& value : values) {
    std::istringstream stream(value);
    for (std::string item; std::getline(stream, item, ',');) {
      if (!item.empty()) items.push_back(item);
    }
  }
  return items;
}

// The GPU CTest allotted the test: "id:N,slots:1" in
// CTEST_RESOURCE_GROUP_0_GPUS, set when ctest reads a resource spec file.
std::optional<int> device_from_ctest() {
  const char* allotted = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (allotted == nullptr || *allotted == '\0') return std::nullopt;
  // "id:N,slots:1"
  const std::string text = allotted;
  int device = -1;
  const auto id = text.find("id:");
  const auto end = text.find(',', id);
  if (id != std::string::npos) {
    const std::string number = text.substr(id + 3, end == std::string::npos ? std::string::npos : end - id - 3);
    const auto [rest, error] = std::from_chars(number.data(), number.data() + number.size(), device);
    if (error != std::errc() || rest != number.data() + number.size()) device = -1;
  }
  if (device < 0) throw UsageError("--device-from-ctest: CTEST_RESOURCE_GROUP_0_GPUS is '" + text + "', not id:N,...");
  return device;
}

// A folder option's folder, made if missing; a usage error naming the
// option if it is empty or cannot be a folder (a file of that name).
std::optional<std::filesystem::path> folder_option(const po::variables_map& vm, const char* name) {
  const auto folder = get<std::string>(vm, name);
  if (!folder) return std::nullopt;
  require(!folder->empty(), name, "a folder", *folder);
  std::error_code error;
  std::filesystem::create_directories(*folder, error);
  require(std::filesystem::is_directory(*folder), name, "a folder that exists or can be made", *folder);
  return std::filesystem::path(*folder);
}

Options to_options(const po::variables_map& vm, const Defaults& defaults) {
  Options o;
  o.submission = get<std::string>(vm, "submission").value_or(defaults.student_plugin.string());
  o.submission_given = vm.count("submission") != 0 && !vm["submission"].defaulted();
  if (auto v = get<std::string>(vm, "reference")) o.reference = *v;
  for (const auto& c : get<std::vector<std::string>>(vm, "cases").value_or(std::vector<std::string>{})) {
    o.cases.emplace_back(c);
  }
  o.cases_given = !o.cases.empty();
  if (o.cases.empty()) o.cases.push_back(defaults.cases);
  o.kernels = split_commas(get<std::vector<std::string>>(vm, "kernel").value_or(std::vector<std::string>{}));
  o.case_filters = get<std::vector<std::string>>(vm, "case").value_or(std::vector<std::string>{});
  if (auto v = get<std::string>(vm, "policy")) o.policy = *v;
  if (auto v = get<std::string>(vm, "seed")) o.seed = parse_seed(*v);
  o.secret_seed = get<std::string>(vm, "secret-seed");
  if (auto file = get<std::string>(vm, "secret-seed-file")) {
    if (o.secret_seed) throw UsageError("--secret-seed-file: the config file gives secret-seed too; give one of them");
    std::ifstream stream(*file);
    std::string secret;
    if (!stream || !std::getline(stream, secret)) throw UsageError("--secret-seed-file " + *file + ": cannot read it");
    if (!secret.empty() && secret.back() == '\r') secret.pop_back();
    if (secret.empty()) throw UsageError("--secret-seed-file " + *file + ": its first line is empty");
    o.secret_seed = secret;
  }
  o.isolation = get<std::string>(vm, "isolation");
  o.allow_unisolated = vm["allow-unisolated"].as<bool>();
  o.resume = vm["resume"].as<bool>();
  if (auto v = get<std::string>(vm, "planned")) o.planned = *v;
  o.timeout_s = get<double>(vm, "timeout").value_or(o.timeout_s);
  require(o.timeout_s > 0 && o.timeout_s <= 86400, "timeout", "seconds in (0, 86400]", o.timeout_s);
  runner::TimingOptions& t = o.timing;
  t.min_runs = get<int>(vm, "min-runs").value_or(t.min_runs);
  require(t.min_runs >= 1, "min-runs", "at least 1", t.min_runs);
  t.min_time_ms = get<double>(vm, "min-time-ms").value_or(t.min_time_ms);
  require(t.min_time_ms >= 0, "min-time-ms", "a time >= 0", t.min_time_ms);
  t.max_runs = get<int>(vm, "max-runs").value_or(t.max_runs);
  require(t.max_runs >= t.min_runs, "max-runs", "at least --min-runs", t.max_runs);
  t.warmup_runs = get<int>(vm, "warmup-runs").value_or(t.warmup_runs);
  require(t.warmup_runs >= 0, "warmup-runs", "at least 0", t.warmup_runs);
  if (auto v = get<std::uint64_t>(vm, "format-limit-mib")) {
    require(*v >= 1 && *v <= (std::uint64_t{1} << 24), "format-limit-mib", "1 to 16777216", *v);
    o.format_limit_bytes = *v << 20;
  }
  o.cache_dir = get<std::string>(vm, "cache-dir").value_or(defaults.cache_dir.string());
  o.cusparse_cache = folder_option(vm, "cusparse-cache");
  o.gpu_cache = folder_option(vm, "gpu-cache");
  if (const auto share = get<std::string>(vm, "gpu-share")) {
    require(!share->empty(), "gpu-share", "a file name", *share);
    o.gpu_share = *share;
  }
  o.prestart = get<int>(vm, "prestart").value_or(o.prestart);
  require(o.prestart >= 0 && o.prestart <= kMaxPrestart, "prestart", ("0 to " + std::to_string(kMaxPrestart)).c_str(),
          o.prestart);
  o.device = get<int>(vm, "device").value_or(o.device);
  require(o.device >= 0, "device", "an index >= 0", o.device);
  o.output_dir = get<std::string>(vm, "output-dir").value_or(o.output_dir.string());
  if (auto v = get<std::string>(vm, "journal")) o.journal = *v;
  if (auto v = get<std::string>(vm, "aggregate")) o.aggregate = *v;
  if (auto v = get<std::string>(vm, "show-row")) o.show_row = *v;
  if (vm["device-from-ctest"].as<bool>()) o.device = device_from_ctest().value_or(o.device);
  o.cusparse = !vm["no-cusparse"].as<bool>();
  o.quiet = vm["quiet"].as<bool>();
  o.list = vm["list"].as<bool>();
  if (auto v = get<std::string>(vm, "show-policy")) {
    if (*v != "text" && *v != "json") throw UsageError("--show-policy=" + *v + ": expected text or json");
    o.show_policy = vm["json"].as<bool>() ? "json" : *v;
  } else if (vm["json"].as<bool>()) {
    throw UsageError("--json: only with --show-policy (--show-policy --json prints the policy as JSON)");
  }
  o.strict_gpu = vm["strict-gpu"].as<bool>();
  o.memcheck = vm["memcheck"].as<bool>();
  return o;
}

}  // namespace

Defaults defaults_for_executable(const std::filesystem::path& executable) {
  const auto bin = executable.parent_path();
  const auto plugins = (bin / SPMV_GRADE_PLUGIN_DIR_FROM_BIN).lexically_normal();
  Defaults d;
  d.student_plugin = plugins / SPMV_GRADE_STUDENT_PLUGIN;
  d.reference_plugin = plugins / SPMV_GRADE_REFERENCE_PLUGIN;
  d.host_reference_plugin = plugins / SPMV_GRADE_HOST_REFERENCE_PLUGIN;
  d.cases = SPMV_GRADE_DEFAULT_CASES;
  d.cache_dir = (bin / SPMV_GRADE_CACHE_DIR_FROM_BIN).lexically_normal();
  d.runner = bin / "spmv-runner";
  d.reference_runner = bin / "spmv-reference-runner";
  return d;
}

ParsedCommand parse_command_line(int argc, const char* const* argv, const Defaults& defaults) {
  Described d;
  describe_options(d);
  po::options_description everything(kHelpWidth, kHelpDescriptionColumn);
  everything.add(d.grading).add(d.measuring).add(d.reporting).add(d.general);
  po::options_description in_config_file;
  in_config_file.add(d.grading).add(d.measuring).add(d.reporting);

  // Words that are not options are collected to be refused by name: a
  // stray word is an error, never silently ignored.
  po::options_description with_strays;
  with_strays.add(everything).add_options()("unexpected-argument", po::value<std::vector<std::string>>());
  po::positional_options_description strays;
  strays.add("unexpected-argument", -1);

  ParsedCommand command;
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(with_strays).positional(strays).run(), vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("unexpected-argument") != 0) {
    throw UsageError("unexpected argument '" + vm["unexpected-argument"].as<std::vector<std::string>>().front() +
                     "' (options start with --)");
  }
  if (vm.count("help") != 0) {
    std::ostringstream text;
    text << usage_header() << '\n' << everything << '\n' << default_paths(defaults);
    command.help = true;
    command.help_text = text.str();
    return command;
  }
  if (vm.count("show-ini") != 0) {
    command.show_ini = vm["show-ini"].as<std::vector<std::string>>();
    if (command.show_ini.size() != 2) throw UsageError("--show-ini: expected TYPE FILE");
    command.config_options.add(in_config_file);
    return command;
  }
  if (vm.count("secret-seed") != 0) {
    throw UsageError(
        "--secret-seed: a secret on the command line is visible to every process of the machine; put "
        "it in a file (--secret-seed-file FILE) or a --config file (secret-seed = TEXT)");
  }
  // Stored after the command line, so the command line's values stay.
  try {
    if (vm.count("config") != 0) po::store(read_config_file(vm["config"].as<std::string>(), in_config_file), vm);
    po::notify(vm);
    command.options = to_options(vm, defaults);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return command;
}

}  // namespace spmv::grade
