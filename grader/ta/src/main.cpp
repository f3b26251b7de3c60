// spmv-cases: checks and pictures for the people who maintain test cases.
// See --help, and commands.hpp for the subcommands.
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "options.hpp"
#include "spmv/cli/command_line.hpp"

int main(int argc, char** argv) {
  using namespace spmv::ta;
  const std::string command_name = argc > 1 ? argv[1] : "";
  const bool known_command = command_name == "validate" || command_name == "inspect";
  try {
    const Command command =
        parse_command_line(argc, argv, defaults_for_executable(spmv::cli::this_executable(argv[0])));
    switch (command.subcommand) {
      case Subcommand::kHelp: std::cout << command.help_text; return kExitOk;
      case Subcommand::kValidate: return run_validate(command.validate, std::cout, std::cerr);
      case Subcommand::kInspect: return run_inspect(command.inspect, std::cout, std::cerr);
    }
  } catch (const UsageError& e) {
    std::cerr << "spmv-cases: " << e.what() << " (see spmv-cases " << (known_command ? command_name + " " : "")
              << "--help)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "spmv-cases: error: " << e.what() << '\n';
    return kExitProblems;
  }
  return kExitUsage;
}
