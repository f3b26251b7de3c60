// spmv-grade: grades a kernel plugin against the reference plugin. See
// --help, and grading/modes.hpp for the modes.
#include <filesystem>
#include <iostream>

#include "cli/ini_files.hpp"
#include "cli/options.hpp"
#include "grading/modes.hpp"
#include "model/exit_codes.hpp"
#include "spmv/cli/command_line.hpp"

int main(int argc, char** argv) {
  using namespace spmv::grade;
  try {
    const Defaults defaults = defaults_for_executable(spmv::cli::this_executable(argv[0]));
    const ParsedCommand command = parse_command_line(argc, argv, defaults);
    if (command.help) {
      std::cout << command.help_text;
      return kExitAllPassed;
    }
    if (!command.show_ini.empty()) return show_ini(command.show_ini[0], command.show_ini[1], command.config_options);
    if (command.options.aggregate) return run_aggregate(command.options);
    if (command.options.show_row) return run_show_row(command.options);
    return run_grading(command.options, defaults);
  } catch (const UsageError& e) {
    std::cerr << "spmv-grade: " << e.what() << " (see spmv-grade --help)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "spmv-grade: error: " << e.what() << '\n';
    return kExitSetup;
  }
}
