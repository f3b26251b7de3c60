// spmv-grade's command line, then an optional config file of the same
// options (read by the one INI reader, cli/ini_files.hpp), read into Options
// (model/options.hpp); a value on the command line wins.
#pragma once

#include <boost/program_options.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/exit_codes.hpp"
#include "model/options.hpp"

namespace spmv::grade {

// Found relative to the executable (<build>/bin/spmv-grade): plugins in
// <build>/plugins, the generator cache in <build>/cache; the public cases
// of the source tree.
Defaults defaults_for_executable(const std::filesystem::path& executable);

struct ParsedCommand {
  bool help = false;
  std::string help_text;
  std::vector<std::string> show_ini;                           // --show-ini TYPE FILE
  boost::program_options::options_description config_options;  // the keys of a --config file
  Options options;
};

// Throws UsageError. argv[0] is skipped.
ParsedCommand parse_command_line(int argc, const char* const* argv, const Defaults& defaults);

}  // namespace spmv::grade
