#include "rows/reference_windows.hpp"

#include <algorithm>

#include "rows/burst_timing.hpp"

namespace spmv::grade {

using runner::Command;
using runner::Reply;
using runner::ReplyKind;
using runner::Request;

ReferenceWindows::ReferenceWindows(RowState& row)
    : row_(row), reference_results_(runner::result_area_bytes(row.prepared.csr.rows)) {}

// A step of the reference runner (the grader's side): retried once on a
// fresh reference runner, then the row is the grader's failure.
std::optional<Reply> ReferenceWindows::reference_step(const Request& request, std::span<const int> fds,
                                                      bool redo_setup) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt > 0) {
      row_.factory.settle();
      row_.factory.restart_reference();
      if (redo_setup && !reference_ready_again()) break;
    }
    Runner& reference = row_.factory.reference();
    const auto reply = reference.call(request, after_seconds(std::max(row_.plan.timeout_s, kStartupTimeoutS)), fds);
    if (reply && reply->kind == ReplyKind::kOk) return reply;
    const std::string why = reply ? runner::read_text(reply->message) : "it " + how_it_ended(reference.end());
    row_.record.grader_failure = "the reference runner failed: " + why;
  }
  return std::nullopt;
}

bool ReferenceWindows::reference_ready_again() {
  if (!reference_set_up_) return true;
  Runner& reference = row_.factory.reference();
  const auto reply =
      reference.call(row_.setup_request(), after_seconds(kStartupTimeoutS), row_.setup_fds(reference_results_));
  if (!reply || reply->kind != ReplyKind::kOk) return false;
  if (!chained_) return true;
  // Its bursts too, as the row had them.
  Request chain = make_request(Command::kChain);
  chain.links = row_.bursts.links;
  const auto chained = reference.call(chain, after_seconds(kStartupTimeoutS));
  return chained && chained->kind == ReplyKind::kOk;
}

bool ReferenceWindows::measure_cusparse() {
  Request setup = make_request(Command::kSetup);
  setup.format = SPMV_FORMAT_CSR;
  const std::array<int, 2> fds{matrix_image(row_.prepared, SPMV_FORMAT_CSR), reference_results_.fd()};
  if (!reference_step(setup, fds, false)) return false;
  row_.factory.settle();  // the previous row's runner is gone before anything is timed
  // Timed: the GPU the grading's alone (then active again, unless the row
  // is alone throughout).
  const bool was_alone = row_.alone.held();
  row_.be_alone();
  Request time = make_request(Command::kCusparse);
  time.seed = row_.random();
  time.cusparse_runs = row_.plan.timing.min_runs;
  time.cusparse_min_ms = row_.plan.timing.min_time_ms / 2;
  // Context only: cuSPARSE refusing a matrix costs the row nothing.
  const auto reply =
      row_.factory.reference().call(time, after_seconds(std::max(row_.plan.timeout_s, kStartupTimeoutS)));
  if (reply && reply->kind == ReplyKind::kOk && reply->ms > 0) row_.record.cusparse_ms = reply->ms;
  if (!was_alone) row_.be_active();
  return true;
}

bool ReferenceWindows::set_up() {
  row_.record.stage = Stage::kStarting;
  const auto fds = row_.setup_fds(reference_results_);
  if (!reference_step(row_.setup_request(), fds, false)) return false;
  reference_set_up_ = true;
  return true;
}

