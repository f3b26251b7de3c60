#include "rows/submission_bursts.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "rows/burst_timing.hpp"

namespace spmv::grade {
namespace {

using runner::Command;
using runner::Reply;
using runner::ReplyKind;
using runner::Request;

bool submission_burst(RowState& row, SubmissionSession& session, LinkChecks& checks, bool short_row, bool keep) {
  const int links = row.bursts.links;
  Side& side = row.bursts.submission;
  Request request = make_request(Command::kBurst);
  request.seed = row.random();
  Reply reply;
  if (!session.step(row.record.stage, request, {}, &reply)) return false;
  const double ms = session.runner().last_round_trip_ms();
  if (reply.links != links) {
    row.record.refused = ReplyKind::kFailed;
    row.record.message = "the burst's reply carries " + std::to_string(reply.links) + " digests for " +
                         std::to_string(links) + " launches";
    return false;
  }
  int count = kChecksPerBurst;
  if (keep) {
    side.bursts_ms.push_back(ms);
    side.event_ms.push_back(reply.ms);
    // A burst that may decide the time is checked more (a short row's
    // time decides nothing).
    if (!short_row && among_fastest_two(ms, side.bursts_ms)) count = kChecksFastBurst;
  }
  const auto digests = std::make_shared<std::vector<std::uint64_t>>(reply.digests, reply.digests + links);
  return checks.check_links(session, request.seed, digests, count);
}

}  // namespace

bool time_submission_bursts(RowState& row, SubmissionSession& session, LinkChecks& checks, bool short_row,
                            const std::function<void()>& before_bursts) {
  row.record.stage = Stage::kCapturing;
  Request chain = make_request(Command::kChain);
  chain.links = row.bursts.links;
  chain.keep = kept_pairs(row.prepared.csr.rows, row.plan.timing);
  Reply chained;
  if (!row.phase("capture", session.step(Stage::kCapturing, chain, {}, &chained))) return false;
  checks.chain_keeps(std::clamp(chained.kept, 0, chain.keep));
  before_bursts();
  row.phase("quiet", true);
  for (int k = 0; k < std::max(row.plan.timing.warmup_runs, 1); ++k) {
    if (!submission_burst(row, session, checks, short_row, false)) return false;  // the first uploads the graph
  }
  row.phase("warmup", true);
  row.record.stage = Stage::kTiming;
  runner::TimingOptions options = row.plan.timing;
  // A row too short to score by speed: its time is reported, not refined,
  // from as many bursts as the reference's window before.
  if (short_row) options.max_runs = options.min_runs = half_of_bursts(options);
  while (needs_more_bursts(row.bursts.submission.bursts_ms, row.bursts.calibration(), options)) {
    if (!submission_burst(row, session, checks, short_row, true)) return false;
  }
  return row.phase("bursts", true) && row.phase("kept_copied", checks.copy_out_kept(session));
}

bool bursts_on_device(const RowBursts& bursts) {
  const std::vector<double>& events = bursts.submission.event_ms;
  return std::any_of(events.begin(), events.end(), [](double ms) { return ms > 0; });
}

}  // namespace spmv::grade
