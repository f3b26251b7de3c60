#include "rows/link_checks.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>

#include "judging/correctness.hpp"
#include "rows/copy_buffers.hpp"

namespace spmv::grade {
namespace {

// Link checks computed at once, at most: on all cores but two (the
// grader's and its runner's), at least six.
std::size_t max_pending_checks() {
  static const std::size_t cores = std::thread::hardware_concurrency();
  static const std::size_t most = std::max<std::size_t>(6, cores > 2 ? cores - 2 : 0);
  return most;
}

}  // namespace

bool LinkChecks::check_links(SubmissionSession& session, std::uint64_t seed,
                             const std::shared_ptr<std::vector<std::uint64_t>>& digests, int checks) {
  RowRecord& record = row_.record;
  const int links = row_.bursts.links;
  const Stage stage = record.stage;
  std::vector<int> chosen;
  while (static_cast<int>(chosen.size()) < std::min(checks, links)) {
    const int link = std::uniform_int_distribution<int>(1, links)(row_.random);
    if (std::find(chosen.begin(), chosen.end(), link) == chosen.end()) chosen.push_back(link);
  }
  for (const int link : chosen) {
    if (static_cast<int>(kept_.size()) >= keep_ && !copy_out_kept(session)) return false;
    runner::Request keep = make_request(runner::Command::kKeepLink);
    keep.link = link;
    keep.slot = static_cast<int>(kept_.size());
    if (!session.step(Stage::kCheckingTimed, keep)) return false;
    kept_.push_back({link, seed, digests});
    ++record.timing.checked_launches;
  }
  record.stage = stage;
  return true;
}

bool LinkChecks::copy_out_kept(SubmissionSession& session) {
  const Stage stage = row_.record.stage;
  const std::size_t words = runner::slot_words(row_.prepared.csr.rows);
  for (std::size_t pair = 0; pair < kept_.size(); ++pair) {
    runner::Request copy = make_request(runner::Command::kCopyKept);
    copy.slot = static_cast<int>(pair);
    if (!session.step(Stage::kCheckingTimed, copy)) return false;
    // The check (x derived, the golden result, the comparison) costs the
    // grader milliseconds on a large case: it runs later, on a copy of
    // the two slots taken now (a buffer of those two slots alone).
    static_assert(runner::kLinkSlot == runner::kPreviousLinkSlot + 1 && runner::kLinkSlot == runner::kSlots - 1);
    const std::size_t first = static_cast<std::size_t>(runner::kPreviousLinkSlot) * words;
    const std::size_t count = 2 * words;
    const std::shared_ptr<std::uint32_t[]> copies = CopyBuffers::instance().take(count);
    std::copy(session.results()->words() + first, session.results()->words() + first + count, copies.get());
    const Kept& kept = kept_[pair];
    deferred_checks_.push_back(
        [&prepared = row_.prepared, seed = kept.seed, link = kept.link, digests = kept.digests, copies] {
          return check_link(prepared, seed, link, *digests,
                            ResultView(copies.get(), prepared.csr.rows, runner::kPreviousLinkSlot));
        });
  }
  kept_.clear();
  row_.record.stage = stage;
  return true;
}

bool LinkChecks::run_checks() {
  std::vector<std::function<std::string()>> checks = std::move(deferred_checks_);
  deferred_checks_.clear();
  for (auto& check : checks) {
    if (pending_checks_.size() >= max_pending_checks() && !collect_one_check()) return false;
    pending_checks_.push_back(std::async(std::launch::async, [check = std::move(check)] {
      ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);  // this thread only
      return check();
    }));
  }
  return collect_checks();
}

// Waits for the oldest pending check; false if its launch was wrong.
bool LinkChecks::collect_one_check() {
  const std::string wrong = pending_checks_.front().get();
  pending_checks_.pop_front();
  if (wrong.empty()) return true;
  if (row_.record.timing.wrong_timed_launch.empty()) row_.record.timing.wrong_timed_launch = wrong;
  return false;
}

bool LinkChecks::collect_checks() {
  bool all_right = true;
  while (!pending_checks_.empty()) all_right = collect_one_check() && all_right;
  return all_right;
}

}  // namespace spmv::grade
