#include "launch_recorder.hpp"

#include <cupti.h>
#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>

namespace spmv::runner {

// The kernel record of the CUPTI this is built with. Versions 9 and 10 keep
// the fields read here at the same offsets; CUPTI fills the version of its
// own release, which is the one linked.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif

namespace {

static_assert(std::endian::native == std::endian::little, "ELF files are read as little-endian");

// A cubin's symbol flag for entry functions (kernels), in st_other.
constexpr unsigned char kCudaEntryFlag = 0x10;
// Big enough for a few thousand kernel records; CUPTI asks for more as needed.
// CUPTI asks for a buffer whenever it has handed the last one back (every
// forced flush does), so possibly inside a timed window: buffers come from a
// pool touched once when the recorder starts, so that no request there costs
// an allocation or page faults.
constexpr std::size_t kBufferBytes = std::size_t{64} << 10;
constexpr std::size_t kBufferAlignment = 8;
constexpr int kBuffersAhead = 8;

// The plain-old-data struct at `offset` of `bytes`, if it fits.
template <typename T>
bool read_at(std::span<const unsigned char> bytes, std::uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// Calls visit(name, symbol) for every named symbol of every section of type
// `section_type`. Untrusted bytes: whatever does not fit is skipped.
template <typename Visit>
void for_each_symbol(std::span<const unsigned char> bytes, std::uint32_t section_type, Visit visit) {
  Elf64_Ehdr header{};
  if (!read_at(bytes, 0, header)) return;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_shentsize != sizeof(Elf64_Shdr)) {
    return;
  }
  const auto section = [&](std::uint32_t index, Elf64_Shdr& out) {
    return index < header.e_shnum && read_at(bytes, header.e_shoff + std::uint64_t{index} * sizeof(Elf64_Shdr), out);
  };
  for (std::uint32_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr symbols{};
    Elf64_Shdr strings{};
    if (!section(i, symbols) || symbols.sh_type != section_type) continue;
    if (!section(symbols.sh_link, strings) || strings.sh_type != SHT_STRTAB) continue;
    if (strings.sh_offset > bytes.size() || bytes.size() - strings.sh_offset < strings.sh_size) continue;
    const std::string_view table(reinterpret_cast<const char*>(bytes.data() + strings.sh_offset),
                                 static_cast<std::size_t>(strings.sh_size));
    const std::uint64_t count = symbols.sh_size / sizeof(Elf64_Sym);
    for (std::uint64_t s = 1; s < count; ++s) {  // symbol 0 is the null symbol
      Elf64_Sym symbol{};
      if (!read_at(bytes, symbols.sh_offset + s * sizeof(Elf64_Sym), symbol)) break;
      if (symbol.st_name == 0 || symbol.st_name >= table.size()) continue;
      const std::string_view rest = table.substr(symbol.st_name);
      const std::size_t end = rest.find('\0');
      if (end == std::string_view::npos || end == 0) continue;  // runs off the table, or empty
      visit(rest.substr(0, end), symbol);
    }
  }
}

std::string result_text(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  return text;
}

}  // namespace

const char* origin_name(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::kPlugin: return "plugin";
    case KernelOrigin::kRunner: return "runner";
    case KernelOrigin::kForeign: return "foreign";
  }
  return "unknown";
}

std::string canonical_kernel_name(const std::string& name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) {
    std::free(demangled);
    return name;  // not a mangled name: C linkage, or already demangled
  }
  std::string result(demangled);
  std::free(demangled);
  return result;
}

