#include "runners/probe.hpp"

#include <atomic>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "model/json.hpp"
#include "runners/process.hpp"
#include "spmv/core/atomic_file.hpp"
#include "spmv/plugin/plugin.hpp"
#include "spmv/runner/protocol.hpp"

namespace spmv::grade {

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
    const Json document = parse_json(text.str());
    GpuProbeCache cache{json_as_string(json_member(document, "gpu")),
                        json_as_number(json_member(document, "copy_gbps"))};
    if (cache.gpu_key.empty() || !std::isfinite(cache.copy_gbps) || cache.copy_gbps <= 0) return std::nullopt;
    return cache;
  } catch (const JsonError&) {
    return std::nullopt;
  }
}

void write_gpu_probe_cache(const std::filesystem::path& file, const GpuProbeCache& cache) {
  Json json = Json::object();
  json["gpu"] = cache.gpu_key;
  json["copy_gbps"] = json_number(cache.copy_gbps);
  if (file.has_parent_path()) {
    std::error_code ignored;  // if it cannot be made, writing the file says so
    std::filesystem::create_directories(file.parent_path(), ignored);
  }
  write_file_atomically(file, json_text(json, 0) + "\n");
}

PluginInfo probe_plugin(RunnerSpec spec, double timeout_s) {
  PluginInfo info;
  info.path = spec.plugin;
  spec.space = "probe";
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  Runner runner(spec);
  runner::Request hello;
  hello.command = runner::Command::kHello;
  const auto ready = runner.call(hello, deadline);
  if (!ready || ready->kind != runner::ReplyKind::kOk) {
    info.error = spec.plugin.string() + ": the runner did not start: " +
                 (ready ? runner::read_text(ready->message) : std::string("it ended or did not answer"));
    return info;
  }
  runner::Request load;
  load.command = runner::Command::kLoad;
  const auto loaded = runner.call(load, deadline);
  if (!loaded) {
    const RunnerEnd end = runner.end();
    std::string how = "ended";
    if (end.kind == RunnerEnd::Kind::kSignaled) how = "was killed by " + describe_signal(end.signal);
    if (end.kind == RunnerEnd::Kind::kExited) how = "exited with status " + std::to_string(end.code);
    if (end.kind == RunnerEnd::Kind::kTimedOut)
      how = "did not finish loading within " + std::to_string(static_cast<int>(timeout_s)) + " s";
    info.error = spec.plugin.string() + ": loading the plugin " + how;
    return info;
  }
  if (loaded->kind != runner::ReplyKind::kOk) {
    info.error = runner::read_text(loaded->message);
    return info;
  }
  info.loaded = true;
  info.name = runner::read_text(loaded->plugin_name);
  info.memory = static_cast<spmv_memory_space>(loaded->memory);
  for (int k = 0; k < loaded->kernel_count && k < static_cast<int>(runner::kMaxKernels); ++k) {
    const runner::KernelEntry& kernel = loaded->kernels[k];
    info.kernels.push_back({runner::read_text(kernel.name), static_cast<spmv_format>(kernel.format),
                            runner::read_text(kernel.description)});
  }
  return info;
}

}  // namespace spmv::grade
