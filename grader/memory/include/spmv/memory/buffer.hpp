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

template <typename T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(MemorySpace space, std::size_t size) : raw_(space, size * sizeof(T)), size_(size) {}
  Buffer(MemorySpace space, std::span<const T> values) : Buffer(space, values.size()) {
    upload(values);
  }

  [[nodiscard]] T* data() const { return static_cast<T*>(raw_.data()); }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] RawBuffer& raw() { return raw_; }
  [[nodiscard]] const RawBuffer& raw() const { return raw_; }

  void upload(std::span<const T> values) { raw_.copy_from_host(values.data(), values.size_bytes()); }
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> values(size_);
    raw_.copy_to_host(values.data(), size_ * sizeof(T));
    return values;
  }

 private:
  RawBuffer raw_;
  std::size_t size_ = 0;
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

CooBuffers upload(MemorySpace space, const CooMatrix& a);
CsrBuffers upload(MemorySpace space, const CsrMatrix& a);
EllBuffers upload(MemorySpace space, const EllMatrix& a);
HybBuffers upload(MemorySpace space, const HybMatrix& a);
JdsBuffers upload(MemorySpace space, const JdsMatrix& a);
SellBuffers upload(MemorySpace space, const SellMatrix& a);

// Number of CUDA devices; 0 when there is no GPU or no driver (never throws).
int cuda_device_count();

}  // namespace spmv
