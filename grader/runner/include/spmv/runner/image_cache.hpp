// Matrix images a runner has read, kept by the file they came from. The
// grader's images are sealed memfds (matrix_image.hpp): sealed against
// writes, shrinking and growing, such a file holds the same bytes for as
// long as it exists, and its (device, inode) names it for as long as a
// descriptor of it is open. The cache holds a descriptor of each image it
// keeps, so an image set up again (by the reference runner: its windows
// after, cuSPARSE's setup, a second kernel of the same format) is not read
// again, and what the runner made of it (its upload) can be kept with it. A file that is not sealed is read afresh
// every time, never kept.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <list>
#include <memory>
#include <optional>

#include "spmv/runner/matrix_image.hpp"

namespace spmv::runner {

struct ImageIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  std::size_t bytes = 0;
  bool operator==(const ImageIdentity&) const = default;
};

// The identity of `fd` if it is a file sealed against writes, shrinking
// and growing; none otherwise (its bytes could still change).
std::optional<ImageIdentity> sealed_image_identity(int fd);

// A descriptor of an image held open while the cache keeps it.
class HeldImage {
 public:
  explicit HeldImage(int fd);  // duplicates fd; throws std::runtime_error
  ~HeldImage();
  HeldImage(const HeldImage&) = delete;
  HeldImage& operator=(const HeldImage&) = delete;

 private:
  int fd_;
};

// Kept is what a runner makes of an image beside its matrix (its upload);
// it lives as long as the entry, or as long as a user holds it.
template <typename Kept>
class ImageCache {
 public:
  struct Entry {
    std::shared_ptr<const AnyMatrix> matrix;
    std::shared_ptr<Kept> kept;  // set by the user, kept with the matrix
  };

  // At most `max_entries` images of at most `max_bytes` together; an
  // image larger than max_bytes alone is read, never kept.
  ImageCache(std::size_t max_bytes, std::size_t max_entries) : max_bytes_(max_bytes), max_entries_(max_entries) {}

  // The image of `fd`: the entry kept for it, most recently used now, or
  // one read now (kept when it is sealed and fits). The reference is good
  // until the next read.
  Entry& read(int fd) {
    const std::optional<ImageIdentity> identity = sealed_image_identity(fd);
    if (identity) {
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->identity == *identity) {
          entries_.splice(entries_.begin(), entries_, it);
          ++hits_;
          return entries_.front().entry;
        }
      }
    }
    ++reads_;
    unkept_ = Entry{};  // its memory free for this one's arrays (a user holding it keeps it)
    auto matrix = std::make_shared<const AnyMatrix>(read_matrix_image(fd));
    if (!identity || identity->bytes > max_bytes_ || max_entries_ == 0) {
      unkept_ = Entry{std::move(matrix), nullptr};
      return unkept_;
    }
    while (!entries_.empty() && (entries_.size() >= max_entries_ || bytes_ + identity->bytes > max_bytes_)) {
      bytes_ -= entries_.back().identity.bytes;
      entries_.pop_back();
    }
    entries_.emplace_front(*identity, fd, Entry{std::move(matrix), nullptr});
    bytes_ += identity->bytes;
    return entries_.front().entry;
  }

  // Images read from their files, and served from the cache.
  [[nodiscard]] std::size_t reads() const { return reads_; }
  [[nodiscard]] std::size_t hits() const { return hits_; }
  [[nodiscard]] std::size_t entries() const { return entries_.size(); }

 private:
  struct Node {
    Node(ImageIdentity id, int fd, Entry e) : identity(id), held(fd), entry(std::move(e)) {}
    ImageIdentity identity;
    HeldImage held;
    Entry entry;
  };
  std::size_t max_bytes_;
  std::size_t max_entries_;
  std::size_t bytes_ = 0;
  std::size_t reads_ = 0;
  std::size_t hits_ = 0;
  std::list<Node> entries_;  // most recently used first
  Entry unkept_;
};

}  // namespace spmv::runner
