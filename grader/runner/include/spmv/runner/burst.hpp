// Chained bursts of a launch area's kernel (the protocol of chain.hpp), as
// a runner makes them for the grader's clock. On the device a burst is one
// CUDA graph, captured once: the seed copied in, then for every link the
// runner's x derivation and the plugin's launch into the link's own y;
// then the runner's digests of every link's y, copied out last. On the host
// the same steps run as a loop. Without a kernel in the area, the links
// hold no launch: the runner's own cost, which the grader subtracts.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "spmv/memory/buffer.hpp"
#include "spmv/runner/executor.hpp"
#include "spmv/runner/launch.hpp"

namespace spmv::runner {

// The plugin's launch could not be captured into a graph: `code` is the
// cudaError_t the capture ended with (0 when the launch returned a status
// instead, which `status` holds).
class CaptureError : public std::runtime_error {
 public:
  CaptureError(const std::string& what, int code, spmv_status status)
      : std::runtime_error(what), code_(code), status_(status) {}
  [[nodiscard]] int code() const { return code_; }
  [[nodiscard]] spmv_status status() const { return status_; }

 private:
  int code_;
  spmv_status status_;
};

// What the contract says of a launch call, for a capture that failed with
// `code` (a cudaError_t): which rule the call broke.
std::string capture_rule(int code);

class Bursts {
 public:
  // Links of `area`'s kernel, and links without a launch, with room to keep
  // `keep` pairs of links' y (keep_link), or as many as fit, at least one.
  // Captures the first's graph on the device now (with a kernel in the
  // area), the second's at its first burst;
  // throws CaptureError if the launch cannot be captured,
  // std::invalid_argument for a link or pair count out of range.
  Bursts(Executor& executor, LaunchArea& area, int links, int keep = 0);
  ~Bursts();
  Bursts(const Bursts&) = delete;
  Bursts& operator=(const Bursts&) = delete;

  [[nodiscard]] int links() const { return links_; }
  // The pairs kept at once: `keep`, or fewer where memory ran short.
  [[nodiscard]] int kept_pairs() const { return static_cast<int>(kept_links_.size()); }

  // One burst of `seed`, waited for: d_1 .. d_links into `digests`. Without
  // `with_launch` the links hold no launch (the runner's own cost). Returns
  // the runner's own CUDA-event time of the burst (0 on the host): a
  // diagnostic, never the grade's.
  double run(std::uint64_t seed, bool with_launch, std::span<std::uint64_t> digests);

  // y of links `link` - 1 and `link` (1 .. links) of the last burst, kept
  // as pair `pair` (0 .. keep - 1) in the executor's memory: on the device
  // the GPU copies, and nothing crosses to the host between bursts (copies
  // to the host there slowed the next bursts, by the grader's clock and by
  // the GPU's events alike).
  void keep_link(int link, int pair);
  // Kept pair `pair`, each y between guard zones of kGuardBits, into two
  // result slots of slot_words(rows) words; link 1's previous slot is left
  // as it was (the first link has no y before it).
  void copy_kept(int pair, std::uint32_t* previous_slot, std::uint32_t* slot) const;

  struct Graph;  // the device's captured graph and its buffers

 private:
  [[nodiscard]] float* y_of(int link) const;
  [[nodiscard]] std::size_t kept_y_bytes() const;
  void keep_pairs(int keep);
  void run_on_host(std::uint64_t seed, bool with_launch, std::span<std::uint64_t> digests);
  std::unique_ptr<Graph> capture(bool with_launch);

  Executor& executor_;
  LaunchArea& area_;
  int links_;
  std::size_t stride_words_;
  RawBuffer history_;
  RawBuffer kept_;                              // pairs of y: link - 1's, then link's
  std::vector<int> kept_links_;                 // the link each pair holds (0: none yet)
  std::unique_ptr<Graph> graph_, empty_graph_;  // device only
};

}  // namespace spmv::runner
