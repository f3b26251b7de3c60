// cuSPARSE's time on each case, measured once (context only: it earns
// nothing) and kept for the other gradings of the same cases: in CTest mode
// a case's rows may be graded by several runs (one per GPU, and a kernel's
// own run for rows left over), and a class's gradings on one GPU share
// --cusparse-cache (tools/grade-class).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cases/case_data.hpp"
#include "grading/grading.hpp"

namespace spmv::grade {

// The cache file of `case_name` ending in `suffix`, if there is a cache.
std::optional<std::filesystem::path> cache_file(const RowLoopSettings& settings, const std::string& case_name,
                                                const std::string& suffix);

// cuSPARSE's time on `prepared`'s case, from the cache file (if the case
// has none yet), and into it.
void read_cusparse_cache(const RowLoopSettings& settings, PreparedCase& prepared);
void write_cusparse_cache(const RowLoopSettings& settings, const PreparedCase& prepared);

}  // namespace spmv::grade
