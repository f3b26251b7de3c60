#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>

#include "spmv/runner/executor.hpp"

namespace spmv::runner {
namespace {

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
  }
  ~DeviceExecutor() override {
    // Errors here are ignored: after a sticky kernel error nothing can be
    // released, and the process ends right after.
    if (stop_ != nullptr) cudaEventDestroy(stop_);
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  DeviceExecutor(const DeviceExecutor&) = delete;
  DeviceExecutor& operator=(const DeviceExecutor&) = delete;

  [[nodiscard]] MemorySpace space() const override { return MemorySpace::kDevice; }
  [[nodiscard]] cudaStream_t stream() const override { return stream_; }

  int synchronize() override {
    // The whole device, not just our stream: work a kernel hid on another
    // stream must be finished too before the result is read.
    const cudaError_t done = cudaDeviceSynchronize();
    if (done != cudaSuccess) return done;
    return cudaGetLastError();
  }

  double time(const std::function<spmv_status()>& launch, spmv_status& status, int& error) override {
    error = cudaEventRecord(start_, stream_);
    if (error != cudaSuccess) return 0;
    status = launch();
    error = cudaEventRecord(stop_, stream_);
    if (error != cudaSuccess) return 0;
    error = synchronize();
    if (error != cudaSuccess) return 0;
    float ms = 0;
    error = cudaEventElapsedTime(&ms, start_, stop_);
    return ms;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
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
