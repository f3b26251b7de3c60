#include "grading/case_preparation.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

namespace spmv::grade {
namespace {

// Cases prepared by other threads at once, at most (GPU gradings only): a
// group's cases are all needed before its first kernel is graded. Half the
// cores' worth (each case's parts on threads of their own besides): the
// cases ahead are all in memory at once, and the suite's are of 20 M to
// 33 M entries each.
std::size_t cases_prepared_ahead() { return std::max(2U, std::thread::hardware_concurrency() / 2); }

}  // namespace

CasePreparation::CasePreparation(const Setup& setup, PrepareOptions options, const std::vector<RowResult>& rows,
                                 const std::set<std::size_t>& done, bool ahead)
    : setup_(setup), options_(std::move(options)), ahead_(ahead) {
  for (const auto& entry : setup_.cases) {
    std::vector<std::size_t> indices;
    std::set<spmv_format> formats;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].case_name != entry.test_case.name || done.count(i) != 0) continue;
      indices.push_back(i);
      formats.insert(setup_.reference.find(rows[i].kernel)->format);
    }
    case_rows_.push_back(std::move(indices));
    formats_.push_back(std::move(formats));
  }
}

// A case being prepared is waited for: its thread reads this object.
CasePreparation::~CasePreparation() {
  for (auto& [c, preparing] : preparing_) {
    if (preparing.valid()) preparing.wait();
  }
}

bool CasePreparation::any() const {
  return std::any_of(case_rows_.begin(), case_rows_.end(), [](const auto& indices) { return !indices.empty(); });
}

CaseState CasePreparation::prepare(std::size_t c) const {
  CaseState state;
  try {
    state.prepared = prepare_case(setup_.cases[c].test_case, formats_[c], options_);
    // The runners' matrix images too, here rather than at the case's
    // first row of each format: a large case's take the grader hundreds
    // of milliseconds (on the H100, the reference's set-up of power_law's
    // first row took 312 ms, of a row whose format's image was made 110 ms).
    // One that cannot be made is tried again at its row, which says why.
    try {
      for (const spmv_format format : formats_[c]) {
        if (state.prepared->refused.count(format) == 0) matrix_image(*state.prepared, format);
      }
      matrix_image(*state.prepared, SPMV_FORMAT_CSR);
      shape_image(*state.prepared);
    } catch (const std::exception&) {
    }
  } catch (const PrepareError& e) {
    state.error = e.what();
  }
  return state;
}

void CasePreparation::ahead(std::size_t c) {
  if (!ahead_) return;
  const std::size_t limit = cases_prepared_ahead();
  for (std::size_t next = c; next < case_rows_.size() && next < c + limit; ++next) {
    if (case_rows_[next].empty() || cases_.count(next) != 0 || preparing_.count(next) != 0) continue;
    preparing_.emplace(next, std::async(std::launch::async, [this, next] { return prepare(next); }));
  }
}

CaseState& CasePreparation::state(std::size_t c) {
  if (const auto it = cases_.find(c); it != cases_.end()) return it->second;
  const auto from = std::chrono::steady_clock::now();
  struct Waited {
    double& total;
    std::chrono::steady_clock::time_point from;
    ~Waited() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count(); }
  } waited{waited_s_, from};
  if (const auto it = preparing_.find(c); it != preparing_.end()) {
    std::future<CaseState> ready = std::move(it->second);
    preparing_.erase(it);
    return cases_.emplace(c, ready.get()).first->second;
  }
  return cases_.emplace(c, prepare(c)).first->second;
}

PreparedCase& CasePreparation::prepared(const std::string& case_name) {
  for (auto& [c, state] : cases_) {
    if (setup_.cases[c].test_case.name == case_name && state.prepared) return *state.prepared;
  }
  throw std::logic_error("no prepared case for " + case_name);
}

}  // namespace spmv::grade
