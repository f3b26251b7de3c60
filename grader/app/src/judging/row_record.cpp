#include "judging/row_record.hpp"

#include <stdexcept>

namespace spmv::grade {

const char* describe(Stage stage) {
  switch (stage) {
    case Stage::kStarting: return "start-up";
    case Stage::kLoadingPlugins: return "loading the submission's plugin";
    case Stage::kUploading: return "the upload of the matrix";
    case Stage::kCusparse: return "the cuSPARSE timing";
    case Stage::kRun1: return "run 1 (first x)";
    case Stage::kRun2: return "run 2 (second x)";
    case Stage::kRun3: return "run 3 (first x again)";
    case Stage::kCapturing: return "the capture of the launch into a burst";
    case Stage::kTiming: return "the timed bursts";
    case Stage::kCheckingTimed: return "the copy of a burst's links for their check";
    case Stage::kDone: return "the end";
  }
  return "an unknown stage";
}

bool is_submission_stage(Stage stage) {
  // From the moment its plugin is loaded, whatever happens in the
  // submission's runner is the submission's doing.
  return stage != Stage::kStarting && stage != Stage::kCusparse;
}

const std::uint32_t* ResultView::slot_start(int slot) const {
  if (slot < first_slot_) throw std::logic_error("a result slot read that its copy does not hold");
  return words_ + static_cast<std::size_t>(slot - first_slot_) * runner::slot_words(rows_);
}

std::span<const float> ResultView::y(int slot) const {
  return {reinterpret_cast<const float*>(slot_start(slot) + runner::kYGuardWords), static_cast<std::size_t>(rows_)};
}

std::span<const std::uint32_t> ResultView::guard_before(int slot) const {
  return {slot_start(slot), runner::kYGuardWords};
}

std::span<const std::uint32_t> ResultView::guard_after(int slot) const {
  return {slot_start(slot) + runner::kYGuardWords + rows_, runner::kYGuardWords};
}

}  // namespace spmv::grade