// Links per burst, from pilot bursts of the reference (trusted code: its
// own events say how long a link takes). A pilot's four links carry all
// of a burst's own cost (the graph's start, the copies of the seed and
// the digests), so a link looks longer than it is: a burst of the links
// chosen says again, and the links are chosen anew if that asks for a
// quarter more. (With one pilot burst alone, on the H100, a 7 µs launch
// got 9 links a burst and a 0.2 ms burst.) A link under the policy's
// min_reference_us makes the row short (reference_setup): its bursts
// last kShortBurstMs, and the links need no second look.
bool ReferenceWindows::choose_links() {
  int& links = row_.bursts.links;
  if (!row_.phase("pilot_chain", reference_chain(kPilotLinks))) return false;
  auto link_ms = reference_link_ms(kPilotLinks);
  row_.phase("pilot_bursts", true);
  if (!link_ms) return false;
  const auto under_threshold = [&](double ms) { return ms * 1000 < row_.plan.min_reference_us; };
  pilot_link_ms_ = *link_ms;
  short_by_pilot_ = under_threshold(*link_ms);
  links = links_for(*link_ms);
  if (!reference_chain(links)) return false;
  if (links_to_check()) {
    if (!(link_ms = reference_link_ms(links))) return false;
    pilot_link_ms_ = *link_ms;
    short_by_pilot_ = under_threshold(*link_ms);
    if (const auto again = more_links(*link_ms)) {
      links = *again;
      if (!reference_chain(links)) return false;
    }
  }
  return row_.phase("reference_chain", true);
}

// Whether the links chosen are worth a second look: not short, and not at
// the most already (kMaxLinks, or the history's limit).
bool ReferenceWindows::links_to_check() const { return !short_by_pilot_ && row_.bursts.links < links_for(0); }

// The links for a link of `link_ms`, if that asks for a quarter more than
// the links chosen.
std::optional<int> ReferenceWindows::more_links(double link_ms) const {
  const int again = links_for(link_ms);
  const int links = row_.bursts.links;
  return again > links + links / 4 ? std::optional<int>(again) : std::nullopt;
}

// Links a burst for a link of `link_ms` (the burst's length the policy's,
// or kShortBurstMs for a row short by its pilot).
int ReferenceWindows::links_for(double link_ms) const {
  const double burst_ms =
      short_by_pilot_ ? std::min(kShortBurstMs, row_.plan.timing.min_time_ms) : row_.plan.timing.min_time_ms;
  return grade::choose_links(link_ms, row_.prepared.csr.rows, burst_ms);
}

// The pilot ran beside the other gradings' work, which can make a link
// look longer and the bursts too short (on the H100, 0.4 ms bursts beside
// a busy neighbour where 3 ms was asked). With the GPU to itself, after
// the warm-up, one burst of the links chosen says again, as the pilot's
// own second look does: links chosen anew if it asks for a quarter more,
// then chained and warmed up. (Choosing them all over again alone, pilot
// and all, held every scored row's stretch some 20 ms longer.)
bool ReferenceWindows::links_again_alone() {
  if (!links_to_check()) return true;
  const auto burst = reference_burst(false);
  if (!burst) return false;
  const auto again = more_links((burst->event_ms > 0 ? burst->event_ms : burst->ms) / row_.bursts.links);
  if (!again) return true;
  row_.bursts.links = *again;
  return reference_chain(row_.bursts.links) && warmup() && row_.phase("reference_chain", true);
}

// A link's time in the reference runner's chain of `links`: the faster of
// two bursts after one that uploads the graph, by the runner's events
// where there are some (the device), else by the round trip, which
// overstates a link by the round trip's share.
std::optional<double> ReferenceWindows::reference_link_ms(int links) {
  double fastest = 0;
  for (int k = 0; k < 3; ++k) {
    const auto burst = reference_burst(false);
    if (!burst) return std::nullopt;
    const double ms = burst->event_ms > 0 ? burst->event_ms : burst->ms;
    if (k > 0 && (k == 1 || ms < fastest)) fastest = ms;
  }
  return fastest / links;
}

// Untimed bursts first, with and without the launch: a graph's first
// launch uploads it, and the GPU is as busy as in the bursts that follow.
bool ReferenceWindows::warmup() {
  for (int k = 0; k < std::max(row_.plan.timing.warmup_runs, 1); ++k) {
    if (!reference_burst(false) || !reference_burst(true)) return false;
  }
  return true;
}

bool ReferenceWindows::reference_chain(int links) {
  Request chain = make_request(Command::kChain);
  chain.links = links;
  chained_ = reference_step(chain).has_value();
  return chained_;
}

