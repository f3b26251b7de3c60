#include "spmv/runner/uploaded.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <variant>
#include <vector>

namespace spmv::runner {

namespace {

constexpr std::size_t kChunk = std::size_t{16} << 20;

// Host memory a buffer's contents are copied into to be compared, kept
// between calls (a check after every run compares every input array, and
// fresh memory cost its pages' faults each time). For a device buffer it
// is page-locked when it can be: a copy into pageable memory goes through
// the driver's staging buffer, a fraction of the speed. Never freed: the
// runner's one thread uses it until the process ends.
char* scratch(MemorySpace space, std::size_t bytes) {
  thread_local std::vector<char> pageable;
  thread_local char* pinned = nullptr;
  thread_local bool pinned_tried = false;
  if (space == MemorySpace::kDevice && !pinned_tried) {
    pinned_tried = true;
    void* memory = nullptr;
    if (cudaMallocHost(&memory, kChunk) == cudaSuccess) {
      pinned = static_cast<char*>(memory);
    } else {
      static_cast<void>(cudaGetLastError());
    }
  }
  if (space == MemorySpace::kDevice && pinned != nullptr) return pinned;
  if (pageable.size() < std::min(bytes, kChunk)) pageable.resize(std::min(bytes, kChunk));
  return pageable.data();
}

}  // namespace

bool same_contents(const RawBuffer& buffer, const void* original, std::size_t bytes, std::size_t start) {
  char* copy = scratch(buffer.space(), bytes);
  const auto* expected = static_cast<const char*>(original);
  for (std::size_t offset = 0; offset < bytes; offset += kChunk) {
    const std::size_t length = std::min(kChunk, bytes - offset);
    buffer.copy_to_host(copy, length, start + offset);
    if (std::memcmp(copy, expected + offset, length) != 0) return false;
  }
  return true;
}

std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const AnyMatrix& matrix, Originals originals) {
  return std::visit([&](const auto& m) { return upload_matrix(space, m, originals); }, matrix);
}

}  // namespace spmv::runner
