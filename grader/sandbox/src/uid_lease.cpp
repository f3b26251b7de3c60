// UidLease: one uid per live sandbox, machine-wide, by flock() on a lock file
// per slot in a root-only folder.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "internal.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::sandbox {
namespace {

// Creates `folder` (mode 0700) if needed and checks that it is a real folder
// that only root can write: "" when usable, else why not.
std::string root_only_folder(const std::filesystem::path& folder) {
  if (mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST)
    return detail::system_message("mkdir " + folder.string(), errno);
  struct stat info {};
  if (lstat(folder.c_str(), &info) != 0) return detail::system_message("lstat " + folder.string(), errno);
  if (!S_ISDIR(info.st_mode)) return folder.string() + " is not a folder";
  if (info.st_uid != 0) return folder.string() + " is not owned by root";
  if ((info.st_mode & 077) != 0 && chmod(folder.c_str(), 0700) != 0) {
    return detail::system_message("chmod 0700 " + folder.string(), errno);
  }
  return "";
}

}  // namespace

std::filesystem::path UidLease::lock_folder() {
  static const std::filesystem::path folder = [] {
    std::string why;
    if (root_only_folder("/run/spmv-lab").empty() && (why = root_only_folder("/run/spmv-lab/uids")).empty()) {
      return std::filesystem::path("/run/spmv-lab/uids");
    }
    why = root_only_folder("/tmp/spmv-lab-uids");
    if (why.empty()) return std::filesystem::path("/tmp/spmv-lab-uids");
    throw SandboxError("uid lease: no lock folder (" + why + ")");
  }();
  return folder;
}

UidLease UidLease::acquire() {
  if (geteuid() != 0) throw SandboxError("uid lease: needs root");
  const std::filesystem::path folder = lock_folder();
  for (unsigned slot = 0; slot < kUidSlots; ++slot) {
    const std::filesystem::path path = folder / std::to_string(slot);
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) detail::throw_system("uid lease: open " + path.string(), errno);
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      UidLease lease(kUidBase + slot, fd);
      // A process left by a grader that died must not share the new sandbox's uid.
      if (!kill_uid(lease.uid()).empty()) {
        throw SandboxError("uid lease: processes of uid " + std::to_string(lease.uid()) + " cannot be killed");
      }
      return lease;
    }
    const int error = errno;
    close(fd);
    if (error != EWOULDBLOCK) detail::throw_system("uid lease: flock " + path.string(), error);
  }
  throw SandboxError("uid lease: all " + std::to_string(kUidSlots) + " uids from " + std::to_string(kUidBase) +
                     " are in use");
}

UidLease::UidLease(UidLease&& other) noexcept : uid_(other.uid_), lock_fd_(std::exchange(other.lock_fd_, -1)) {}

UidLease& UidLease::operator=(UidLease&& other) noexcept {
  if (this != &other) {
    if (lock_fd_ >= 0) close(lock_fd_);
    uid_ = other.uid_;
    lock_fd_ = std::exchange(other.lock_fd_, -1);
  }
  return *this;
}

UidLease::~UidLease() {
  if (lock_fd_ >= 0) close(lock_fd_);
}

}  // namespace spmv::sandbox
