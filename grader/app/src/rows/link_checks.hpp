// The checks of the timed launches: after each of the submission's bursts,
// links chosen at random are kept on its runner's side (check_links: on
// the GPU, a copy there), copied out once its bursts are done
// (copy_out_kept), and once the row's timed stretch is over each is checked
// in full against its golden product and the burst's digest (run_checks),
// a few at a time on other threads at the lowest CPU priority. A wrong one
// makes the row's timed result wrong (TimingRecord::wrong_timed_launch).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "rows/row_plan.hpp"
#include "rows/submission_session.hpp"

namespace spmv::grade {

class LinkChecks {
 public:
  explicit LinkChecks(RowState& row) : row_(row) {}
  LinkChecks(const LinkChecks&) = delete;
  LinkChecks& operator=(const LinkChecks&) = delete;

  // The runner's chain keeps `pairs` pairs of links (kChain's `keep`).
  void chain_keeps(int pairs) { keep_ = pairs; }
  // `checks` links of the last burst of `session` (distinct, at random),
  // kept by the runner, copied out and checked once the bursts are done
  // (copied out now those kept before, when no pair is left); false if a
  // request failed.
  bool check_links(SubmissionSession& session, std::uint64_t seed,
                   const std::shared_ptr<std::vector<std::uint64_t>>& digests, int checks);
  // Copies every kept link out of the runner, its check to come; false if a
  // copy failed.
  bool copy_out_kept(SubmissionSession& session);
  // The checks of the links copied out (their golden products),
  // max_pending_checks() at a time (link_checks.cpp); false if a launch was wrong.
  bool run_checks();
  // Waits for every pending check; false if a launch was wrong.
  bool collect_checks();

 private:
  bool collect_one_check();

  struct Kept {
    int link = 0;
    std::uint64_t seed = 0;
    std::shared_ptr<std::vector<std::uint64_t>> digests;
  };

  RowState& row_;
  int keep_ = 0;            // pairs the runner's chain keeps
  std::vector<Kept> kept_;  // pair k of the runner: kept_[k]
  std::deque<std::future<std::string>> pending_checks_;
  std::vector<std::function<std::string()>> deferred_checks_;  // copies taken, golden products to come
};

}  // namespace spmv::grade
