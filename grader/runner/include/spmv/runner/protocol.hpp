// The run protocol between the grader (the trusted parent) and a runner
// (spmv-runner, the untrusted process that loads one plugin and runs its
// kernels). Every grading path uses it: spmv-grade for submissions and the
// reference alike.
//
// The parent sends one Request at a time over a SOCK_SEQPACKET socket (fd
// kControlFd in the runner) and waits for its Reply, so it always knows
// which step a runner is in; a runner that dies or hangs is judged by that
// step, never by anything the runner wrote. Matrices and result areas travel
// as memory file descriptors passed with the kSetup request (SCM_RIGHTS):
// the matrix sealed read-only, the result area writable by the runner.
//
// What a runner reports (launch status, times, which inputs changed) is its
// own word: the parent checks y against golden results it computes itself,
// and the time that grades is the parent's clock around a chained burst
// (chain.hpp), whose work is proven done inside that time
// (docs/grading.md, "Timing").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "spmv/runner/chain.hpp"

namespace spmv::runner {

// File descriptors of a runner, as spmv-runner is started.
inline constexpr int kControlFd = 3;

// Version of the structs below; the runner refuses a parent of another.
inline constexpr std::uint32_t kProtocolVersion = 5;

enum class Command : std::uint32_t {
  kHello = 1,  // reply: the runner started its executor ("CUDA ready")
  kLoad,       // load the plugin (./plugin.so in the runner's folder); reply: its table
  kSetup,      // matrix of `format` (+ 2 fds: matrix image, result area); allocate x, y, scratch
  kRun,        // x from `seed`, poisoned y, one launch, y copied to result slot `slot`, inputs compared
  kChain,      // prepare bursts of `links` links (the device captures them as a graph)
  kBurst,      // one burst of `seed` (chain.hpp); reply: d_1 .. d_links, the runner's own time
  kKeepLink,   // y of links `link` - 1 and `link` of the last burst kept on the runner's side as pair `slot`
  kCopyKept,   // kept pair `slot` to kPreviousLinkSlot, kLinkSlot
  kCusparse,   // time the vendor CSR SpMV on the set-up matrix (reference runners only)
  kQuit,
};

enum class ReplyKind : std::int32_t {
  kOk,
  kNotImplemented,  // the kernel returned SPMV_NOT_IMPLEMENTED, or the plugin lacks it
  kLaunchFailed,    // the kernel returned another nonzero status (`status`)
  kCudaError,       // a CUDA call failed (`status` is the cudaError_t)
  kUnusable,        // the plugin cannot be loaded or used (message says why)
  kNotCapturable,   // the launch broke a burst's capture (`status`: the cudaError_t; message names the call)
  kFailed,          // anything else (message says why)
};

inline constexpr std::size_t kNameBytes = 64;
inline constexpr std::size_t kMaxKernels = 64;

struct Request {
  std::uint32_t version = kProtocolVersion;
  Command command = Command::kQuit;
  std::int32_t format = 0;         // kSetup: spmv_format
  std::int32_t slot = 0;           // kRun: result slot; kKeepLink, kCopyKept: kept pair
  std::uint64_t seed = 0;          // kRun: seed of x (x_values.hpp); kBurst: the burst's seed (chain.hpp)
  std::int32_t links = 0;          // kChain: links of a burst
  std::int32_t keep = 0;           // kChain: link pairs kept at once (kKeepLink's slots 0 .. keep - 1)
  std::int32_t link = 0;           // kKeepLink: 1 .. links
  std::int32_t empty = 0;          // kBurst: links without the launch (the runner's own cost)
  std::int32_t cusparse_runs = 0;  // kCusparse: minimum samples
  double cusparse_min_ms = 0;      // kCusparse: minimum time being timed
  std::int32_t check_inputs = 0;   // kRun: compare the matrix with its original after the launch (x always)
  char kernel[kNameBytes] = {};    // kSetup: the kernel to run
};

struct KernelEntry {
  char name[kNameBytes];
  std::int32_t format;
  char description[160];
};

struct Reply {
  ReplyKind kind = ReplyKind::kFailed;
  std::int32_t status = 0;   // the launch's return value or the CUDA error
  double ms = 0;             // kBurst, kCusparse: the runner's own time (CUDA events): a diagnostic
  std::int32_t samples = 0;  // kCusparse
  // kRun: the kernels the launch ran, from CUPTI's records in the
  // runner (launch_recorder.hpp): the runner's word like everything here.
  double span_ms =
      0;  // earliest start to latest end, every stream (with no kernel set up: the stand-in's); 0 when not recorded
  std::int32_t kernels_launched = 0;  // -1 when not recorded (recorder_note says why)
  char foreign_kernel[160] = {};      // demangled: first kernel neither the plugin's nor the runner's, or a vendor's
  char recorder_note[160] = {};       // kHello, kRun: why nothing, or not all, was recorded
  std::int32_t memory = 0;            // kLoad: spmv_memory_space
  std::int32_t kernel_count = 0;
  char plugin_name[kNameBytes] = {};
  char modified[512] = {};  // kRun: input arrays found changed, comma-separated
  char message[2048] = {};
  KernelEntry kernels[kMaxKernels] = {};
  std::int32_t links = 0;                 // kBurst: digests given
  std::int32_t kept = 0;                  // kChain: link pairs kept at once (at most the request's keep)
  std::uint64_t digests[kMaxLinks] = {};  // kBurst: d_1 .. d_links
};

// Copies `text` into a fixed buffer, truncated and NUL-terminated.
template <std::size_t N>
void store_text(char (&buffer)[N], std::string_view text) {
  const std::size_t length = text.size() < N - 1 ? text.size() : N - 1;
  for (std::size_t i = 0; i < length; ++i) buffer[i] = text[i];
  buffer[length] = '\0';
}
// A fixed buffer's text, never reading past it even without a NUL.
template <std::size_t N>
std::string read_text(const char (&buffer)[N]) {
  std::size_t length = 0;
  while (length < N && buffer[length] != '\0') ++length;
  return {buffer, length};
}

// Sends one message with up to two file descriptors. Throws
// std::runtime_error on failure (EPIPE when the peer is gone).
void send_message(int socket, const void* data, std::size_t bytes, std::span<const int> fds = {});
// Receives one message of exactly `bytes` bytes into `data`, and up to
// `fds.size()` descriptors (-1 where none came). Returns false when the peer
// closed the socket; throws on a malformed message.
bool receive_message(int socket, void* data, std::size_t bytes, std::span<int> fds = {});

// The layout of a result area: kSlots copies of (guard, y, guard), 32-bit
// words, shared between the runner (writing) and the parent (reading).
inline constexpr int kSlots = 5;  // runs 1-3, then a checked link's previous y and its own
inline constexpr int kPreviousLinkSlot = 3;
inline constexpr int kLinkSlot = 4;
// Guard zone on each side of y: 16 KiB of a pattern no kernel writes by chance.
inline constexpr std::size_t kYGuardWords = 4096;
inline constexpr std::uint32_t kGuardBits = 0x6b8b4567;
// Guard zone on each side of x: NaN, so a read outside x poisons the row's
// result (and 16 KiB, so a miss by a row's length lands in it).
inline constexpr std::size_t kXGuardWords = 4096;
inline constexpr std::uint32_t kXGuardBits = 0x7fc0bad0;

inline std::size_t slot_words(std::int64_t rows) { return 2 * kYGuardWords + static_cast<std::size_t>(rows); }
inline std::size_t result_area_bytes(std::int64_t rows) { return kSlots * slot_words(rows) * sizeof(std::uint32_t); }

}  // namespace spmv::runner
