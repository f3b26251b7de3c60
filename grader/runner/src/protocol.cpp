#include "spmv/runner/protocol.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace spmv::runner {
namespace {

constexpr std::size_t kMaxFds = 4;

}  // namespace

void send_message(int socket, const void* data, std::size_t bytes, std::span<const int> fds) {
  if (fds.size() > kMaxFds) throw std::invalid_argument("send_message: too many descriptors");
  iovec part{const_cast<void*>(data), bytes};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  if (!fds.empty()) {
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t sent = 0;
  do {
    sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) throw std::runtime_error(std::string("sending a message: ") + std::strerror(errno));
  if (static_cast<std::size_t>(sent) != bytes) throw std::runtime_error("sending a message: sent only part of it");
}

bool receive_message(int socket, void* data, std::size_t bytes, std::span<int> fds) {
  for (int& fd : fds) fd = -1;
  iovec part{data, bytes};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got = 0;
  do {
    got = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got == 0) return false;
  if (got < 0) {
    if (errno == ECONNRESET) return false;
    throw std::runtime_error(std::string("receiving a message: ") + std::strerror(errno));
  }
  // Descriptors that came are taken before any check, so none leaks.
  std::size_t taken = 0;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      if (taken < fds.size()) {
        fds[taken++] = fd;
      } else {
        ::close(fd);
      }
    }
  }
  if ((message.msg_flags & MSG_TRUNC) != 0 || static_cast<std::size_t>(got) != bytes) {
    throw std::runtime_error("receiving a message: " + std::to_string(got) + " bytes where " + std::to_string(bytes) +
                             " were expected");
  }
  return true;
}

}  // namespace spmv::runner
