// Typed buffers in device memory (cudaMalloc) or host memory (for host-path
// plugins that run on the CPU). Matrices of every format are uploaded into
// them by spmv/memory/format_buffers.hpp (with every format's view:
// spmv/memory/format_views.hpp).
//
// Errors of the CUDA runtime throw CudaError with the call and its message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/format_base.hpp"

namespace spmv {

class CudaError : public std::runtime_error {
 public:
  CudaError(const char* what_failed, int code);
  [[nodiscard]] int code() const { return code_; }

 private:
  int code_;
};

// Throws CudaError if `code` (a cudaError_t) is not cudaSuccess.
void check_cuda(int code, const char* what_failed);

enum class MemorySpace { kDevice, kHost };

inline MemorySpace memory_space_of(spmv_memory_space space) {
  return space == SPMV_MEMORY_HOST ? MemorySpace::kHost : MemorySpace::kDevice;
}

// An untyped allocation; move-only, freed on destruction.
class RawBuffer {
 public:
  RawBuffer() = default;
  RawBuffer(MemorySpace space, std::size_t bytes);
  RawBuffer(RawBuffer&& other) noexcept;
  RawBuffer& operator=(RawBuffer&& other) noexcept;
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;
  ~RawBuffer();

  [[nodiscard]] void* data() const { return data_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] MemorySpace space() const { return space_; }

  // Synchronous copies between this buffer and host memory (offsets in bytes).
  void copy_from_host(const void* source, std::size_t bytes, std::size_t offset = 0);
  void copy_to_host(void* destination, std::size_t bytes, std::size_t offset = 0) const;
  // Synchronous copy from another buffer of the same space, which stays
  // where it is (on the device: the GPU copies, nothing crosses to the host).
  void copy_from(const RawBuffer& source, std::size_t bytes, std::size_t source_offset, std::size_t offset);
  // Fills every 32-bit word with `word` (bytes must be a multiple of 4).
  void fill_words(std::uint32_t word);

 private:
  void release() noexcept;

  MemorySpace space_ = MemorySpace::kDevice;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Guard zones of matrix arrays: what a read just outside an array finds.
// A value read there is NaN and poisons the product; an index read there is
// -1, which sends the kernel to x[-1] (NaN in the grader's guard before x)
// or y[-1] (in the guard before y, where a write is caught).
inline constexpr std::uint32_t kValueGuardBits = 0x7FC00000U;  // a quiet NaN
inline constexpr std::uint32_t kIndexGuardBits = 0xFFFFFFFFU;  // -1 (as 32 or 64 bits)

template <typename T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(MemorySpace space, std::size_t size) : raw_(space, size * sizeof(T)), size_(size) {}
  Buffer(MemorySpace space, std::span<const T> values) : Buffer(space, values.size()) { upload(values); }
  // `values` between two guard zones of `guard_words` 32-bit words of
  // `guard_bits` each. An empty array gets none: its pointer stays null.
  Buffer(MemorySpace space, std::span<const T> values, std::size_t guard_words, std::uint32_t guard_bits)
      : raw_(space, values.empty() ? 0 : values.size_bytes() + 2 * guard_words * sizeof(std::uint32_t)),
        size_(values.size()),
        guard_words_(values.empty() ? 0 : guard_words),
        guard_bits_(guard_bits) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    if (guard_words_ % 2 != 0) throw std::invalid_argument("guard zones of an odd number of words");
    if (guard_words_ > 0) {
      const std::vector<std::uint32_t> zone(guard_words_, guard_bits_);
      raw_.copy_from_host(zone.data(), zone.size() * sizeof(std::uint32_t));
      raw_.copy_from_host(zone.data(), zone.size() * sizeof(std::uint32_t), offset_bytes() + values.size_bytes());
    }
    upload(values);
  }

  [[nodiscard]] T* data() const {
    return raw_.data() == nullptr ? nullptr : reinterpret_cast<T*>(static_cast<char*>(raw_.data()) + offset_bytes());
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  // Where the values start in raw(): after the guard zone before them.
  [[nodiscard]] std::size_t offset_bytes() const { return guard_words_ * sizeof(std::uint32_t); }
  [[nodiscard]] std::size_t guard_words() const { return guard_words_; }
  [[nodiscard]] RawBuffer& raw() { return raw_; }
  [[nodiscard]] const RawBuffer& raw() const { return raw_; }

  void upload(std::span<const T> values) { raw_.copy_from_host(values.data(), values.size_bytes(), offset_bytes()); }
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> values(size_);
    raw_.copy_to_host(values.data(), size_ * sizeof(T), offset_bytes());
    return values;
  }
  // Whether both guard zones still hold their words (true without guards).
  [[nodiscard]] bool guards_intact() const {
    if (guard_words_ == 0) return true;
    std::vector<std::uint32_t> zone(guard_words_);
    raw_.copy_to_host(zone.data(), zone.size() * sizeof(std::uint32_t));
    for (const std::uint32_t word : zone) {
      if (word != guard_bits_) return false;
    }
    raw_.copy_to_host(zone.data(), zone.size() * sizeof(std::uint32_t), offset_bytes() + size_ * sizeof(T));
    for (const std::uint32_t word : zone) {
      if (word != guard_bits_) return false;
    }
    return true;
  }

 private:
  RawBuffer raw_;
  std::size_t size_ = 0;
  std::size_t guard_words_ = 0;
  std::uint32_t guard_bits_ = 0;
};

// `values` in a buffer of `space` for a matrix upload: with `guard_words`
// > 0 a nonempty array lies between guard zones of that many words,
// kIndexGuardBits around index arrays, kValueGuardBits around values (an
// even number: 64-bit arrays stay aligned). Every format's upload
// (spmv/memory/format_buffers.hpp) is made of these.
template <typename T>
Buffer<T> upload_array(MemorySpace space, const std::vector<T>& values, std::size_t guard_words) {
  const std::uint32_t bits = std::is_floating_point_v<T> ? kValueGuardBits : kIndexGuardBits;
  return Buffer<T>(space, std::span<const T>(values), guard_words, bits);
}

// Number of CUDA devices; 0 when there is no GPU or no driver (never throws).
int cuda_device_count();

}  // namespace spmv
