#include "spmv/plugin/plugin.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elf_image.hpp"
#include "spmv/core/format_table.hpp"

namespace spmv {
namespace {

// Larger than any plausible kernel module (a fat binary for every GPU
// architecture is a few tens of MB); refusing keeps a wrong path from
// reading gigabytes into memory.
constexpr std::uintmax_t kMaxPluginBytes = std::uintmax_t{1} << 30;
// A table claiming more kernels is garbage: a course plugin has six.
constexpr std::uint32_t kMaxKernels = 1024;

constexpr std::string_view kVendorRefusal =
    "submissions must implement SpMV themselves; this vendor library is not allowed (the policy's [libraries] "
    "forbidden)";

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw PluginError(path.string() + ": " + what);
}

std::string in_quotes(std::string_view text) {
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted.append(1, '"').append(text).append(1, '"');
  return quoted;
}

std::vector<unsigned char> read_plugin_file(const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) fail(path, "no such file");
  if (!std::filesystem::is_regular_file(status)) fail(path, "not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) fail(path, "cannot read its size: " + error.message());
  if (size > kMaxPluginBytes) fail(path, std::to_string(size) + " bytes: too large to be a kernel plugin");

  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    fail(path, "cannot be read");
  }
  return bytes;
}

detail::ElfDynamicInfo inspect(const std::filesystem::path& path) {
  const std::vector<unsigned char> bytes = read_plugin_file(path);
  try {
    return detail::read_elf_dynamic(bytes);
  } catch (const detail::ElfFormatError& error) {
    fail(path, std::string("not a 64-bit ELF shared object: ") + error.what());
  }
}

// libcublasLt is covered by the libcublas prefix, cublasLt* by cublas.
void refuse_vendor_dependencies(const std::filesystem::path& path, const detail::ElfDynamicInfo& elf,
                                const std::vector<std::string>& forbidden) {
  for (const std::string& name : forbidden) {
    for (const std::string& library : elf.needed) {
      if (library.starts_with("lib" + name)) fail(path, "links " + library + ": " + std::string(kVendorRefusal));
    }
    for (const std::string& symbol : elf.imported_symbols) {
      if (symbol.starts_with(name)) fail(path, "imports " + symbol + ": " + std::string(kVendorRefusal));
    }
  }
}

struct ModuleCloser {
  void operator()(void* handle) const { dlclose(handle); }
};
using ModuleHandle = std::unique_ptr<void, ModuleCloser>;

ModuleHandle open_module(const std::filesystem::path& path) {
  // An absolute path keeps dlopen() from searching the library path for a
  // bare file name.
  const std::string absolute = std::filesystem::absolute(path).string();
  ModuleHandle handle(dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!handle) {
    const char* reason = dlerror();
    fail(path, std::string("cannot be loaded: ") + (reason != nullptr ? reason : "unknown dlopen() error"));
  }
  return handle;
}

const spmv_plugin* find_table(const std::filesystem::path& path, void* handle) {
  dlerror();  // clear a stale error so a null symbol is told from a failure
  void* symbol = dlsym(handle, SPMV_PLUGIN_ENTRY_NAME);
  if (symbol == nullptr) {
    fail(path, std::string("no entry point ") + SPMV_PLUGIN_ENTRY_NAME + ": not built as an SpMV plugin");
  }
  // POSIX guarantees a data pointer from dlsym() converts to a function pointer.
  const auto entry = reinterpret_cast<spmv_plugin_entry_fn>(symbol);
  const spmv_plugin* table = entry();
  if (table == nullptr) fail(path, std::string(SPMV_PLUGIN_ENTRY_NAME) + " returned a null plugin table");
  return table;
}

// The integer stored in an enum field of the table. A plugin (C, or
// corrupted) may hold any int there; reading it as int keeps the checks
// meaningful whatever the compiler assumes about an enum's range.
template <typename Enum>
int stored_value(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int));
  int value = 0;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

bool is_known_format(const spmv_format& format) { return is_format_id(stored_value(format)); }

void validate_kernel(const std::filesystem::path& path, const spmv_kernel_entry& kernel, std::uint32_t index) {
  const std::string entry = "kernel entry " + std::to_string(index);
  if (kernel.name == nullptr || kernel.name[0] == '\0') fail(path, entry + " has no name");
  const std::string named = "kernel " + in_quotes(kernel.name) + " (entry " + std::to_string(index) + ")";
  if (!is_known_format(kernel.format)) {
    fail(path, named + " has unknown format " + std::to_string(stored_value(kernel.format)));
  }
  if (kernel.launch == nullptr) fail(path, named + " has a null launch function");
}

