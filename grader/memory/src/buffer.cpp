#include "spmv/memory/buffer.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace spmv {

CudaError::CudaError(const char* what_failed, int code)
    : std::runtime_error(std::string(what_failed) + " failed: " + cudaGetErrorName(static_cast<cudaError_t>(code)) +
                         " (" + cudaGetErrorString(static_cast<cudaError_t>(code)) + ")"),
      code_(code) {}

void check_cuda(int code, const char* what_failed) {
  if (code != cudaSuccess) throw CudaError(what_failed, code);
}

RawBuffer::RawBuffer(MemorySpace space, std::size_t bytes) : space_(space), bytes_(bytes) {
  if (bytes == 0) return;  // a null pointer stands for an empty array in both spaces
  if (space == MemorySpace::kDevice) {
    check_cuda(cudaMalloc(&data_, bytes), "cudaMalloc");
  } else {
    data_ = std::malloc(bytes);
    if (data_ == nullptr) throw std::bad_alloc();
  }
}

RawBuffer::RawBuffer(RawBuffer&& other) noexcept
    : space_(other.space_), data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

RawBuffer& RawBuffer::operator=(RawBuffer&& other) noexcept {
  if (this != &other) {
    release();
    space_ = other.space_;
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

RawBuffer::~RawBuffer() { release(); }

void RawBuffer::release() noexcept {
  if (data_ == nullptr) return;
  if (space_ == MemorySpace::kDevice) {
    cudaFree(data_);  // a sticky error here cannot be handled; the process is going down
  } else {
    std::free(data_);
  }
  data_ = nullptr;
}

void RawBuffer::copy_from_host(const void* source, std::size_t bytes, std::size_t offset) {
  if (bytes == 0) return;
  if (offset + bytes > bytes_) throw std::out_of_range("RawBuffer::copy_from_host past the end");
  auto* target = static_cast<char*>(data_) + offset;
  if (space_ == MemorySpace::kDevice) {
    check_cuda(cudaMemcpy(target, source, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
    // From pageable memory cudaMemcpy may return before the DMA lands; a
    // kernel launched next on a non-blocking stream would then race with it
    // (e.g. the NaN poison arriving after the kernel wrote y). Copies here
    // are untimed set-up, so wait for them.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a copy to the device");
  } else {
    std::memcpy(target, source, bytes);
  }
}

void RawBuffer::copy_to_host(void* destination, std::size_t bytes, std::size_t offset) const {
  if (bytes == 0) return;
  if (offset + bytes > bytes_) throw std::out_of_range("RawBuffer::copy_to_host past the end");
  const auto* source = static_cast<const char*>(data_) + offset;
  if (space_ == MemorySpace::kDevice) {
    check_cuda(cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
  } else {
    std::memcpy(destination, source, bytes);
  }
}

void RawBuffer::copy_from(const RawBuffer& source, std::size_t bytes, std::size_t source_offset, std::size_t offset) {
  if (bytes == 0) return;
  if (source.space_ != space_) throw std::invalid_argument("RawBuffer::copy_from another memory space");
  if (offset + bytes > bytes_ || source_offset + bytes > source.bytes_) {
    throw std::out_of_range("RawBuffer::copy_from past the end");
  }
  auto* destination = static_cast<char*>(data_) + offset;
  const auto* from = static_cast<const char*>(source.data_) + source_offset;
  if (space_ == MemorySpace::kDevice) {
    check_cuda(cudaMemcpy(destination, from, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy on the device");
    // cudaMemcpy returns before a device-to-device copy is done: waited
    // for here, so that nothing after this call (a burst timed next) waits
    // for it instead.
    check_cuda(cudaDeviceSynchronize(), "a copy on the device");
  } else {
    std::memcpy(destination, from, bytes);
  }
}

void RawBuffer::fill_words(std::uint32_t word) {
  if (bytes_ % sizeof(word) != 0) throw std::invalid_argument("fill_words: size not a multiple of 4");
  std::vector<std::uint32_t> pattern(bytes_ / sizeof(word), word);
  copy_from_host(pattern.data(), bytes_);
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the non-sticky "no device" error
    return 0;
  }
  return count;
}

}  // namespace spmv
