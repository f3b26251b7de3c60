#include "probe.hpp"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "channel.hpp"
#include "json.hpp"
#include "process.hpp"
#include "spmv/plugin/plugin.hpp"

namespace spmv::grade {
namespace {

constexpr int kMaxProbedKernels = 64;

struct ProbedKernel {
  char name[64];
  std::int32_t format;
  char description[160];
};

struct PluginProbe {
  std::atomic<std::int32_t> done{0};
  std::int32_t loaded = 0;
  std::int32_t memory = 0;
  std::int32_t kernel_count = 0;
  char name[64] = {};
  char error[2048] = {};
  ProbedKernel kernels[kMaxProbedKernels] = {};
};

void fill_probe(PluginProbe& probe, const std::filesystem::path& path, bool forbid_vendor_libraries) {
  try {
    // Kept loaded until the child ends: unloading runs more plugin code.
    auto* plugin = new Plugin(Plugin::load(path, {.forbid_vendor_libraries = forbid_vendor_libraries}));
    store_text(probe.name, plugin->name());
    probe.memory = plugin->memory();
    const auto kernels = plugin->kernels();
    if (kernels.size() > kMaxProbedKernels) {
      store_text(probe.error, "the plugin has " + std::to_string(kernels.size()) + " kernels; at most " +
                                  std::to_string(kMaxProbedKernels) + " are supported");
    } else {
      for (const auto* kernel : kernels) {
        ProbedKernel& entry = probe.kernels[probe.kernel_count++];
        store_text(entry.name, kernel->name);
        entry.format = kernel->format;
        store_text(entry.description, kernel->description != nullptr ? kernel->description : "");
      }
      probe.loaded = 1;
    }
  } catch (const std::exception& e) {
    store_text(probe.error, e.what());
  }
  probe.done.store(1, std::memory_order_release);
}

}  // namespace

const KernelInfo* PluginInfo::find(const std::string& kernel) const {
  for (const auto& info : kernels) {
    if (info.name == kernel) return &info;
  }
  return nullptr;
}

std::string PluginInfo::kernel_names() const {
  std::string names;
  for (const auto& info : kernels) names += (names.empty() ? "" : ", ") + info.name;
  return names.empty() ? "none" : names;
}

std::optional<GpuProbeCache> read_gpu_probe_cache(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) return std::nullopt;
  std::ostringstream text;
  text << stream.rdbuf();
  try {
    const JsonValue document = parse_json(text.str());
    GpuProbeCache cache{document.at("gpu").as_string(), document.at("copy_gbps").as_number()};
    if (cache.gpu_key.empty() || !std::isfinite(cache.copy_gbps) || cache.copy_gbps <= 0) return std::nullopt;
    return cache;
  } catch (const JsonError&) {
    return std::nullopt;
  }
}

void write_gpu_probe_cache(const std::filesystem::path& file, const GpuProbeCache& cache) {
  JsonWriter json(0);
  json.begin_object().field("gpu", cache.gpu_key).field("copy_gbps", cache.copy_gbps).end_object();
  // Named after this process: two graders writing at once each rename a
  // whole file of their own.
  auto temporary = file;
  temporary += ".tmp." + std::to_string(::getpid());
  if (file.has_parent_path()) {
    std::error_code ignored;  // if it cannot be made, opening the file says so
    std::filesystem::create_directories(file.parent_path(), ignored);
  }
  {
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    stream << json.str() << '\n';
    stream.flush();
    if (!stream) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw std::runtime_error(temporary.string() + ": cannot write");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(file.string() + ": cannot replace: " + error.message());
  }
}

PluginInfo probe_plugin(const std::filesystem::path& plugin, bool forbid_vendor_libraries, double timeout_s,
                        const std::filesystem::path& log) {
  SharedRegion region(sizeof(PluginProbe));
  auto* probe = new (region.data()) PluginProbe();
  const ChildExit exit =
      run_isolated([&] { fill_probe(*probe, plugin, forbid_vendor_libraries); }, timeout_s, log);

  PluginInfo info;
  info.path = plugin;
  if (probe->done.load(std::memory_order_acquire) == 0) {
    info.error = plugin.string() + ": loading the plugin " + describe_exit(exit, timeout_s);
    return info;
  }
  info.loaded = probe->loaded != 0;
  info.error = probe->error;
  info.name = probe->name;
  info.memory = static_cast<spmv_memory_space>(probe->memory);
  for (int k = 0; k < probe->kernel_count; ++k) {
    const ProbedKernel& kernel = probe->kernels[k];
    info.kernels.push_back({kernel.name, static_cast<spmv_format>(kernel.format), kernel.description});
  }
  return info;
}

}  // namespace spmv::grade
