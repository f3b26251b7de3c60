// What the grader needs to know before grading, found out in other
// processes so that the grader itself never runs plugin code or starts CUDA:
// a plugin's table (loaded in a runner in its sandbox: its constructors run
// there; a plugin that crashes or hangs while loading costs nothing) and the
// GPU (in a forked child of the grader: trusted code only).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runners/runner_client.hpp"
#include "spmv/contract/plugin.h"

namespace spmv::grade {

struct KernelInfo {
  std::string name;
  spmv_format format = SPMV_FORMAT_CSR;
  std::string description;
};

struct PluginInfo {
  std::filesystem::path path;
  bool loaded = false;
  std::string error;  // why it could not be loaded
  std::string name;
  spmv_memory_space memory = SPMV_MEMORY_DEVICE;
  std::vector<KernelInfo> kernels;
  [[nodiscard]] const KernelInfo* find(const std::string& kernel) const;
  [[nodiscard]] std::string kernel_names() const;  // "coo, csr_scalar, ..."
};

struct GpuInfo {
  int count = 0;
  std::string name;
  std::optional<double> copy_gbps;  // device-to-device copy, bytes read + written
  std::string note;                 // why there is no GPU, or no bandwidth figure
  std::string driver, toolkit;      // "CUDA driver API 13.0", "CUDA runtime 13.0"
  std::string key;                  // what tells this GPU from others: name, UUID, PCI address
};

// `spec` names the runner (spmv-runner for submissions, whose vendor
// libraries are refused; spmv-reference-runner for the reference) and the
// plugin; its space is set to "probe" here.
PluginInfo probe_plugin(RunnerSpec spec, double timeout_s);

// With `cache` (CTest mode, where every row is a run of its own), the copy
// bandwidth measured by an earlier run on the same GPU is read from that
// file instead of measured again, and a fresh measurement is written to it.
GpuInfo probe_gpu(int device, double timeout_s, const std::filesystem::path& log,
                  const std::optional<std::filesystem::path>& cache = std::nullopt);

// The GPU check's measurement as kept between runs: valid only for the GPU
// whose key (name, UUID and PCI address) it names.
struct GpuProbeCache {
  std::string gpu_key;
  double copy_gbps = 0;
};

// nullopt if the file is missing, unreadable or not a valid cache.
std::optional<GpuProbeCache> read_gpu_probe_cache(const std::filesystem::path& file);
// Written to a temporary file of this process, then renamed over `file`, so
// a reader never sees half of it. Throws std::runtime_error naming the file.
void write_gpu_probe_cache(const std::filesystem::path& file, const GpuProbeCache& cache);

}  // namespace spmv::grade
