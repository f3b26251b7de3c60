#include "spmv/runner/image_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace spmv::runner {

std::optional<ImageIdentity> sealed_image_identity(int fd) {
  const int seals = ::fcntl(fd, F_GET_SEALS);
  constexpr int kNeeded = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW;
  if (seals < 0 || (seals & kNeeded) != kNeeded) return std::nullopt;
  struct stat info {};
  if (::fstat(fd, &info) != 0) return std::nullopt;
  return ImageIdentity{info.st_dev, info.st_ino, static_cast<std::size_t>(info.st_size)};
}

HeldImage::HeldImage(int fd) : fd_(::fcntl(fd, F_DUPFD_CLOEXEC, 0)) {
  if (fd_ < 0) throw std::runtime_error(std::string("matrix image: holding it open: ") + std::strerror(errno));
}

HeldImage::~HeldImage() { ::close(fd_); }

}  // namespace spmv::runner