void validate_kernels(const std::filesystem::path& path, const spmv_plugin& table) {
  if (table.kernel_count == 0) fail(path, "the plugin table lists no kernels");
  if (table.kernel_count > kMaxKernels) {
    fail(path, "kernel_count " + std::to_string(table.kernel_count) + " is implausible (at most " +
                   std::to_string(kMaxKernels) + ")");
  }
  if (table.kernels == nullptr) {
    fail(path, "kernel_count is " + std::to_string(table.kernel_count) + " but the kernel array is null");
  }
  for (std::uint32_t i = 0; i < table.kernel_count; ++i) {
    validate_kernel(path, table.kernels[i], i);
    for (std::uint32_t earlier = 0; earlier < i; ++earlier) {
      if (std::strcmp(table.kernels[earlier].name, table.kernels[i].name) == 0) {
        fail(path, "kernel name " + in_quotes(table.kernels[i].name) + " appears twice (entries " +
                       std::to_string(earlier) + " and " + std::to_string(i) + ")");
      }
    }
  }
}

// The layout past abi_version is only known once the version matches.
void validate_table(const std::filesystem::path& path, const spmv_plugin& table) {
  if (table.abi_version != SPMV_PLUGIN_ABI_VERSION) {
    fail(path, "built for ABI version " + std::to_string(table.abi_version) + ", this grader speaks version " +
                   std::to_string(SPMV_PLUGIN_ABI_VERSION) + ": rebuild the plugin");
  }
  if (table.name == nullptr || table.name[0] == '\0') fail(path, "the plugin table has no name");
  const int memory = stored_value(table.memory);
  if (memory != SPMV_MEMORY_DEVICE && memory != SPMV_MEMORY_HOST) {
    fail(path,
         "memory space " + std::to_string(memory) + " is neither SPMV_MEMORY_DEVICE (0) nor SPMV_MEMORY_HOST (1)");
  }
  validate_kernels(path, table);
}

}  // namespace

std::vector<std::string> needed_libraries(const std::filesystem::path& path) { return inspect(path).needed; }

const char* format_name(spmv_format format) { return format_id_name(static_cast<int>(format)); }

Plugin Plugin::load(const std::filesystem::path& path, const PluginLoadOptions& options) {
  const detail::ElfDynamicInfo elf = inspect(path);
  if (options.forbid_vendor_libraries) refuse_vendor_dependencies(path, elf, options.forbidden_libraries);
  ModuleHandle handle = open_module(path);
  const spmv_plugin* table = find_table(path, handle.get());
  validate_table(path, *table);
  return Plugin(path, handle.release(), table);
}

Plugin::Plugin(std::filesystem::path path, void* handle, const spmv_plugin* table)
    : path_(std::move(path)), handle_(handle), table_(table) {}

Plugin::Plugin(Plugin&& other) noexcept
    : path_(std::move(other.path_)),
      handle_(std::exchange(other.handle_, nullptr)),
      table_(std::exchange(other.table_, nullptr)) {}

Plugin& Plugin::operator=(Plugin&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    path_ = std::move(other.path_);
    handle_ = std::exchange(other.handle_, nullptr);
    table_ = std::exchange(other.table_, nullptr);
  }
  return *this;
}

Plugin::~Plugin() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::vector<const spmv_kernel_entry*> Plugin::kernels() const {
  std::vector<const spmv_kernel_entry*> entries;
  for (std::uint32_t i = 0; i < table_->kernel_count; ++i) entries.push_back(&table_->kernels[i]);
  return entries;
}

const spmv_kernel_entry* Plugin::find(const std::string& kernel_name) const {
  for (const spmv_kernel_entry* kernel : kernels()) {
    if (kernel_name == kernel->name) return kernel;
  }
  return nullptr;
}

const spmv_kernel_entry& Plugin::require(const std::string& kernel_name) const {
  if (const spmv_kernel_entry* kernel = find(kernel_name)) return *kernel;
  std::string available;
  for (const spmv_kernel_entry* kernel : kernels()) {
    available += (available.empty() ? "" : ", ") + std::string(kernel->name);
  }
  fail(path_,
       "plugin " + in_quotes(name()) + " has no kernel " + in_quotes(kernel_name) + " (it has: " + available + ")");
}

}  // namespace spmv
