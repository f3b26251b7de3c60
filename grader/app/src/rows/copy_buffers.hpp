// Buffers for the copies of checked links (link_checks.cpp), reused from row
// to row: a fresh allocation of a large case's slots costs the grader a page
// fault for each page it copies into, and the copies are taken inside a
// row's timed stretch (on the development machine, 16 copies of 16 MB took
// 146 ms into fresh buffers and 14-21 ms into reused ones). Buffers of one
// size are kept (a case's rows follow one another); asking for another size
// frees them. What a reused buffer held before is not cleared: a check reads
// only the slots copied into it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

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

  // A buffer of `words` words, kept again once its last owner lets it go.
  std::shared_ptr<std::uint32_t[]> take(std::size_t words) {
    std::unique_ptr<std::uint32_t[]> buffer;
    {
      const std::lock_guard lock(mutex_);
      if (words != words_) {
        free_.clear();
        words_ = words;
      }
      if (!free_.empty()) {
        buffer = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!buffer) buffer.reset(new std::uint32_t[words]);
    return {buffer.release(), [this, words](std::uint32_t* given_back) { give_back(given_back, words); }};
  }

  // Buffers kept free now.
  [[nodiscard]] std::size_t kept() const {
    const std::lock_guard lock(mutex_);
    return free_.size();
  }

 private:
  void give_back(std::uint32_t* buffer, std::size_t words) {
    std::unique_ptr<std::uint32_t[]> owned(buffer);
    const std::lock_guard lock(mutex_);
    if (words == words_ && (free_.size() + 1) * words * sizeof(std::uint32_t) <= max_kept_bytes_) {
      free_.push_back(std::move(owned));
    }
  }

  const std::size_t max_kept_bytes_;
  mutable std::mutex mutex_;
  std::size_t words_ = 0;
  std::vector<std::unique_ptr<std::uint32_t[]>> free_;
};

}  // namespace spmv::grade
