// The reference's windows on a case, kept for the other gradings on the same
// GPU (spmv-grade --gpu-cache DIR; tools/grade-class gives its gradings of
// one GPU one folder). Every student of a class is compared with the same
// reference on the same cases: a window timed by one grading, with nothing
// of any submission alive, serves the next gradings as their window before,
// within a bound on its drift:
//
//   - a window is kept only by the grader itself, from the reference
//     runner's bursts (no submission's process has a say), under a key of
//     everything that decides it: the GPU (name, UUID, PCI address), the
//     reference plugin and runner programs, the timing options, the
//     policy's min_reference_us, the kernel and the case;
//   - it serves for at most kMaxAge;
//   - a row scored by speed still times the reference's window after its
//     submission's runner has ended; a kept window further than
//     kSharedAgree from that window is set aside and a second window is
//     timed instead (the drift, measured, is in the row's timing parts);
//     that window after is kept in turn for the gradings after;
//   - a correctness-only row (its speed scores nothing) takes a kept
//     window as its reference time, with no window of its own.
//
// A file that is not a kept window, or not of this key, is measured again
// and replaced. A folder where a window cannot be written is said once, and
// the grading goes on keeping nothing.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "rows/row_timing.hpp"

namespace spmv::grade {

struct KeptWindow {
  int links = 0;  // launches a burst
  bool short_by_pilot = false;
  double pilot_link_ms = 0;
  Side window;       // the reference's bursts and their calibration bursts
  double age_s = 0;  // when found: how long ago it was timed
};

class ReferenceMemo {
 public:
  // A kept window serves at most this long.
  static constexpr std::chrono::seconds kMaxAge{300};
  // A kept window and the row's window after within this (relative, as
  // windows_disagreement measures) stand together; further apart, the kept
  // one is set aside.
  static constexpr double kSharedAgree = 0.02;

  // No folder: nothing is kept (a grading alone).
  ReferenceMemo() = default;
  // Windows kept in `folder` (made if missing) under `key` (the GPU, the
  // reference's programs, the timing options: see above) and the cases'
  // identities (case name -> identity of its matrix and reading).
  ReferenceMemo(std::filesystem::path folder, std::string key, std::map<std::string, std::string> cases);

  [[nodiscard]] bool enabled() const { return !folder_.empty(); }
  // The window kept for `kernel` on `case_name`, if one of this key is
  // younger than kMaxAge.
  [[nodiscard]] std::optional<KeptWindow> find(const std::string& kernel, const std::string& case_name) const;
  // `window` of `kernel` on `case_name`, timed now, kept (replacing any).
  void keep(const std::string& kernel, const std::string& case_name, const KeptWindow& window) const;

 private:
  struct Entry {
    std::string key;
    std::filesystem::path file;
  };
  [[nodiscard]] std::optional<Entry> entry_of(const std::string& kernel, const std::string& case_name) const;

  std::filesystem::path folder_;
  std::string key_;
  std::map<std::string, std::string> cases_;
  mutable bool unwritable_ = false;  // a window could not be kept: said once, none tried after
};

}  // namespace spmv::grade
