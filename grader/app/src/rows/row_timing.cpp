#include "rows/row_timing.hpp"

#include <tuple>

namespace spmv::grade {

void Side::append(const Side& other) {
  const auto extend = [](std::vector<double>& mine, const std::vector<double>& theirs) {
    mine.insert(mine.end(), theirs.begin(), theirs.end());
  };
  extend(bursts_ms, other.bursts_ms);
  extend(empty_ms, other.empty_ms);
  extend(event_ms, other.event_ms);
  extend(empty_event_ms, other.empty_event_ms);
}

std::vector<double> RowBursts::calibration(std::vector<double> Side::*field) const {
  std::vector<double> all;
  for (const Side* side : {&reference_before, &reference_after, &submission}) {
    all.insert(all.end(), (side->*field).begin(), (side->*field).end());
  }
  return all;
}

void finish_timing(TimingRecord& timing, const RowBursts& bursts, bool short_row, bool short_by_pilot,
                   double pilot_link_ms) {
  Side reference = bursts.reference_before;
  reference.append(bursts.reference_after);
  timing.timed = true;
  // Both sides less the same calibration: the runners' own kernels and
  // round trip, timed while no submission code was in either runner.
  const std::vector<double> empty = bursts.calibration();
  const std::vector<double> empty_events = bursts.calibration(&Side::empty_event_ms);
  timing.submission_ms = per_launch_ms(bursts.submission.bursts_ms, empty, bursts.links);
  timing.reference_ms =
      windows_per_launch_ms({bursts.reference_before.bursts_ms, bursts.reference_after.bursts_ms}, empty, bursts.links);
  timing.submission_samples = static_cast<int>(bursts.submission.bursts_ms.size());
  timing.reference_samples = static_cast<int>(reference.bursts_ms.size());
  // The events check's pair (a start or an ending runner beside a short
  // row's bursts, which do not hold the GPU quiet, lengthened two of four
  // by the clock alone: the medians were 3.0 ms against 5.0 ms, and an
  // honest kernel was flagged).
  std::tie(timing.submission_burst_ms, timing.submission_event_burst_ms) =
      closest_events(bursts.submission.bursts_ms, bursts.submission.event_ms);
  timing.parts_ms["submission_burst"] = median_of(bursts.submission.bursts_ms);
  timing.parts_ms["submission_event_burst"] = median_of(bursts.submission.event_ms);
  timing.parts_ms["reference_burst"] = median_of(reference.bursts_ms);
  timing.parts_ms["reference_empty_burst"] = median_of(reference.empty_ms);
  timing.parts_ms["submission_event"] = per_launch_ms(bursts.submission.event_ms, empty_events, bursts.links);
  // The reference's events by the same estimate as its time (the mean of
  // its windows): the fastest two pooled would set the faster window's
  // events beside both windows' clock (on the largest cases the bursts
  // after ran up to 7% slower than those before, on the H100).
  timing.parts_ms["reference_event"] = windows_per_launch_ms(
      {bursts.reference_before.event_ms, bursts.reference_after.event_ms}, empty_events, bursts.links);
  timing.parts_ms["reference_before"] = per_launch_ms(bursts.reference_before.bursts_ms, empty, bursts.links);
  if (!bursts.reference_after.bursts_ms.empty()) {
    timing.parts_ms["reference_after"] = per_launch_ms(bursts.reference_after.bursts_ms, empty, bursts.links);
  }
  timing.parts_ms["submission_noise"] = burst_noise(bursts.submission.bursts_ms, empty);
  timing.parts_ms["reference_noise"] = burst_noise(reference.bursts_ms, reference.empty_ms);
  timing.bursts_ms["submission"] = bursts.submission.bursts_ms;
  timing.bursts_ms["reference_before"] = bursts.reference_before.bursts_ms;
  timing.bursts_ms["reference_after"] = bursts.reference_after.bursts_ms;
  timing.bursts_ms["calibration"] = reference.empty_ms;
  if (!bursts.submission.empty_ms.empty()) timing.bursts_ms["submission_calibration"] = bursts.submission.empty_ms;
  timing.links = bursts.links;
  timing.short_row = short_row;
  if (short_by_pilot) timing.parts_ms["reference_pilot_link"] = pilot_link_ms;
}

}  // namespace spmv::grade
