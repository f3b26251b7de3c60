#include "spmv/core/atomic_file.hpp"

#include <unistd.h>

#include <fstream>
#include <random>
#include <stdexcept>

namespace spmv {
namespace {

std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  std::random_device device;
  auto temporary = path;
  temporary += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(device());
  return temporary;
}

// Removes the temporary file unless it was renamed.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::filesystem::path path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (path_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  void renamed() { path_.clear(); }

 private:
  std::filesystem::path path_;
};

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  TemporaryFile temporary(temporary_beside(path));
  {
    std::ofstream file(temporary.path(), std::ios::binary | std::ios::trunc);
    if (!file) throw std::runtime_error(temporary.path().string() + ": cannot be created");
    write(file);
    file.flush();
    if (!file) throw std::runtime_error(temporary.path().string() + ": cannot write (disk full?)");
  }
  std::error_code error;
  std::filesystem::rename(temporary.path(), path, error);
  if (error) throw std::runtime_error(path.string() + ": cannot replace: " + error.message());
  temporary.renamed();
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  write_file_atomically(path, [text](std::ostream& file) { file << text; });
}

}  // namespace spmv
