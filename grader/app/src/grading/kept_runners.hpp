// What the row loop carries from row to row, and from one grading to
// another of a class on the same GPU: the runner kept loaded for the next
// keepable row, the kernels whose last row failed (their next row is tried
// first), which rows are short (a prediction: the row's own pilot decides),
// and cuSPARSE's time on each case.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "grading/grading.hpp"
#include "grading/grading_runners.hpp"
#include "model/row.hpp"
#include "rows/row_grading.hpp"

namespace spmv::grade {

// In CTest mode a case's rows may be graded by several runs (one per GPU,
// and a kernel's own run for rows left over): what the first measured of a
// case, cuSPARSE's time (context only: it earns nothing) and which of its
// rows are short (a prediction, KeptRunners::known_short), is kept beside the
// journals for the others. So is a class's on one GPU, in --cusparse-cache
// (tools/grade-class). The file of `case_name` ending in `suffix`.
std::optional<std::filesystem::path> cache_file(const RowLoopSettings& settings, const std::string& case_name,
                                                const std::string& suffix);

// cuSPARSE's time on `prepared`'s case, from the cache file (if the case
// has none yet), and into it.
void read_cusparse_cache(const RowLoopSettings& settings, PreparedCase& prepared);
void write_cusparse_cache(const RowLoopSettings& settings, const PreparedCase& prepared);

class KeptRunners {
 public:
  KeptRunners(const RowLoopSettings& settings, GradingRunners& runners) : settings_(settings), runners_(runners) {}
  KeptRunners(const KeptRunners&) = delete;
  KeptRunners& operator=(const KeptRunners&) = delete;

  // Whether a row would take a runner kept from the row before (and hand
  // its own on): its kernel failed its last row (tried first; a
  // stub's rows), or it is likely short (correctness only): an earlier
  // grading found it so, or else the case's last row timed here was.
  bool keepable(const RowResult& row);
  // Whether the row of `kernel` on `case_name` is short (correctness only),
  // as this grading or another of the class on the same GPU found it
  // (the cache folder, as cuSPARSE's time); nullopt if none has graded it.
  // A prediction only: the row's own pilot decides.
  std::optional<bool> known_short(const std::string& case_name, const std::string& kernel);
  void note_short(const std::string& case_name, const std::string& kernel, bool is_short);
  // Whether `kernel`'s last row graded did not pass: its next row is tried
  // first (RowPlan::tried_first).
  [[nodiscard]] bool failing(const std::string& kernel) const { return kernels_failing_.count(kernel) != 0; }
  void note_passed(const std::string& kernel, bool passed);

  // Whether this row takes the kept runner: there is one, and (with the
  // GPU shared) the others' work is not waiting for this grading's to end:
  // a kept runner is work on the GPU for as long as it lives.
  bool takes_kept_runner();
  // The kept runner, for the row that takes it: loaded, with its hold on
  // the GPU's share, its output going on in its log.
  PendingRunner take();
  // A row's runner handed on (RowRecord::kept), writing into `log`.
  void keep(std::unique_ptr<Runner> runner, GpuShare::Hold activity, const std::filesystem::path& log);
  // The kept runner ended (in the background, its hold with it).
  void end_kept();

 private:
  std::optional<std::filesystem::path> short_file(const std::string& case_name, const std::string& kernel) const;

  const RowLoopSettings& settings_;
  GradingRunners& runners_;
  // Kernels whose last row graded did not pass: their next row is tried
  // first (RowPlan::tried_first).
  std::set<std::string> kernels_failing_;
  // The runner of the last row that passed short or whose kernel is a stub,
  // kept loaded for the next keepable row, of the same case or the next.
  struct KeptRunner {
    std::unique_ptr<Runner> runner;
    GpuShare::Hold activity;
    std::filesystem::path log;  // the row's that started it: the runner writes there
  };
  std::optional<KeptRunner> kept_;
  // Rows found short or not (known_short), by case and kernel.
  std::map<std::pair<std::string, std::string>, bool> short_rows_;
  std::map<std::string, bool> last_short_;  // by case: its last row timed here short or not
};

}  // namespace spmv::grade
