// The runner's side of the run protocol: one plugin, one kernel at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launch_recorder.hpp"
#include "spmv/contract/plugin.h"
#include "spmv/plugin/plugin.hpp"
#include "spmv/runner/burst.hpp"
#include "spmv/runner/executor.hpp"
#include "spmv/runner/image_cache.hpp"
#include "spmv/runner/launch.hpp"
#include "spmv/runner/matrix_image.hpp"
#include "spmv/runner/protocol.hpp"
#include "spmv/runner/uploaded.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::runner {

enum class Space { kDevice, kHost, kProbe };

class Session {
 public:
  Session(Space space, sandbox::Level level, bool vendor_timing);
  // Answers requests until kQuit or the parent goes; the exit status.
  int serve();

 private:
  void hello(Reply& reply);
  void load(Reply& reply);
  void setup(const Request& request, const int (&fds)[2], Reply& reply);
  void run(const Request& request, Reply& reply);
  void chain(const Request& request, Reply& reply);
  void burst(const Request& request, Reply& reply);
  void keep_link(const Request& request, Reply& reply);
  void copy_kept(const Request& request, Reply& reply);
  void cusparse(const Request& request, Reply& reply);

  int finish() const;
  void copy_y_to_slot(int slot) const;
  void release_setup();
  // Around a launch: the kernels it ran, into the reply's recorder fields.
  void begin_recording();
  void end_recording(Reply& reply);

  Space space_;
  sandbox::Level level_;
  bool vendor_timing_;
  std::string restrictions_;
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<LaunchRecorder> recorder_;  // device space only
  std::unique_ptr<Plugin> plugin_;
  // The images set up, with their uploads: kept by the reference runner
  // (vendor_timing_), never by a submission's.
  ImageCache<UploadedMatrix> images_;
  // Per setup.
  const spmv_kernel_entry* kernel_ = nullptr;
  std::shared_ptr<const AnyMatrix> matrix_;  // the host arrays the upload compares with (none: the reference's)
  std::shared_ptr<UploadedMatrix> uploaded_;
  std::unique_ptr<LaunchArea> area_;
  std::unique_ptr<Bursts> bursts_;
  std::int64_t rows_ = 0, cols_ = 0;
  std::uint32_t* result_area_ = nullptr;
  std::size_t result_bytes_ = 0;
};

}  // namespace spmv::runner
