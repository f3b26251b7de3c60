// Buffers for the copies of checked links (link_checks.cpp), reused from row
// to row: a fresh allocation of a large case's slots costs the grader a page
// fault for each page it copies into, and the copies are taken inside a
// row's timed stretch (on the development machine, 16 copies of 16 MB took
// 146 ms into fresh buffers and 14-21 ms into reused ones). A buffer given
// back is kept with its capacity and serves any later request that fits in
// it, the smallest such first: a kernel's rows go from case to case, each of
// another size, so buffers kept for one size alone were freed at every row.
// At most a cap of bytes is kept; a buffer given back over it is freed.
// What a reused buffer held before is not cleared: a check reads only the
// slots copied into it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace spmv::grade {

class CopyBuffers {
 public:
  // At most this many bytes kept free, by default.
  static constexpr std::size_t kMaxKeptBytes = std::size_t{1} << 30;

  explicit CopyBuffers(std::size_t max_kept_bytes = kMaxKeptBytes) : max_kept_bytes_(max_kept_bytes) {}
  CopyBuffers(const CopyBuffers&) = delete;
  CopyBuffers& operator=(const CopyBuffers&) = delete;

  // The grader's own (the buffers outlive every row).
  static CopyBuffers& instance() {
    static CopyBuffers buffers;
    return buffers;
  }

  // A buffer of at least `words` words, kept again once its last owner lets
  // it go.
  std::shared_ptr<std::uint32_t[]> take(std::size_t words) {
    std::unique_ptr<std::uint32_t[]> buffer;
    std::size_t capacity = words;
    {
      const std::lock_guard lock(mutex_);
      if (const auto fits = free_.lower_bound(words); fits != free_.end()) {
        capacity = fits->first;
        buffer = std::move(fits->second);
        free_.erase(fits);
        kept_bytes_ -= bytes_of(capacity);
      }
    }
    if (!buffer) buffer.reset(new std::uint32_t[capacity]);
    return {buffer.release(), [this, capacity](std::uint32_t* given_back) { give_back(given_back, capacity); }};
  }

  // Buffers kept free now, and their bytes.
  [[nodiscard]] std::size_t kept() const {
    const std::lock_guard lock(mutex_);
    return free_.size();
  }
  [[nodiscard]] std::size_t kept_bytes() const {
    const std::lock_guard lock(mutex_);
    return kept_bytes_;
  }

 private:
  static std::size_t bytes_of(std::size_t words) { return words * sizeof(std::uint32_t); }

  void give_back(std::uint32_t* buffer, std::size_t capacity) {
    std::unique_ptr<std::uint32_t[]> owned(buffer);
    const std::lock_guard lock(mutex_);
    if (kept_bytes_ + bytes_of(capacity) > max_kept_bytes_) return;  // freed
    kept_bytes_ += bytes_of(capacity);
    free_.emplace(capacity, std::move(owned));
  }

  const std::size_t max_kept_bytes_;
  mutable std::mutex mutex_;
  std::size_t kept_bytes_ = 0;
  std::multimap<std::size_t, std::unique_ptr<std::uint32_t[]>> free_;  // by capacity in words
};

}  // namespace spmv::grade
