#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>

#include "spmv/runner/executor.hpp"
#include "x_fill.hpp"

namespace spmv::runner {
namespace {

// How long the gate holds the stream at most while the launch call is
// being made. A launch call that waits for its own stream (a
// synchronization inside it) returns only once the gate gives way. One such
// wait may be a one-off: the first launch of a kernel loads its module
// (CUDA's lazy loading), which waits for the device, and the reference's
// first launch of a row is a timed warm-up. So the gate closes again for
// the next launch, and is left open only after it gave way on
// kGiveWaysToOpen launches in a row, until the executor is told of a new
// kernel (a runner's kSetup: cuSPARSE's timing, which may wait inside its
// call, must not leave the reference's kernels ungated).
constexpr unsigned long long kGateLimitNs = 10'000'000;
constexpr int kGiveWaysToOpen = 2;

class DeviceExecutor final : public Executor {
 public:
  explicit DeviceExecutor(int device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaFree(nullptr), "creating the CUDA context");
    // A blocking stream: it also waits for the synchronous copies the
    // buffers make on the legacy default stream.
    check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
    void* gate = nullptr;
    check_cuda(cudaHostAlloc(&gate, 2 * sizeof(unsigned int), cudaHostAllocMapped), "cudaHostAlloc of the timing gate");
    gate_ = static_cast<unsigned int*>(gate);
    gate_[0] = 1;
    gate_[1] = 0;
  }
  ~DeviceExecutor() override {
    // Errors here are ignored: after a sticky kernel error nothing can be
    // released, and the process ends right after.
    if (stop_ != nullptr) cudaEventDestroy(stop_);
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (gate_ != nullptr) cudaFreeHost(gate_);
  }
  DeviceExecutor(const DeviceExecutor&) = delete;
  DeviceExecutor& operator=(const DeviceExecutor&) = delete;

  [[nodiscard]] MemorySpace space() const override { return MemorySpace::kDevice; }
  [[nodiscard]] cudaStream_t stream() const override { return stream_; }

  void load_own_kernels() override {
    hold_stream(stream_, gate_, 0);  // the gate is open: it returns at once
    check_cuda(synchronize(), "loading the runner's kernels");
  }

  void new_kernel() override { gave_way_in_a_row_ = 0; }  // re-arms the gate

  int synchronize() override {
    // The whole device, not just our stream: work a kernel hid on another
    // stream must be finished too before the result is read.
    const cudaError_t done = cudaDeviceSynchronize();
    if (done != cudaSuccess) return done;
    return cudaGetLastError();
  }

  // The events and the launch are enqueued behind the gate, which opens
  // once the launch call has returned: the events time the launch's work on
  // the GPU, not the host's pace in making the call (for a kernel of a few
  // microseconds the call takes longer than the kernel, and differs from one
  // process to the next).
  double time(const std::function<spmv_status()>& launch, spmv_status& status, int& error) override {
    const bool gated = gave_way_in_a_row_ < kGiveWaysToOpen;
    if (gated) {
      __atomic_store_n(&gate_[1], 0U, __ATOMIC_SEQ_CST);
      __atomic_store_n(&gate_[0], 0U, __ATOMIC_SEQ_CST);
      hold_stream(stream_, gate_, kGateLimitNs);
    }
    error = cudaEventRecord(start_, stream_);
    if (error == cudaSuccess) {
      status = launch();
      error = cudaEventRecord(stop_, stream_);
    }
    if (gated) __atomic_store_n(&gate_[0], 1U, __ATOMIC_SEQ_CST);
    if (error != cudaSuccess) return 0;
    error = synchronize();
    if (gated) gave_way_in_a_row_ = __atomic_load_n(&gate_[1], __ATOMIC_SEQ_CST) != 0 ? gave_way_in_a_row_ + 1 : 0;
    if (error != cudaSuccess) return 0;
    float ms = 0;
    error = cudaEventElapsedTime(&ms, start_, stop_);
    return ms;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  unsigned int* gate_ = nullptr;  // [0] open, [1] the hold gave way after its limit (host memory, mapped)
  int gave_way_in_a_row_ = 0;     // gated launches in a row whose hold gave way
};

}  // namespace

std::unique_ptr<Executor> make_device_executor(int device) { return std::make_unique<DeviceExecutor>(device); }

std::optional<int> current_gpu_minor() {
  int device = 0;
  char bus_id[32] = {};
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) {
    return std::nullopt;
  }
  // The driver names its folder by the bus id in lower case: 0000:3b:00.0.
  std::string folder = bus_id;
  std::transform(folder.begin(), folder.end(), folder.begin(), [](unsigned char c) { return std::tolower(c); });
  std::ifstream information("/proc/driver/nvidia/gpus/" + folder + "/information");
  const std::string key = "Device Minor:";
  for (std::string line; std::getline(information, line);) {
    if (line.rfind(key, 0) != 0) continue;
    try {
      const int minor = std::stoi(line.substr(key.size()));
      if (minor >= 0) return minor;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

std::string cuda_error_name(int code) { return cudaGetErrorName(static_cast<cudaError_t>(code)); }

}  // namespace spmv::runner
