// The reference's side of a row, in the reference runner the grading keeps:
// the row's matrix set up, the links per burst chosen from its pilot
// bursts, the untimed warm-up, and its windows of timed bursts, each burst
// beside a calibration burst (links without the launch): before the row's
// submission runner loads its plugin and after that runner has ended, so
// that nothing of any submission is alive while the reference is timed.
// Also cuSPARSE's time on the case, as context. A step that fails is
// retried once on a fresh reference runner; then the row is the grader's
// failure (RowRecord::grader_failure).
#pragma once

#include <optional>
#include <span>

#include "rows/reference_memo.hpp"
#include "rows/row_plan.hpp"
#include "spmv/runner/protocol.hpp"

namespace spmv::grade {

class ReferenceWindows {
 public:
  explicit ReferenceWindows(RowState& row);
  ReferenceWindows(const ReferenceWindows&) = delete;
  ReferenceWindows& operator=(const ReferenceWindows&) = delete;

  // cuSPARSE's time on the case (context only); false if the reference
  // runner failed.
  bool measure_cusparse();
  // The row's matrix set up in the reference runner.
  bool set_up();
  // The row's matrix and its bursts of the links chosen set up again, after
  // other rows' (a kernel's rows are timed in turn: kernel_grading.hpp).
  bool set_up_again() { return set_up() && reference_chain(row_.bursts.links); }
  // Links per burst, from the reference's pilot bursts.
  bool choose_links();
  // With the GPU to the row, the links chosen looked at again.
  bool links_again_alone();
  // Untimed bursts, with and without the launch.
  bool warmup();
  // The reference's timed windows: before the submission's bursts, and
  // after them (compared with the window before).
  bool time_before() { return time_reference(row_.bursts.reference_before, nullptr); }
  // After a kept window (use_kept), the window after is timed on its own and
  // compared with it: further than ReferenceMemo::kSharedAgree apart, the
  // kept window is set aside and a second window timed in its place.
  bool time_after();

  // A window an earlier grading kept (reference_memo.hpp) as the row's
  // window before: its links, its pilot's finding and its bursts.
  void use_kept(const KeptWindow& kept);
  [[nodiscard]] bool uses_kept() const { return kept_.has_value(); }
  // The row's window for the gradings after: the one after (a row scored by
  // speed), else the one before.
  [[nodiscard]] KeptWindow to_keep() const;

  // A row too short to score by speed (the policy's min_reference_us), by
  // its pilot or else by the reference's bursts before: its times are
  // reported, not refined.
  [[nodiscard]] bool short_row() const;
  [[nodiscard]] bool short_by_pilot() const { return short_by_pilot_; }
  [[nodiscard]] double pilot_link_ms() const { return pilot_link_ms_; }

 private:
  struct Burst {
    double ms = 0;        // the grader's clock around the round trip
    double event_ms = 0;  // the runner's own events around the graph (its word)
  };
  std::optional<runner::Reply> reference_step(const runner::Request& request, std::span<const int> fds = {},
                                              bool redo_setup = true);
  bool reference_ready_again();
  [[nodiscard]] bool links_to_check() const;
  [[nodiscard]] std::optional<int> more_links(double link_ms) const;
  [[nodiscard]] int links_for(double link_ms) const;
  std::optional<double> reference_link_ms(int links);
  bool reference_chain(int links);
  std::optional<Burst> reference_burst(bool empty);
  bool time_reference(Side& side, const Side* earlier);

  RowState& row_;
  ResultMemory reference_results_;
  bool reference_set_up_ = false;
  double pilot_link_ms_ = 0;        // a link of the reference's pilot bursts (choose_links)
  bool short_by_pilot_ = false;     // under min_reference_us by the pilot already
  bool chained_ = false;            // the reference runner holds the row's bursts (kChain of links)
  std::optional<KeptWindow> kept_;  // the window before, kept by an earlier grading
};

}  // namespace spmv::grade
