// A row's bursts, as its phases time them: the reference's before the
// submission's runner loads the plugin and after that runner has ended, and
// the submission's, each with its calibration bursts (links without the
// launch); and the row's times made from them (finish_timing). The
// arithmetic is burst_timing.hpp's.
#pragma once

#include <vector>

#include "judging/row_record.hpp"
#include "rows/burst_timing.hpp"

namespace spmv::grade {

// One side's bursts by the grader's clock (and the runner's own events, a
// diagnostic), with its calibration bursts (links without the launch).
struct Side {
  std::vector<double> bursts_ms, empty_ms, event_ms, empty_event_ms;
  void add(const auto& full, const auto& empty) {
    bursts_ms.push_back(full.ms);
    event_ms.push_back(full.event_ms);
    empty_ms.push_back(empty.ms);
    empty_event_ms.push_back(empty.event_ms);
  }
  void append(const Side& other);
};

struct RowBursts {
  Side reference_before, reference_after, submission;
  int links = kPilotLinks;  // launches a burst (choose_links)

  // Every calibration burst so far, of both runners (a short row has the
  // reference runner's only), by the grader's clock (`field`: empty_ms) or
  // the runners' events (empty_event_ms): fastest_two of them is the
  // runners' own cost that both sides subtract (calibrate_submission_runner).
  [[nodiscard]] std::vector<double> calibration(std::vector<double> Side::*field = &Side::empty_ms) const;
};

// The row's times, from the three sets of bursts, into `timing`: `short_row`
// as the reference found it (ReferenceWindows::short_row), and the link of
// the pilot if it made the row short.
void finish_timing(TimingRecord& timing, const RowBursts& bursts, bool short_row, bool short_by_pilot,
                   double pilot_link_ms);

}  // namespace spmv::grade
