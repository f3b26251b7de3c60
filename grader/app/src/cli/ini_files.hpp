// The project's INI files as spmv-grade reads them, for tools that must not
// read them another way: `spmv-grade --show-ini TYPE FILE` checks FILE as a
// file of TYPE (host, cases, policy or config) with the grader's one reader
// (spmv/core/ini.hpp) and prints what it holds as JSON; host.ini's keys are
// declared here (kHostKeys), the others' where the grader reads them.
#pragma once

#include <boost/program_options.hpp>

#include <filesystem>
#include <string>

#include "spmv/core/ini.hpp"

namespace spmv::grade {

// --config FILE read by the one reader and checked against `allowed` (the
// options of --help without --): keys before any section, a key once unless
// its option takes a list. Returned as Boost.Program_options' parse of the
// same words on a command line. Throws UsageError in ini::Error's form.
boost::program_options::parsed_options read_config_file(const std::filesystem::path& file,
                                                        const boost::program_options::options_description& allowed);

// Prints FILE's parsed JSON on stdout; a file that is not a valid TYPE
// throws UsageError naming the file, the line and the key.
int show_ini(const std::string& type, const std::filesystem::path& file,
             const boost::program_options::options_description& config_options);

}  // namespace spmv::grade
