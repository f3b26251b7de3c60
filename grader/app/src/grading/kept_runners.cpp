#include "grading/kept_runners.hpp"

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

bool KeptRunners::keepable(const RowResult& row) {
  if (failing(row.kernel)) return true;
  if (const auto known = known_short(row.case_name, row.kernel)) return *known;
  const auto last = last_short_.find(row.case_name);
  return last != last_short_.end() && last->second;
}

std::optional<bool> KeptRunners::known_short(const std::string& case_name, const std::string& kernel) {
  const auto key = std::make_pair(case_name, kernel);
  if (const auto it = short_rows_.find(key); it != short_rows_.end()) return it->second;
  const auto file = short_file(case_name, kernel);
  if (!file) return std::nullopt;
  std::ifstream in(*file);
  int value = -1;
  if (!(in >> value) || (value != 0 && value != 1)) return std::nullopt;
  return short_rows_[key] = value == 1;
}

std::optional<std::filesystem::path> KeptRunners::short_file(const std::string& case_name,
                                                             const std::string& kernel) const {
  return cache_file(settings_, case_name, "__" + file_name_part(kernel) + ".short");
}

void KeptRunners::note_short(const std::string& case_name, const std::string& kernel, bool is_short) {
  last_short_[case_name] = is_short;
  const auto key = std::make_pair(case_name, kernel);
  if (const auto it = short_rows_.find(key); it != short_rows_.end() && it->second == is_short) return;
  short_rows_[key] = is_short;
  if (const auto file = short_file(case_name, kernel)) {
    write_file_atomically(*file, is_short ? "1\n" : "0\n");
  }
}

bool KeptRunners::takes_kept_runner() {
  if (!kept_) return false;
  return !runners_.shared() || runners_.try_active().held();
}

void KeptRunners::end_kept() {
  if (!kept_) return;
  runners_.retire(std::move(kept_->runner), std::move(kept_->activity));
  kept_.reset();
}

void KeptRunners::note_passed(const std::string& kernel, bool passed) {
  if (passed) {
    kernels_failing_.erase(kernel);
  } else {
    kernels_failing_.insert(kernel);
  }
}

PendingRunner KeptRunners::take() {
  PendingRunner pending;
  pending.loaded = std::move(kept_->runner);
  pending.activity = std::move(kept_->activity);
  pending.log = kept_->log;
  std::error_code error;
  const auto size = std::filesystem::file_size(pending.log, error);
  pending.log_offset = error ? 0 : size;
  kept_.reset();
  return pending;
}

void KeptRunners::keep(std::unique_ptr<Runner> runner, GpuShare::Hold activity, const std::filesystem::path& log) {
  kept_ = KeptRunner{std::move(runner), std::move(activity), log};
}

}  // namespace spmv::grade
