#include "spmv/runner/uploaded.hpp"

#include <algorithm>
#include <cstring>
#include <variant>
#include <vector>

namespace spmv::runner {

bool same_contents(const RawBuffer& buffer, const void* original, std::size_t bytes, std::size_t start) {
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  // Kept between calls: a check after every run compares every input
  // array, and a fresh chunk each time cost its pages' faults again.
  thread_local std::vector<char> copy;
  if (copy.size() < std::min(bytes, kChunk)) copy.resize(std::min(bytes, kChunk));
  const auto* expected = static_cast<const char*>(original);
  for (std::size_t offset = 0; offset < bytes; offset += kChunk) {
    const std::size_t length = std::min(kChunk, bytes - offset);
    buffer.copy_to_host(copy.data(), length, start + offset);
    if (std::memcmp(copy.data(), expected + offset, length) != 0) return false;
  }
  return true;
}

std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const AnyMatrix& matrix) {
  return std::visit([&](const auto& m) { return upload_matrix(space, m); }, matrix);
}

}  // namespace spmv::runner
