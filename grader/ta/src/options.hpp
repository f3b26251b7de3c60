// The command line of spmv-cases: a subcommand (validate, inspect) and its
// options, parsed with Boost.Program_options. See usage texts in options.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spmv/cli/command_line.hpp"
#include "spmv/core/matrix_market.hpp"

namespace spmv::ta {

enum ExitCode : int {
  kExitOk = 0,        // every case (or the matrix) is fine
  kExitProblems = 1,  // some problem was found and reported
  kExitUsage = 2,     // bad command line
};

// A bad command line; what() is one line naming the option.
using cli::UsageError;

struct Defaults {
  std::filesystem::path cache_dir;  // the build's generator cache, shared with spmv-grade
};

Defaults defaults_for_executable(const std::filesystem::path& executable);

struct CommonOptions {
  std::filesystem::path cache_dir;
  std::uint64_t format_limit_bytes = std::uint64_t{4} << 30;
};

struct ValidateOptions {
  CommonOptions common;
  std::vector<std::filesystem::path> sources;  // case folders, manifests, matrix files
  std::uint64_t x_seed = 1;
  bool run_kernels = true;  // when a GPU is present
};

enum class PictureFormat { kPng, kSvg };

struct InspectOptions {
  CommonOptions common;
  std::optional<std::filesystem::path> file;
  std::optional<std::string> spec;
  // A prefix, or a folder (ends with '/' or exists) to write in under the
  // default prefix; default: the default prefix (from the file name or
  // spec) in the current folder.
  std::optional<std::filesystem::path> output;
  std::vector<PictureFormat> formats{PictureFormat::kPng};
  MatrixMarketOptions read_options;  // as a case's upper_triangle and allow_nonfinite
  std::uint32_t size = 512;
};

enum class Subcommand { kHelp, kValidate, kInspect };

struct Command {
  Subcommand subcommand = Subcommand::kHelp;
  std::string help_text;  // for kHelp
  ValidateOptions validate;
  InspectOptions inspect;
};

// Throws UsageError for anything malformed.
Command parse_command_line(int argc, const char* const* argv, const Defaults& defaults);

}  // namespace spmv::ta
