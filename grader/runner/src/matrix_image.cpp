#include "spmv/runner/matrix_image.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spmv::runner {
namespace {

constexpr std::uint64_t kMagic = 0x31474d49564d5053ULL;  // "SPMVIMG1"

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("matrix image: " + what); }

// Writes an image into a file, straight from the container's arrays. No
// mapping of the file is ever made: a writable shared mapping, inherited
// by a child another thread forks meanwhile (a runner's sandbox), keeps
// the file from being sealed until that child execs (EBUSY).
class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  template <typename T>
  void scalar(T value) {
    put(&value, sizeof(T));
  }
  template <typename T>
  void array(const std::vector<T>& values) {
    scalar<std::uint64_t>(values.size());
    put(values.data(), values.size() * sizeof(T));
  }

 private:
  void put(const void* data, std::size_t bytes) {
    const auto* from = static_cast<const char*>(data);
    while (bytes > 0) {
      const ssize_t wrote = ::write(fd_, from, bytes);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) fail(std::string("write: ") + std::strerror(wrote < 0 ? errno : EIO));
      from += wrote;
      bytes -= static_cast<std::size_t>(wrote);
    }
  }
  int fd_;
};

// Makes the pages of fresh memory present in one call (the kernel's
// MADV_POPULATE_WRITE, Linux 5.14) rather than at a fault each as they are
// first written: a large case's arrays span tens of thousands of pages. A
// kernel without it leaves them to the faults; memory that is present
// already (the heap reused, runner_main.cpp) costs next to nothing.
void make_present(void* data, std::size_t bytes) {
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;
#endif
  constexpr std::size_t kWorthIt = std::size_t{1} << 20;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  if (bytes < kWorthIt || page == 0) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t last = (begin + bytes) / page * page;
  if (last > first) static_cast<void>(::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE));
}

class Reader {
 public:
  Reader(const char* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  template <typename T>
  T scalar() {
    T value;
    take(&value, sizeof(T));
    return value;
  }
  template <typename T>
  std::vector<T> array() {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto count = scalar<std::uint64_t>();
    if (count > (bytes_ - offset_) / sizeof(T)) fail("an array runs past the end");
    const char* from = data_ + offset_;
    if (reinterpret_cast<std::uintptr_t>(from) % alignof(T) == 0) {
      // Copied into the vector's storage in one pass (a vector of a size
      // zeroes it first: a second pass over a large case's pages), its
      // pages made present first.
      const T* first = reinterpret_cast<const T*>(from);
      offset_ += count * sizeof(T);
      std::vector<T> values;
      values.reserve(count);
      make_present(values.data(), count * sizeof(T));
      values.insert(values.end(), first, first + count);
      return values;
    }
    std::vector<T> values(count);
    take(values.data(), count * sizeof(T));
    return values;
  }
  void expect_end() const {
    if (offset_ != bytes_) fail("trailing bytes");
  }

 private:
  void take(void* out, std::size_t bytes) {
    if (bytes > bytes_ - offset_) fail("truncated");
    // An empty array's data() may be null, which memcpy may not be given
    // even for no bytes (an empty COO part of a HYB, a shape image's CSR).
    if (bytes == 0) return;
    std::memcpy(out, data_ + offset_, bytes);
    offset_ += bytes;
  }
  const char* data_;
  std::size_t bytes_;
  std::size_t offset_ = 0;
};

template <typename T>
struct is_vector : std::false_type {};
template <typename T>
struct is_vector<std::vector<T>> : std::true_type {};

// A container is stored as its members, in the order its FormatTraits lists
// them: scalars as they are, arrays with their size first, and a container
// that holds others (HYB's parts) as those containers in turn.
template <typename Matrix>
void put(Writer& w, const Matrix& a) {
  for_each_member(a, [&w](const auto& member) {
    using Member = std::decay_t<decltype(member)>;
    if constexpr (is_vector<Member>::value) {
      w.array(member);
    } else if constexpr (std::is_arithmetic_v<Member>) {
      w.scalar(member);
    } else {
      put(w, member);
    }
  });
}

// Each member read in its own call, in the order put() wrote them.
template <typename Matrix>
void get(Reader& r, Matrix& a) {
  for_each_member(a, [&r](auto& member) {
    using Member = std::decay_t<decltype(member)>;
    if constexpr (is_vector<Member>::value) {
      member = r.array<typename Member::value_type>();
    } else if constexpr (std::is_arithmetic_v<Member>) {
      member = r.scalar<Member>();
    } else {
      get(r, member);
    }
  });
}

template <typename Matrix>
AnyMatrix read_as(Reader& reader) {
  Matrix matrix;
  get(reader, matrix);
  reader.expect_end();
  matrix.validate();
  return matrix;
}

}  // namespace

spmv_format format_of(const AnyMatrix& matrix) {
  return std::visit([](const auto& m) { return static_cast<spmv_format>(FormatTraits<std::decay_t<decltype(m)>>::id); },
                    matrix);
}

namespace {

// An image of `matrix` in a sealed memfd, written with write(2) (Writer).
template <typename Matrix>
int write_image(const Matrix& matrix) {
  const int fd = ::memfd_create("spmv-matrix", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) fail(std::string("memfd_create: ") + std::strerror(errno));
  try {
    Writer writer(fd);
    writer.scalar(kMagic);
    writer.scalar(static_cast<std::int32_t>(FormatTraits<Matrix>::id));
    put(writer, matrix);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    const int error = errno;
    ::close(fd);
    fail(std::string("sealing: ") + std::strerror(error));
  }
  return fd;
}

}  // namespace

int write_matrix_image(const AnyMatrix& matrix) {
  return std::visit([](const auto& m) { return write_image(m); }, matrix);
}

#define SPMV_RUNNER_IMAGE_WRITER(name, NAME, Name, number) \
  int write_matrix_image(const Name##Matrix& matrix) { return write_image(matrix); }
SPMV_FORMATS(SPMV_RUNNER_IMAGE_WRITER)
#undef SPMV_RUNNER_IMAGE_WRITER

AnyMatrix read_matrix_image(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(std::string("fstat: ") + std::strerror(errno));
  const auto bytes = static_cast<std::size_t>(info.st_size);
  if (bytes < 12) fail("too short");
  void* mapped = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (mapped == MAP_FAILED) fail(std::string("mmap: ") + std::strerror(errno));
  struct Unmap {
    void* p;
    std::size_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{mapped, bytes};
  Reader reader(static_cast<const char*>(mapped), bytes);
  if (reader.scalar<std::uint64_t>() != kMagic) fail("not a matrix image");
  std::optional<AnyMatrix> matrix;
  const bool known = visit_format(reader.scalar<std::int32_t>(),
                                  [&](auto tag) { matrix = read_as<typename decltype(tag)::type>(reader); });
  if (!known) fail("unknown format");
  return std::move(*matrix);
}

}  // namespace spmv::runner
