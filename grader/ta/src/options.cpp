#include "options.hpp"

#include <boost/program_options.hpp>

#include <sstream>
#include "spmv/core/generators.hpp"

#ifndef SPMV_CASES_CACHE_DIR_FROM_BIN
#error "SPMV_CASES_CACHE_DIR_FROM_BIN must give the generator cache relative to the executable's folder"
#endif

namespace spmv::ta {
namespace po = boost::program_options;
using cli::get;
using cli::parse_seed;
using cli::require;
namespace {

constexpr std::int64_t kMinSize = 16;
constexpr std::int64_t kMaxSize = 8192;
constexpr std::int64_t kMaxFormatLimitMib = std::int64_t{1} << 24;

const char* const kGeneralUsage = R"(Usage: spmv-cases <command> [options]

Tools for the people who maintain the test cases. Adding a case is dropping
a .mtx/.mtx.gz file into a case folder (and, if it needs a weight, a tag or
a tolerance, a line in that folder's cases.ini), then running validate.
Nothing is recompiled.

Commands:
  validate DIR|FILE...   check every case of case folders, manifests or files
  inspect FILE           statistics and pictures of one matrix
  inspect --spec SPEC    the same for a generated matrix

Examples:
  spmv-cases validate testcases/public
  spmv-cases validate testcases/public /secret/hidden --no-kernels
  spmv-cases inspect testcases/public/graph_hubs_pattern.mtx --format both --output /tmp/hubs
  spmv-cases inspect --spec "powerlaw rows=100000 cols=100000 alpha=2 max_row=5000"

`spmv-cases <command> --help` lists a command's options.

Exit status:
  0   no problem found
  1   some problem found (each printed on stderr with its file, and line where one applies)
  2   usage error: an unknown command, an unknown or malformed option
)";

const char* const kValidateUsage = R"(Usage: spmv-cases validate DIR|FILE... [options]

Loads each case folder (its cases.ini and matrix files), manifest or matrix
file the way spmv-grade does, then for every case: reads or generates its
matrix, prints one table row of statistics (rows, columns, nonzeros, row
length min/mean/max, empty rows, ELL padding ratio = rows * longest row /
nonzeros, HYB ELL width by the default heuristic and the share of entries
its COO part takes), converts it to every format of the reference kernels
and validates each container. A format refused by the conversion memory
limit is "n/a" for its kernels, with the reason under the table. With a GPU,
every reference kernel then runs on the case (y poisoned with NaN, a random
x, the grader's tolerance check against the fp64 golden result): pass or
FAIL per kernel. A case that cannot be read, generated, converted or passed
is a problem; validate reports it and goes on with the next case.

Examples:
  spmv-cases validate testcases/public
      every public case
  spmv-cases validate testcases/public/cases.ini new_matrix.mtx
      a manifest and one more file
  spmv-cases validate hidden/ --format-limit-mib 1024 --no-kernels
      a smaller conversion limit, no kernel runs even with a GPU

Table cells per kernel: ok (its format is built and valid; kernels not
run), pass, FAIL, n/a (format refused), - (the matrix could not be loaded).
)";

const char* const kInspectUsage = R"(Usage: spmv-cases inspect FILE [options]
       spmv-cases inspect --spec SPEC [options]

Prints the statistics validate shows for one matrix (a .mtx or .mtx.gz
file, or a generator spec), which reference kernels apply, and its row
lengths as a histogram of log2 buckets. Then draws two pictures: a spy plot
(each pixel is a cell of the matrix, darker for more entries on a log
scale) and the row-length histogram (bar heights on a log scale), written
as PREFIX-spy.png and PREFIX-rows.png (or .svg). The paths written are
printed.

Examples:
  spmv-cases inspect testcases/public/irregular_rows.mtx
      writes irregular_rows-spy.png and irregular_rows-rows.png in the current folder
  spmv-cases inspect big.mtx.gz --format svg --output pictures/ --size 1024
      writes pictures/big-spy.svg and pictures/big-rows.svg
  spmv-cases inspect --spec "stencil2d nx=256 ny=256 empty_fraction=0.1"
  spmv-cases inspect --spec "banded n=4096 half_bandwidth=8" --format none
      statistics only
)";

// clang-format off
void describe_common(po::options_description& d, const Defaults& defaults) {
  d.add_options()
      ("help,h", "this help")
      ("cache-dir", po::value<std::string>()->value_name("DIR"),
       ("cache of generated matrices, shared with spmv-grade (default: " + defaults.cache_dir.string() + ")")
           .c_str())
      ("format-limit-mib", po::value<std::int64_t>()->value_name("MIB"),
       "largest padded format (ELL, HYB) a conversion may build, in MiB; larger ones are n/a (default: 4096, "
       "as spmv-grade)");
}

void describe_validate(po::options_description& d) {
  d.add_options()
      ("seed", po::value<std::string>()->value_name("N"), "seed of the random x of the kernel runs (default: 1)")
      ("no-kernels", po::bool_switch(), "do not run the reference kernels, even with a GPU");
}

void describe_inspect(po::options_description& d) {
  d.add_options()
      ("spec", po::value<std::string>()->value_name("SPEC"),
       "a generator spec instead of a file, e.g. \"stencil2d nx=512 ny=512 seed=3\"")
      ("output,o", po::value<std::string>()->value_name("PREFIX|DIR/"),
       "write PREFIX-spy.<ext> and PREFIX-rows.<ext>, creating PREFIX's folder if needed; a DIR ending with '/', "
       "or an existing folder, gets NAME-spy.<ext> and NAME-rows.<ext> inside it, NAME being the default prefix "
       "(default: NAME in the current folder: the file name without .mtx[.gz], or the spec's words joined by _)")
      ("format", po::value<std::string>()->value_name("png|svg|both|none"), "picture format (default: png)")
      ("upper-triangle", po::value<std::string>()->value_name("reject|mirror"),
       "a symmetric FILE's entries above the diagonal: refused (default) or mirrored, as the cases.ini key "
       "upper_triangle")
      ("allow-nonfinite", po::bool_switch(),
       "accept NaN and Inf values in FILE, as the cases.ini key allow_nonfinite")
      ("size", po::value<std::int64_t>()->value_name("PIXELS"), "longest side of the pictures (default: 512)");
}
// clang-format on

std::vector<PictureFormat> parse_formats(const std::string& text) {
  if (text == "png") return {PictureFormat::kPng};
  if (text == "svg") return {PictureFormat::kSvg};
  if (text == "both") return {PictureFormat::kPng, PictureFormat::kSvg};
  if (text == "none") return {};
  require(false, "format", "png, svg, both or none", "'" + text + "'");
  return {};
}

CommonOptions to_common(const po::variables_map& vm, const Defaults& defaults) {
  CommonOptions o;
  o.cache_dir = get<std::string>(vm, "cache-dir").value_or(defaults.cache_dir.string());
  if (const auto mib = get<std::int64_t>(vm, "format-limit-mib")) {
    require(*mib >= 1 && *mib <= kMaxFormatLimitMib, "format-limit-mib", "1 to 16777216", *mib);
    o.format_limit_bytes = static_cast<std::uint64_t>(*mib) << 20;
  }
  return o;
}

ValidateOptions to_validate(const po::variables_map& vm, const Defaults& defaults) {
  ValidateOptions o;
  o.common = to_common(vm, defaults);
  for (const auto& source : get<std::vector<std::string>>(vm, "sources").value_or(std::vector<std::string>{})) {
    o.sources.emplace_back(source);
  }
  if (o.sources.empty()) throw UsageError("validate: expected at least one case folder, manifest or matrix file");
  if (const auto seed = get<std::string>(vm, "seed")) o.x_seed = parse_seed(*seed);
  o.run_kernels = !vm["no-kernels"].as<bool>();
  return o;
}

InspectOptions to_inspect(const po::variables_map& vm, const Defaults& defaults) {
  InspectOptions o;
  o.common = to_common(vm, defaults);
  const auto files = get<std::vector<std::string>>(vm, "file").value_or(std::vector<std::string>{});
  o.spec = get<std::string>(vm, "spec");
  if (files.size() > 1) throw UsageError("inspect: expected one FILE, found " + std::to_string(files.size()));
  if (files.size() == 1 && o.spec) throw UsageError("--spec: expected either a FILE or --spec, found both");
  if (files.empty() && !o.spec) throw UsageError("inspect: expected a FILE or --spec SPEC");
  if (files.size() == 1) o.file = files.front();
  if (const auto output = get<std::string>(vm, "output")) {
    require(!output->empty(), "output", "a path prefix or a folder", "an empty string");
    o.output = *output;
  }
  if (const auto formats = get<std::string>(vm, "format")) o.formats = parse_formats(*formats);
  if (const auto upper = get<std::string>(vm, "upper-triangle")) {
    require(*upper == "reject" || *upper == "mirror", "upper-triangle", "reject or mirror", *upper);
    o.read_options.upper_triangle = *upper == "mirror" ? UpperTriangle::kMirror : UpperTriangle::kReject;
  }
  o.read_options.allow_nonfinite = vm.count("allow-nonfinite") != 0 && vm["allow-nonfinite"].as<bool>();
  if (o.spec && (vm.count("upper-triangle") != 0 || o.read_options.allow_nonfinite)) {
    throw UsageError(std::string(vm.count("upper-triangle") != 0 ? "--upper-triangle" : "--allow-nonfinite") +
                     ": applies to a FILE, not to --spec");
  }
  if (const auto size = get<std::int64_t>(vm, "size")) {
    require(*size >= kMinSize && *size <= kMaxSize, "size", "16 to 8192 pixels", *size);
    o.size = static_cast<std::uint32_t>(*size);
  }
  return o;
}

// The positional arguments are a hidden option of this name, so the help
// lists only real options.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& visible,
                        const char* positional_name) {
  po::options_description hidden;
  hidden.add_options()(positional_name, po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add(positional_name, -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

std::string help_text(const char* usage, const po::options_description& options) {
  std::ostringstream text;
  text << usage << '\n' << options;
  return text.str();
}

// Listed from the generators themselves, so the help cannot fall behind them.
std::string generator_help() {
  std::ostringstream text;
  text << "\nGenerator specs: \"<kind> key=value ...\"; every kind also takes seed (default 1)\n"
       << "and empty_fraction (default 0: the share of rows emptied afterwards).\n";
  for (const auto& kind : gen::generator_kinds()) text << "  " << kind << '\n';
  return text.str();
}

}  // namespace

Defaults defaults_for_executable(const std::filesystem::path& executable) {
  Defaults d;
  d.cache_dir = (executable.parent_path() / SPMV_CASES_CACHE_DIR_FROM_BIN).lexically_normal();
  return d;
}

Command parse_command_line(int argc, const char* const* argv, const Defaults& defaults) {
  Command command;
  const std::string name = argc > 1 ? argv[1] : "";
  if (name.empty() || name == "--help" || name == "-h" || name == "help") {
    if (name.empty()) throw UsageError("expected a command: validate or inspect");
    command.help_text = kGeneralUsage;
    return command;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  po::options_description options("Options");
  describe_common(options, defaults);
  if (name == "validate") {
    describe_validate(options);
    const auto vm = parse(args, options, "sources");
    if (vm.count("help") != 0) {
      command.help_text = help_text(kValidateUsage, options);
      return command;
    }
    command.subcommand = Subcommand::kValidate;
    command.validate = to_validate(vm, defaults);
  } else if (name == "inspect") {
    describe_inspect(options);
    const auto vm = parse(args, options, "file");
    if (vm.count("help") != 0) {
      command.help_text = help_text(kInspectUsage, options) + generator_help();
      return command;
    }
    command.subcommand = Subcommand::kInspect;
    command.inspect = to_inspect(vm, defaults);
  } else {
    throw UsageError("unknown command '" + name + "' (expected validate or inspect)");
  }
  return command;
}

}  // namespace spmv::ta
