// The two subcommands of spmv-cases. Each prints its report to `out` and
// returns the exit status (options.hpp).
#pragma once

#include <ostream>

#include "options.hpp"

namespace spmv::ta {

int run_validate(const ValidateOptions& options, std::ostream& out);
int run_inspect(const InspectOptions& options, std::ostream& out);

}  // namespace spmv::ta