bool is_vendor_kernel_name(const std::string& name) {
  // cuSPARSE's kernels live in namespace cusparse, cuBLAS's and cuBLASLt's
  // carry cublas in their name or in their parameter types
  // (cublasGemvParamsEx, ...), cuSOLVER's cusolver; mangled names keep these
  // words as they are.
  for (const std::string_view word : {"cusparse", "cublas", "cusolver"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> plugin_file_names(std::span<const unsigned char> file) {
  std::set<std::string> names;
  for (const std::uint32_t type : std::array<std::uint32_t, 2>{SHT_SYMTAB, SHT_DYNSYM}) {
    for_each_symbol(file, type, [&](std::string_view name, const Elf64_Sym& symbol) {
      const unsigned kind = ELF64_ST_TYPE(symbol.st_info);
      if ((kind == STT_FUNC || kind == STT_GNU_IFUNC) && symbol.st_shndx != SHN_UNDEF) {
        names.insert(canonical_kernel_name(std::string(name)));
      }
    });
  }
  // Whole C strings that are mangled names: among them the device names the
  // file's host code registers its kernels under (and, where the fat binary
  // is not compressed, its cubins' own names).
  const auto is_name_char = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '$';
  };
  for (std::size_t i = 0; i + 2 < file.size(); ++i) {
    if (file[i] != '_' || file[i + 1] != 'Z' || (i > 0 && file[i - 1] != '\0')) continue;
    std::size_t end = i + 2;
    while (end < file.size() && is_name_char(file[end])) ++end;
    if (end < file.size() && file[end] == '\0') {
      names.insert(canonical_kernel_name(std::string(reinterpret_cast<const char*>(file.data() + i), end - i)));
    }
    i = end;
  }
  return {names.begin(), names.end()};
}

std::vector<std::string> cubin_kernel_names(const unsigned char* cubin, std::size_t bytes) {
  std::set<std::string> entries;
  std::set<std::string> functions;
  if (cubin == nullptr) return {};
  for_each_symbol({cubin, bytes}, SHT_SYMTAB, [&](std::string_view name, const Elf64_Sym& symbol) {
    if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF) return;
    const std::string canonical = canonical_kernel_name(std::string(name));
    if ((symbol.st_other & kCudaEntryFlag) != 0) entries.insert(canonical);
    functions.insert(canonical);
  });
  // A cubin whose entries are not flagged as this toolkit's are: all its functions.
  const std::set<std::string>& chosen = entries.empty() ? functions : entries;
  return {chosen.begin(), chosen.end()};
}

// Everything CUPTI's callbacks touch. One mutex guards it all: CUPTI calls
// the buffer callback from its own thread, the module callback from the
// thread that loads a module.
struct LaunchRecorder::State {
  enum class ModuleOrigin { kRunner, kPlugin, kForeign };
  struct Module {
    ModuleOrigin origin = ModuleOrigin::kRunner;
    std::vector<std::string> kernels;  // canonical names
  };
  struct Raw {
    std::string name;
    std::uint64_t start = 0, end = 0;
    std::uint32_t stream = 0, correlation = 0;
  };

  std::mutex mutex;
  bool available = false;
  std::string note;  // why not available, or what limits the recording
  CUpti_SubscriberHandle subscriber = nullptr;
  bool activity_enabled = false;

  bool plugin_coming = false;          // plugin_loading() was called: modules from now on are told by name
  std::set<std::string> plugin_names;  // canonical names the plugin file holds
  bool plugin_names_known = false;
  std::map<std::uint32_t, Module> modules;
  std::map<std::string, std::vector<std::uint32_t>> defined_by;  // canonical kernel name -> module ids

  bool watching_calls = false;
  std::string failed_call;  // the first runtime or driver call that failed while watching

  bool collecting = false;
  std::uint64_t window_start = 0;
  std::vector<Raw> window_records;

  ModuleOrigin origin_of(const Module& module) const {
    if (!plugin_coming) return ModuleOrigin::kRunner;
    const bool shares_a_name = std::any_of(module.kernels.begin(), module.kernels.end(),
                                           [&](const std::string& name) { return plugin_names.contains(name); });
    return shares_a_name ? ModuleOrigin::kPlugin : ModuleOrigin::kForeign;
  }

  void module_loaded(std::uint32_t id, const unsigned char* cubin, std::size_t bytes) {
    Module module;
    module.kernels = cubin_kernel_names(cubin, bytes);
    const std::lock_guard lock(mutex);
    module.origin = origin_of(module);
    for (const std::string& name : module.kernels) defined_by[name].push_back(id);
    modules[id] = std::move(module);
  }

  void take_buffer(std::uint8_t* buffer, std::size_t valid) {
    const std::lock_guard lock(mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (!collecting) continue;
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
      const auto* kernel = reinterpret_cast<const KernelRecord*>(record);
      Raw raw;
      raw.name = kernel->name != nullptr ? kernel->name : "";
      raw.start = kernel->start;
      raw.end = kernel->end;
      // Children launched from the device end before their parent completes.
      // (completed is 0, CUPTI_TIMESTAMP_UNKNOWN, when CUPTI has none.)
      if (kernel->completed > raw.end) raw.end = kernel->completed;
      raw.stream = kernel->streamId;
      raw.correlation = kernel->correlationId;
      // A kernel that ended before the window opened (one the runner ran
      // before begin(), delivered late) is not the launch's.
      if (raw.end != 0 && raw.end < window_start) continue;
      window_records.push_back(std::move(raw));
    }
  }

  // The module a kernel of that name came from, and whose it is.
  std::pair<std::uint32_t, KernelOrigin> classify(const std::string& name) const {
    const std::string canonical = canonical_kernel_name(name);
    std::uint32_t foreign_module = 0, other_module = 0;
    bool in_foreign_module = false, in_runner_module = false;
    if (const auto found = defined_by.find(canonical); found != defined_by.end()) {
      for (const std::uint32_t id : found->second) {
        const ModuleOrigin origin = modules.at(id).origin;
        if (origin == ModuleOrigin::kForeign) {
          in_foreign_module = true;
          foreign_module = id;
        } else {
          other_module = id;
          in_runner_module = in_runner_module || origin == ModuleOrigin::kRunner;
        }
      }
    }
    const std::uint32_t module_id = in_foreign_module ? foreign_module : other_module;
    if (is_vendor_kernel_name(name) || is_vendor_kernel_name(canonical)) return {module_id, KernelOrigin::kForeign};
    // Without the plugin's names nothing else can be told: the note says so.
    if (!plugin_names_known) return {module_id, KernelOrigin::kPlugin};
    if (in_foreign_module) return {module_id, KernelOrigin::kForeign};
    if (plugin_names.contains(canonical)) return {module_id, KernelOrigin::kPlugin};
    if (in_runner_module) return {module_id, KernelOrigin::kRunner};
    return {module_id, KernelOrigin::kForeign};
  }
};

namespace {

// CUPTI's buffer callbacks take no user data: the one recorder of the process.
std::mutex g_active_mutex;
LaunchRecorder::State* g_active = nullptr;

// Record buffers already in memory, for CUPTI to take without a page fault.
class BufferPool {
 public:
  void fill(int count) {
    for (int k = 0; k < count; ++k) {
      std::uint8_t* buffer = allocate();
      if (buffer == nullptr) return;
      give_back(buffer);
    }
  }
  std::uint8_t* take() {
    {
      const std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        std::uint8_t* buffer = free_.back();
        free_.pop_back();
        return buffer;
      }
    }
    return allocate();
  }
  void give_back(std::uint8_t* buffer) {
    const std::lock_guard lock(mutex_);
    free_.push_back(buffer);
  }

 private:
  static std::uint8_t* allocate() {
    auto* buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    if (buffer != nullptr) std::memset(buffer, 0, kBufferBytes);  // its pages faulted in now
    return buffer;
  }
  std::mutex mutex_;
  std::vector<std::uint8_t*> free_;
};

BufferPool& buffer_pool() {
  static auto* pool = new BufferPool;  // CUPTI may hand buffers back at exit: never destroyed
  return *pool;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = buffer_pool().take();
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  if (buffer == nullptr) return;
  {
    const std::lock_guard lock(g_active_mutex);
    if (g_active != nullptr) g_active->take_buffer(buffer, valid);
  }
  buffer_pool().give_back(buffer);
}

// A runtime or driver call that returned an error while calls are watched
// (the capture of a burst): its name, the first one kept. The calls that
// only read an earlier error back are not the call that failed.
void note_failed_call(LaunchRecorder::State& s, const CUpti_CallbackData& call) {
  if (call.callbackSite != CUPTI_API_EXIT || call.functionReturnValue == nullptr || call.functionName == nullptr)
    return;
  // cudaError_t and CUresult alike: an int-sized enum, 0 for success.
  const bool failed = *static_cast<const int*>(call.functionReturnValue) != 0;
  const std::string_view name = call.functionName;
  if (!failed || name.find("GetLastError") != std::string_view::npos ||
      name.find("PeekAtLastError") != std::string_view::npos || name.find("GetErrorName") != std::string_view::npos ||
      name.find("StreamEndCapture") != std::string_view::npos ||
      name.find("GetErrorString") != std::string_view::npos) {
    return;
  }
  const std::lock_guard lock(s.mutex);
  if (s.watching_calls && s.failed_call.empty()) s.failed_call = std::string(name);
}

void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) && data != nullptr) {
    note_failed_call(*static_cast<LaunchRecorder::State*>(userdata), *static_cast<const CUpti_CallbackData*>(data));
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_MODULE_LOADED || data == nullptr) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (module == nullptr) return;
  static_cast<LaunchRecorder::State*>(userdata)->module_loaded(
      module->moduleId, reinterpret_cast<const unsigned char*>(module->pCubin), module->cubinSize);
}

