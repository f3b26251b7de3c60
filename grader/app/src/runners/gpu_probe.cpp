#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "runners/probe.hpp"
#include "runners/process.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::grade {
namespace {

// Large enough to dwarf caches (the H100's L2 is 50 MB) and launch costs.
constexpr std::size_t kCopyBytes = std::size_t{256} << 20;
constexpr int kCopyRuns = 10;

struct GpuProbe {
  std::atomic<std::int32_t> done{0};
  std::int32_t count = 0;
  std::int32_t measured = 0;
  std::int32_t from_cache = 0;  // copy_gbps is the cache's, not measured now
  double copy_gbps = 0;
  std::int32_t driver_version = 0;   // cudaDriverGetVersion
  std::int32_t runtime_version = 0;  // cudaRuntimeGetVersion
  char name[256] = {};
  char note[512] = {};
  char gpu_key[512] = {};
};

// What identifies the GPU for the cache: its name, UUID and PCI address.
// Device numbers are not enough: CUDA_VISIBLE_DEVICES may reorder them.
std::string gpu_key(const cudaDeviceProp& properties) {
  std::string key = properties.name;
  key += " GPU-";
  char hex[3];
  for (std::size_t i = 0; i < sizeof properties.uuid.bytes; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(properties.uuid.bytes[i]));
    key += hex;
  }
  char pci[32];
  std::snprintf(pci, sizeof pci, " %04x:%02x:%02x", static_cast<unsigned>(properties.pciDomainID),
                static_cast<unsigned>(properties.pciBusID), static_cast<unsigned>(properties.pciDeviceID));
  return key + pci;
}

// The cached bandwidth if it is this GPU's. The device's properties are
// read without cudaSetDevice, which would create a CUDA context: skipping
// that is most of what the cache saves.
bool take_from_cache(GpuProbe& probe, int device, const GpuProbeCache& cache) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) return false;
  const std::string key = gpu_key(properties);
  if (key != cache.gpu_key) return false;
  store_text(probe.name, properties.name);
  store_text(probe.gpu_key, key);
  probe.copy_gbps = cache.copy_gbps;
  probe.from_cache = 1;
  return true;
}

// Median of timed device-to-device copies; bytes read plus bytes written.
double copy_bandwidth_gbps() {
  const RawBuffer source(MemorySpace::kDevice, kCopyBytes);
  const RawBuffer target(MemorySpace::kDevice, kCopyBytes);
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int run = 0; run < kCopyRuns + 1; ++run) {  // the first is a warm-up
    check_cuda(cudaEventRecord(start), "cudaEventRecord");
    check_cuda(cudaMemcpyAsync(target.data(), source.data(), kCopyBytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    check_cuda(cudaEventRecord(stop), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float elapsed = 0;
    check_cuda(cudaEventElapsedTime(&elapsed, start, stop), "cudaEventElapsedTime");
    if (run > 0) ms.push_back(elapsed);
  }
  return 2.0 * static_cast<double>(kCopyBytes) / (runner::median(ms) * 1e6);
}

void fill_probe(GpuProbe& probe, int device, const std::optional<GpuProbeCache>& cache) {
  try {
    cudaDriverGetVersion(&probe.driver_version);
    cudaRuntimeGetVersion(&probe.runtime_version);
    const cudaError_t counted = cudaGetDeviceCount(&probe.count);
    if (counted != cudaSuccess) {
      probe.count = 0;
      store_text(probe.note, std::string("cudaGetDeviceCount: ") + cudaGetErrorName(counted) + " (" +
                                 cudaGetErrorString(counted) + ")");
    } else if (device >= probe.count) {
      store_text(probe.note,
                 "device " + std::to_string(device) + " asked for, " + std::to_string(probe.count) + " present");
      probe.count = 0;
    } else if (cache && take_from_cache(probe, device, *cache)) {
      probe.measured = 1;
    } else {
      check_cuda(cudaSetDevice(device), "cudaSetDevice");
      cudaDeviceProp properties{};
      check_cuda(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
      store_text(probe.name, properties.name);
      store_text(probe.gpu_key, gpu_key(properties));
      probe.copy_gbps = copy_bandwidth_gbps();
      probe.measured = 1;
    }
  } catch (const std::exception& e) {
    store_text(probe.note, e.what());
  }
  probe.done.store(1, std::memory_order_release);
}

}  // namespace

GpuInfo probe_gpu(int device, double timeout_s, const std::filesystem::path& log,
                  const std::optional<std::filesystem::path>& cache) {
  const std::optional<GpuProbeCache> cached = cache ? read_gpu_probe_cache(*cache) : std::nullopt;
  SharedRegion region(sizeof(GpuProbe));
  auto* probe = new (region.data()) GpuProbe();
  const ChildExit exit = run_isolated([&] { fill_probe(*probe, device, cached); }, timeout_s, log);
  GpuInfo info;
  if (probe->done.load(std::memory_order_acquire) == 0) {
    info.note = "the GPU check " + describe_exit(exit, timeout_s);
    return info;
  }
  info.count = probe->count;
  info.name = probe->name;
  info.key = probe->gpu_key;
  const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (probe->driver_version > 0) info.driver = "CUDA driver API " + version(probe->driver_version);
  if (probe->runtime_version > 0) info.toolkit = "CUDA runtime " + version(probe->runtime_version);
  info.note = probe->note;
  if (probe->measured != 0) info.copy_gbps = probe->copy_gbps;
  if (cache && probe->measured != 0 && probe->from_cache == 0) {
    try {
      write_gpu_probe_cache(*cache, {probe->gpu_key, probe->copy_gbps});
    } catch (const std::runtime_error&) {
      // Only the next run's time is lost: it measures again.
    }
  }
  return info;
}

}  // namespace spmv::grade
