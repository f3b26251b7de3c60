#include "grading/cusparse_cache.hpp"

#include <fstream>
#include <sstream>

#include "grading/setup.hpp"
#include "spmv/core/atomic_file.hpp"

namespace spmv::grade {

std::optional<std::filesystem::path> cache_file(const RowLoopSettings& settings, const std::string& case_name,
                                                const std::string& suffix) {
  const auto& folder = settings.cusparse_cache ? settings.cusparse_cache : settings.journal;
  if (!folder) return std::nullopt;
  return *folder / (file_name_part(case_name) + suffix);
}

void read_cusparse_cache(const RowLoopSettings& settings, PreparedCase& prepared) {
  const auto file = cache_file(settings, prepared.test_case.name, ".cusparse-ms");
  if (!file || prepared.cusparse_ms) return;
  std::ifstream in(*file);
  double ms = 0;
  if (in >> ms && ms > 0) prepared.cusparse_ms = ms;
}

void write_cusparse_cache(const RowLoopSettings& settings, const PreparedCase& prepared) {
  const auto file = cache_file(settings, prepared.test_case.name, ".cusparse-ms");
  if (!file || !prepared.cusparse_ms) return;
  std::ostringstream text;
  text.precision(17);
  text << *prepared.cusparse_ms << '\n';
  write_file_atomically(*file, text.str());
}

}  // namespace spmv::grade