std::vector<unsigned char> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

LaunchRecorder::LaunchRecorder() : state_(std::make_unique<State>()) {
  State& s = *state_;
  {
    const std::lock_guard lock(g_active_mutex);
    if (g_active != nullptr) {
      s.note = "launch records off: another LaunchRecorder is active in this process";
      return;
    }
    g_active = &s;
  }
  // Each step in turn; the first that fails leaves the recorder off and says why.
  const auto step = [&](const char* what, CUptiResult result) {
    if (result == CUPTI_SUCCESS) return true;
    s.note = std::string("launch records off: ") + what + " failed: " + result_text(result);
    return false;
  };
  buffer_pool().fill(kBuffersAhead);
  if (!step("cuptiSubscribe", cuptiSubscribe(&s.subscriber, on_callback, &s))) {
    s.subscriber = nullptr;
    return;
  }
  if (!step("enabling CUPTI's module callback",
            cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED)) ||
      !step("cuptiActivityRegisterCallbacks", cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) ||
      !step("enabling CUPTI's concurrent-kernel records", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))) {
    return;
  }
  s.activity_enabled = true;
  s.available = true;
}

LaunchRecorder::~LaunchRecorder() {
  State& s = *state_;
  if (s.activity_enabled) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // hands back CUPTI's buffers
  }
  if (s.subscriber != nullptr) cuptiUnsubscribe(s.subscriber);
  const std::lock_guard lock(g_active_mutex);
  if (g_active == &s) g_active = nullptr;
}

