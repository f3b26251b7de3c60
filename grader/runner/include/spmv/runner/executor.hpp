// Where a row's child runs kernels: on the GPU (a CUDA stream, CUDA events)
// or, for host-memory plugins, on the CPU (std::chrono, no CUDA call at all,
// so the host path needs neither a GPU nor a driver).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "spmv/contract/common.h"
#include "spmv/memory/buffer.hpp"

namespace spmv::runner {

class Executor {
 public:
  virtual ~Executor() = default;
  [[nodiscard]] virtual MemorySpace space() const = 0;
  // The stream launches are enqueued on; nullptr on the host.
  [[nodiscard]] virtual cudaStream_t stream() const = 0;
  // Waits for all launched work; 0, or the cudaError_t it ended with
  // (including an error a launch left behind without returning it).
  virtual int synchronize() = 0;
  // Runs launch() between two time stamps and waits for it: the elapsed
  // milliseconds. `status` gets launch()'s return value; `error` what
  // synchronize() would return.
  virtual double time(const std::function<spmv_status()>& launch, spmv_status& status, int& error) = 0;
  // Loads the module of the executor's own kernels (the timing gate, the
  // fills of x and y) now, with lazy loading's first launch: a runner does so
  // before it loads a plugin, so a launch recorder knows them for its own.
  virtual void load_own_kernels() {}
  // What the executor learnt of the last kernel it timed (a device
  // executor's gate, left open after a launch call that waited for its own
  // stream) is forgotten: the next kernel is timed afresh.
  virtual void new_kernel() {}
};

std::unique_ptr<Executor> make_host_executor();
// Selects the device, creates its context, a stream and events.
std::unique_ptr<Executor> make_device_executor(int device);

// The minor number of the current CUDA device's node (/dev/nvidia<minor>),
// read from the driver's /proc entry for its PCI address; nullopt if the
// driver does not say.
std::optional<int> current_gpu_minor();

// "cudaErrorIllegalAddress", ... for a cudaError_t value (a pure lookup:
// it needs no GPU and no driver).
std::string cuda_error_name(int code);

}  // namespace spmv::runner
