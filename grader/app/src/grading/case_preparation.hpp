// The cases of a grading prepared for their rows: each read, converted into
// the formats its rows use, its golden results computed and its runners'
// matrix images written, once. On the GPU the cases ahead are prepared on
// other cores while the grader does something else: the GPU's probe before
// the first row, the rows of the cases before.
#pragma once

#include <cstddef>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cases/case_data.hpp"
#include "grading/setup.hpp"
#include "model/row.hpp"

namespace spmv::grade {

// A case's data for its rows: read and converted once, or why it could not be.
struct CaseState {
  std::optional<PreparedCase> prepared;
  std::string error;  // the PrepareError's message
};

class CasePreparation {
 public:
  // The cases of `setup` for `rows` but those `done` already. `ahead`:
  // cases are prepared ahead by threads of their own (a GPU grading);
  // else each at its turn (host-memory plugins run on the CPU, and their
  // timings would share it).
  CasePreparation(const Setup& setup, PrepareOptions options, const std::vector<RowResult>& rows,
                  const std::set<std::size_t>& done, bool ahead);
  ~CasePreparation();
  CasePreparation(const CasePreparation&) = delete;
  CasePreparation& operator=(const CasePreparation&) = delete;

  // Case `c`'s rows still to grade, in order.
  [[nodiscard]] const std::vector<std::size_t>& rows_of(std::size_t c) const { return case_rows_[c]; }
  // Whether any row is left to grade.
  [[nodiscard]] bool any() const;
  // Case `c` and those after it begin to be prepared (as many at once as
  // half the cores), unless prepared or under way already.
  void ahead(std::size_t c);
  // Case `c`, prepared (waited for, the wait counted).
  CaseState& state(std::size_t c);
  // The prepared case of that name (its rows being graded).
  PreparedCase& prepared(const std::string& case_name);
  // Case `c` is no longer needed: its memory goes.
  void forget(std::size_t c) { cases_.erase(c); }
  // Seconds spent waiting for cases.
  [[nodiscard]] double waited_s() const { return waited_s_; }

 private:
  [[nodiscard]] CaseState prepare(std::size_t c) const;

  const Setup& setup_;
  PrepareOptions options_;
  bool ahead_;
  std::vector<std::vector<std::size_t>> case_rows_;          // each case's rows still to grade, in order
  std::vector<std::set<spmv_format>> formats_;               // the formats each case's rows use
  std::map<std::size_t, CaseState> cases_;                   // prepared cases still needed
  std::map<std::size_t, std::future<CaseState>> preparing_;  // cases being prepared by threads of their own
  double waited_s_ = 0;
};

}  // namespace spmv::grade
