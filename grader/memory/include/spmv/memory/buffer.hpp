// Typed buffers in device memory (cudaMalloc) or host memory (for host-path
// plugins that run on the CPU), and matrices of every format uploaded into
// them with the contract view that points at them.
//
// Errors of the CUDA runtime throw CudaError with the call and its message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "spmv/contract/coo.h"
#include "spmv/contract/csr.h"
#include "spmv/contract/ell.h"
#include "spmv/contract/hyb.h"
#include "spmv/contract/jds.h"
#include "spmv/contract/plugin.h"
#include "spmv/contract/sell.h"
#include "spmv/core/formats.hpp"

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
  Buffer(MemorySpace space, std::span<const T> values) : Buffer(space, values.size()) {
    upload(values);
  }
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
    return raw_.data() == nullptr ? nullptr
                                  : reinterpret_cast<T*>(static_cast<char*>(raw_.data()) + offset_bytes());
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  // Where the values start in raw(): after the guard zone before them.
  [[nodiscard]] std::size_t offset_bytes() const { return guard_words_ * sizeof(std::uint32_t); }
  [[nodiscard]] std::size_t guard_words() const { return guard_words_; }
  [[nodiscard]] RawBuffer& raw() { return raw_; }
  [[nodiscard]] const RawBuffer& raw() const { return raw_; }

  void upload(std::span<const T> values) {
    raw_.copy_from_host(values.data(), values.size_bytes(), offset_bytes());
  }
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

// A matrix of one format copied into buffers, with its contract view.
// The view's pointers stay valid as long as this object lives (it is
// move-only; moving keeps the allocations).
struct CooBuffers {
  Buffer<index_t> row_idx, col_idx;
  Buffer<value_t> values;
  spmv_coo_view view{};
};
struct CsrBuffers {
  Buffer<index_t> row_ptr, col_idx;
  Buffer<value_t> values;
  spmv_csr_view view{};
};
struct EllBuffers {
  Buffer<index_t> row_length, col_idx;
  Buffer<value_t> values;
  spmv_ell_view view{};
};
struct HybBuffers {
  EllBuffers ell;
  CooBuffers coo;
  spmv_hyb_view view{};
};
struct JdsBuffers {
  Buffer<index_t> row_perm, jd_ptr, col_idx;
  Buffer<value_t> values;
  spmv_jds_view view{};
};
struct SellBuffers {
  Buffer<std::int64_t> slice_ptr;
  Buffer<index_t> row_perm, col_idx;  // row_perm empty (view NULL) for the identity
  Buffer<value_t> values;
  spmv_sell_view view{};
};

// With `guard_words` > 0, every nonempty array lies between guard zones of
// that many words: kIndexGuardBits around index arrays, kValueGuardBits
// around values (an even number: 64-bit arrays stay aligned).
CooBuffers upload(MemorySpace space, const CooMatrix& a, std::size_t guard_words = 0);
CsrBuffers upload(MemorySpace space, const CsrMatrix& a, std::size_t guard_words = 0);
EllBuffers upload(MemorySpace space, const EllMatrix& a, std::size_t guard_words = 0);
HybBuffers upload(MemorySpace space, const HybMatrix& a, std::size_t guard_words = 0);
JdsBuffers upload(MemorySpace space, const JdsMatrix& a, std::size_t guard_words = 0);
SellBuffers upload(MemorySpace space, const SellMatrix& a, std::size_t guard_words = 0);

// Number of CUDA devices; 0 when there is no GPU or no driver (never throws).
int cuda_device_count();

}  // namespace spmv
