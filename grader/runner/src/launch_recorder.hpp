// Which kernels a launch of the plugin really ran, on every stream, and from
// which module: CUPTI's concurrent-kernel activity records, and its module
// load callbacks.
//
// The runner creates one LaunchRecorder right after CUDA's context and
// before it restricts itself, so CUPTI (linked, loaded at exec) is set up
// while the CUDA toolkit's folder is still readable. Just before loading the
// plugin it reads which kernel names are the plugin's; around each graded
// launch begin() and end() return what ran in between.
//
// Telling the plugin's kernels apart. An activity record names its kernel
// but not its module, so the recorder keeps, for every module the driver
// loads (CUPTI_CBID_RESOURCE_MODULE_LOADED hands over its cubin), the names
// of the kernels the cubin defines, and reads the names the plugin file
// holds: the functions its symbol table defines (nvcc gives a kernel's
// host-side launcher the kernel's own name) and the mangled names its host
// code registers its kernels under. A kernel is
//   - the plugin's when the plugin file holds its name, unless a foreign
//     module defines that name too;
//   - the runner's when only a module loaded before the plugin defines it:
//     code loaded before any of the plugin's ran (the runner's own fills of
//     x and y, and the timing gate that holds the stream until the launch
//     call has returned); left out of the span, never reported as foreign;
//   - foreign otherwise: a kernel the plugin file does not name, from a
//     module loaded after the plugin (a library dlopened at run time, a
//     module loaded or JIT-compiled from embedded code) or from no module
//     seen at all; and any kernel whose name a foreign module defines (one
//     loaded after the plugin that defines none of the plugin's names).
// A kernel whose name carries a vendor library's name (cusparse, cublas,
// cusolver) is foreign whatever its module.
//
// Names, not load times, decide, because with lazy loading (the default
// since CUDA 12.2) the plugin's own modules are loaded at their first launch,
// long after the plugin file was.
//
// Limits: CUPTI runs inside the process that runs the plugin's code. A
// plugin can switch the recording off, rewrite this object's memory, or give
// a foreign kernel the name of one of its own. What the recorder reports
// raises the bar for a cheat and is evidence for review, not proof; the
// parent checks y and times from outside regardless. (A device launch that
// returned success with no kernel recorded, while recording works, is a
// sign of its own: the recording switched off, or the work done elsewhere.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace spmv::runner {

enum class KernelOrigin {
  kPlugin,   // a kernel the plugin file names
  kRunner,   // defined by a module loaded before the plugin was
  kForeign,  // anything else; see the header comment
};

const char* origin_name(KernelOrigin origin);

struct KernelLaunch {
  std::string name;             // as CUPTI gives it (the mangled name)
  std::uint32_t module_id = 0;  // CUPTI's id of the module defining it; 0 when none was seen
  KernelOrigin origin = KernelOrigin::kForeign;
  std::uint64_t start_ns = 0;  // CUPTI timestamps; 0 and 0 when CUPTI had none
  std::uint64_t end_ns = 0;    // the kernel's end, or its children's completion when later
  std::uint32_t stream_id = 0;
  std::uint32_t correlation_id = 0;
};

struct LaunchRecording {
  bool recorded = false;              // false: CUPTI was not available, `note` says why
  std::vector<KernelLaunch> kernels;  // in order of start
  double span_ms = 0;                 // earliest start to latest end over `kernels` with timestamps
  std::string foreign_kernel;         // the first foreign kernel (by start), demangled; empty when none
  std::string note;                   // why nothing, or not everything, was recorded
};

// Earliest start to latest end, in ms, over the kernels with timestamps
// that `counts`; 0 when none.
double kernel_span_ms(const std::vector<KernelLaunch>& kernels, const std::function<bool(const KernelLaunch&)>& counts);

class LaunchRecorder {
 public:
  // Enables CUPTI's records and callbacks. Never throws for CUPTI's sake:
  // when CUPTI cannot be used (no permission, unsupported device, another
  // profiler subscribed), available() is false and note() says why, and
  // every recording comes back empty with that note.
  LaunchRecorder();
  ~LaunchRecorder();
  LaunchRecorder(const LaunchRecorder&) = delete;
  LaunchRecorder& operator=(const LaunchRecorder&) = delete;

  [[nodiscard]] bool available() const;
  [[nodiscard]] std::string note() const;

  // Just before the plugin file is loaded, so before any of its code runs
  // (and could rewrite it): reads the names it holds. Modules loaded until
  // now are the runner's; later ones are told by these names. A file that
  // holds none (no symbol table) leaves the recorder unable to tell the
  // plugin's kernels from others: note() says so, and only a vendor
  // library's name then makes a kernel foreign.
  void plugin_loading(const std::filesystem::path& plugin_file);

  // Around one launch, once the device is idle before begin() and
  // synchronized again before end(): the kernels that ran in between.
  void begin();
  LaunchRecording end();

  // CUPTI's kernel records on or off for the whole process: off while
  // bursts are timed (a record costs each kernel time on the GPU, and both
  // runners must pay the same: none), on again for the checked runs.
  void set_recording(bool on);

  // While on, the first CUDA runtime or driver call that returns an error
  // is kept (the capture of a burst: which call of the plugin's broke it).
  // Evidence for the message only, like everything recorded here.
  void watch_calls(bool on);
  [[nodiscard]] std::string failed_call() const;

  struct State;  // shared with CUPTI's callbacks

 private:
  std::unique_ptr<State> state_;
};

// The names a plugin file holds, read as untrusted bytes: the functions its
// ELF symbol tables define, and every whole C string that is a mangled name
// (the device names its host code registers kernels under). Demangled where
// they demangle, as all names the recorder compares are; sorted.
std::vector<std::string> plugin_file_names(std::span<const unsigned char> file);
// The entry functions (kernels) a cubin defines, demangled likewise.
std::vector<std::string> cubin_kernel_names(const unsigned char* cubin, std::size_t bytes);
// The name in a form that compares equal across host and device symbols
// (demangled; a static kernel's host launcher is mangled with an L).
std::string canonical_kernel_name(const std::string& name);
// Whether the name is one of a vendor library's kernels (cuSPARSE, cuBLAS, cuSOLVER).
bool is_vendor_kernel_name(const std::string& name);

}  // namespace spmv::runner