void LaunchRecorder::set_recording(bool on) {
  State& s = *state_;
  if (!s.activity_enabled) return;
  if (on) {
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  } else {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }
}

void LaunchRecorder::watch_calls(bool on) {
  State& s = *state_;
  if (s.subscriber == nullptr) return;
  {
    const std::lock_guard lock(s.mutex);
    s.watching_calls = on;
    if (on) s.failed_call.clear();
  }
  cuptiEnableDomain(on ? 1 : 0, s.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(on ? 1 : 0, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
}

std::string LaunchRecorder::failed_call() const {
  const std::lock_guard lock(state_->mutex);
  return state_->failed_call;
}

bool LaunchRecorder::available() const {
  const std::lock_guard lock(state_->mutex);
  return state_->available;
}

std::string LaunchRecorder::note() const {
  const std::lock_guard lock(state_->mutex);
  return state_->note;
}

void LaunchRecorder::plugin_loading(const std::filesystem::path& plugin_file) {
  // Read before taking the lock: the module callback must not wait on a file.
  const std::vector<unsigned char> file = read_file(plugin_file);
  const std::vector<std::string> names = plugin_file_names(file);
  State& s = *state_;
  const std::lock_guard lock(s.mutex);
  s.plugin_names = {names.begin(), names.end()};
  s.plugin_names_known = !names.empty();
  s.plugin_coming = true;
  if (!s.plugin_names_known && s.available) {
    s.note = "the plugin file holds no names: its kernels cannot be told from others";
  }
}

void LaunchRecorder::begin() {
  State& s = *state_;
  if (!available()) return;
  // Records of what ran before (the runner's fill kernels) are told by
  // their end, before the window's start. No flush here: a forced flush
  // right before the timed launch held the launch back by about 0.24 ms on
  // the H100 (CUDA events around a 4x4 product: 0.24 ms; its kernel: 1.5 us).
  std::uint64_t now = 0;
  cuptiGetTimestamp(&now);
  const std::lock_guard lock(s.mutex);
  s.window_records.clear();
  s.window_start = now;
  s.collecting = true;
}

LaunchRecording LaunchRecorder::end() {
  State& s = *state_;
  LaunchRecording recording;
  if (!available()) {
    recording.note = note();
    return recording;
  }
  const CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const std::lock_guard lock(s.mutex);
  s.collecting = false;
  std::vector<State::Raw> raw = std::move(s.window_records);
  s.window_records.clear();
  recording.recorded = true;
  recording.note = s.note;
  const auto add_note = [&](const std::string& text) { recording.note += (recording.note.empty() ? "" : "; ") + text; };
  if (flushed != CUPTI_SUCCESS) {
    add_note("flushing CUPTI's records failed (" + result_text(flushed) + "): some may be missing");
  }
  std::stable_sort(raw.begin(), raw.end(), [](const State::Raw& a, const State::Raw& b) { return a.start < b.start; });
  std::size_t without_time = 0;
  for (State::Raw& r : raw) {
    KernelLaunch launch;
    std::tie(launch.module_id, launch.origin) = s.classify(r.name);
    launch.name = std::move(r.name);
    launch.start_ns = r.start;
    launch.end_ns = r.end;
    launch.stream_id = r.stream;
    launch.correlation_id = r.correlation;
    if (launch.start_ns == 0 && launch.end_ns == 0) ++without_time;
    if (launch.origin == KernelOrigin::kForeign && recording.foreign_kernel.empty()) {
      recording.foreign_kernel = launch.name.empty() ? "(unnamed kernel)" : canonical_kernel_name(launch.name);
    }
    recording.kernels.push_back(std::move(launch));
  }
  // The runner's own kernels (the timing gate holding the stream, the
  // stand-in of a launch-free round trip) are no work of the launch.
  recording.span_ms =
      kernel_span_ms(recording.kernels, [](const KernelLaunch& k) { return k.origin != KernelOrigin::kRunner; });
  if (without_time > 0) {
    add_note(std::to_string(without_time) + " of " + std::to_string(recording.kernels.size()) +
             " kernels came without timestamps: the span leaves them out");
  }
  return recording;
}

double kernel_span_ms(const std::vector<KernelLaunch>& kernels,
                      const std::function<bool(const KernelLaunch&)>& counts) {
  std::uint64_t first = 0, last = 0;
  for (const KernelLaunch& launch : kernels) {
    if ((launch.start_ns == 0 && launch.end_ns == 0) || !counts(launch)) continue;
    first = first == 0 ? launch.start_ns : std::min(first, launch.start_ns);
    last = std::max(last, launch.end_ns);
  }
  return last > first ? static_cast<double>(last - first) / 1e6 : 0;
}

}  // namespace spmv::runner