std::optional<ReferenceWindows::Burst> ReferenceWindows::reference_burst(bool empty) {
  Request request = make_request(Command::kBurst);
  request.seed = row_.random();
  request.empty = empty ? 1 : 0;
  const auto reply = reference_step(request);
  if (!reply) return std::nullopt;
  return Burst{row_.factory.reference().last_round_trip_ms(), reply->ms};
}

// The reference's bursts, each beside a calibration burst, into `side`:
// half of the options' bursts (before and after together make the
// reference's), more while the two fastest of them disagree, or while
// this window and `earlier` (the bursts before, when these are the
// bursts after) disagree by more than kWindowsAgree.
bool ReferenceWindows::time_reference(Side& side, const Side* earlier) {
  runner::TimingOptions half = row_.plan.timing;
  half.min_runs = half_of_bursts(row_.plan.timing);
  half.max_runs = short_by_pilot_ ? half.min_runs : std::max(half.min_runs, row_.plan.timing.max_runs / 2);
  const auto noise = [&] {
    Side all = earlier != nullptr ? *earlier : Side{};
    all.append(side);
    // The window's own two fastest: its time is theirs (the bursts pooled
    // with the window before let a window after stop on one fast burst,
    // 8% from its next: on the H100 the reference's clock then strayed 4%
    // from its events on a suite case).
    const double own = burst_noise(side.bursts_ms, all.empty_ms);
    if (earlier == nullptr || side.bursts_ms.empty()) return own;
    const double apart = windows_disagreement({earlier->bursts_ms, side.bursts_ms}, all.empty_ms, row_.bursts.links);
    return apart > kWindowsAgree ? std::max(own, apart) : own;
  };
  while (needs_more_bursts(static_cast<int>(side.bursts_ms.size()), noise(), half)) {
    const auto empty = reference_burst(true);
    const auto full = empty ? reference_burst(false) : std::nullopt;
    if (!full) return false;
    side.add(*full, *empty);
  }
  return true;
}

bool ReferenceWindows::time_after() {
  Side& before = row_.bursts.reference_before;
  Side& after = row_.bursts.reference_after;
  if (!kept_) return time_reference(after, &before);
  if (!time_reference(after, nullptr)) return false;
  const std::vector<double> empty = row_.bursts.calibration();
  const int links = row_.bursts.links;
  auto& parts = row_.record.timing.parts_ms;
  parts["reference_kept"] = per_launch_ms(kept_->window.bursts_ms, empty, links);
  parts["reference_kept_age"] = kept_->age_s * 1000;
  if (windows_disagreement({before.bursts_ms, after.bursts_ms}, empty, links) <= ReferenceMemo::kSharedAgree) {
    return true;
  }
  // Set aside: the GPU is not as it was when the window was kept. A second
  // window of the row's own, compared with the one after as a window before
  // would be.
  before = Side{};
  return time_reference(before, &after);
}

void ReferenceWindows::use_kept(const KeptWindow& kept) {
  kept_ = kept;
  row_.bursts.links = kept.links;
  row_.bursts.reference_before = kept.window;
  short_by_pilot_ = kept.short_by_pilot;
  pilot_link_ms_ = kept.pilot_link_ms;
}

KeptWindow ReferenceWindows::to_keep() const {
  const Side& after = row_.bursts.reference_after;
  return {.links = row_.bursts.links,
          .short_by_pilot = short_by_pilot_,
          .pilot_link_ms = pilot_link_ms_,
          .window = after.bursts_ms.empty() ? row_.bursts.reference_before : after,
          .age_s = 0};
}

bool ReferenceWindows::short_row() const {
  const Side& before = row_.bursts.reference_before;
  return short_by_pilot_ ||
         per_launch_ms(before.bursts_ms, before.empty_ms, row_.bursts.links) * 1000 < row_.plan.min_reference_us;
}

}  // namespace spmv::grade
