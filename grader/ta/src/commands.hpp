// The two subcommands of spmv-cases. Each prints its report to `out`, the
// problems it finds to `err`, and returns the exit status (options.hpp).
#pragma once

#include <ostream>

#include "options.hpp"

namespace spmv::ta {

int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err);
int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err);

}  // namespace spmv::ta
