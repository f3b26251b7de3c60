// Loading kernel plugins (shared modules exporting SPMV_PLUGIN_ENTRY, see
// contract/include/spmv/contract/plugin.h) and finding kernels in them.
//
// Every way a plugin can be broken gives a PluginError whose message names
// the plugin file and what is wrong: missing file, not a shared object,
// unresolved symbols, no entry point, wrong ABI version, a malformed table
// (null or duplicate names, unknown format, null launch function), a
// dependency on a vendor library a submission may not use (cuSPARSE,
// cuBLAS), or no kernel of a requested name.
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "spmv/contract/plugin.h"

namespace spmv {

class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The vendor libraries a submission may not use by default: a plugin that
// links lib<name>* or imports a symbol <name>* is refused.
inline const std::vector<std::string> kDefaultForbiddenLibraries{"cusparse", "cublas", "cusolver", "nvblas"};

struct PluginLoadOptions {
  // Refuse plugins that link these vendor libraries (submissions must write
  // their own kernels; the policy's [libraries] forbidden). The reference
  // plugin is loaded without it.
  bool forbid_vendor_libraries = true;
  std::vector<std::string> forbidden_libraries = kDefaultForbiddenLibraries;
};

// A loaded plugin; unloaded (dlclose) on destruction. Move-only.
class Plugin {
 public:
  static Plugin load(const std::filesystem::path& path, const PluginLoadOptions& options = {});

  Plugin(Plugin&&) noexcept;
  Plugin& operator=(Plugin&&) noexcept;
  ~Plugin();

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string name() const { return table_->name; }
  [[nodiscard]] spmv_memory_space memory() const { return table_->memory; }
  [[nodiscard]] std::vector<const spmv_kernel_entry*> kernels() const;
  // nullptr when the plugin has no kernel of this name.
  [[nodiscard]] const spmv_kernel_entry* find(const std::string& kernel_name) const;
  // Like find(), but throws PluginError naming the plugin and its kernels.
  [[nodiscard]] const spmv_kernel_entry& require(const std::string& kernel_name) const;

 private:
  Plugin(std::filesystem::path path, void* handle, const spmv_plugin* table);

  std::filesystem::path path_;
  void* handle_ = nullptr;
  const spmv_plugin* table_ = nullptr;
};

// Shared libraries a plugin file names as DT_NEEDED (read from its ELF
// dynamic section without loading it). Throws PluginError if the file is not
// a 64-bit ELF shared object.
std::vector<std::string> needed_libraries(const std::filesystem::path& path);

// "coo", "csr", ... for messages; "unknown" otherwise.
const char* format_name(spmv_format format);

}  // namespace spmv
