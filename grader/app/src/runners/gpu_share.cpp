#include "runners/gpu_share.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>

#include "model/exit_codes.hpp"

namespace spmv::grade {

// A member's slot; pid 0 is a free slot.
struct GpuShare::Slot {
  std::int32_t pid = 0;
  std::int32_t active = 0;       // the member's activities under way
  std::uint64_t start_time = 0;  // its process's start (/proc/PID/stat), against a pid used again
  std::int32_t alone = 0;        // it is timing
  std::int32_t unused = 0;
  std::uint64_t waiting = 0;  // its earliest wait to be alone (a ticket), 0 none
};

struct GpuShare::Table {
  std::array<char, 8> magic{};
  std::uint64_t next_ticket = 0;
  std::array<Slot, kSlots> slots{};
};

namespace {

constexpr std::array<char, 8> kMagic{'s', 'p', 'm', 'v', 's', 'h', 'r', '1'};

// When the process started, in clock ticks since boot (0 if it is gone).
std::uint64_t start_time_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  // Fields from the third (state) on; the start time is the 22nd.
  for (int k = 3; k <= 22; ++k) {
    if (!(fields >> field)) return 0;
  }
  return std::strtoull(field.c_str(), nullptr, 10);
}

bool gone(const auto& slot) {
  if (slot.pid == 0) return false;
  if (::kill(slot.pid, 0) != 0 && errno == ESRCH) return true;
  return start_time_of(slot.pid) != slot.start_time;
}

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& why) {
  throw SetupError("--gpu-share " + file.string() + ": " + why);
}

}  // namespace

template <typename Change>
auto GpuShare::update(Change change) {
  // flock's lock is the open file's: the threads of this process take turns
  // under mutex_ first.
  const std::lock_guard lock(mutex_);
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) refuse(file_, std::string("cannot lock it: ") + std::strerror(errno));
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::flock(fd, LOCK_UN); }
  } unlock{fd_};
  Table table;
  const ssize_t read = ::pread(fd_, &table, sizeof table, 0);
  if (read == 0) {
    table = Table{};
    table.magic = kMagic;
    table.next_ticket = 1;
  } else if (read != static_cast<ssize_t>(sizeof table) || table.magic != kMagic) {
    refuse(file_, "not a GPU share's file (another program's file, or a grader of another version)");
  }
  for (int k = 0; k < kSlots; ++k) {
    Slot& slot = table.slots[static_cast<std::size_t>(k)];
    if (k != slot_ && gone(slot)) slot = Slot{};
  }
  const auto write = [&] {
    if (::pwrite(fd_, &table, sizeof table, 0) != static_cast<ssize_t>(sizeof table)) {
      refuse(file_, std::string("cannot write it: ") + std::strerror(errno));
    }
  };
  if constexpr (std::is_void_v<decltype(change(table))>) {
    change(table);
    write();
  } else {
    auto result = change(table);
    write();
    return result;
  }
}

GpuShare::GpuShare(std::filesystem::path file, std::chrono::milliseconds patience)
    : file_(std::move(file)), patience_(patience) {
  fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0) refuse(file_, std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    refuse(file_, "not a regular file");
  }
  if (info.st_uid != ::geteuid() || (info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    ::close(fd_);
    fd_ = -1;
    refuse(file_, "another user could write it (it must be this user's, writable by no one else)");
  }
  start_time_ = start_time_of(::getpid());
  try {
    update([&](Table& table) {
      for (int k = 0; k < kSlots; ++k) {
        Slot& slot = table.slots[static_cast<std::size_t>(k)];
        if (slot.pid != 0) continue;
        slot = Slot{};
        slot.pid = ::getpid();
        slot.start_time = start_time_;
        slot_ = k;
        return;
      }
      refuse(file_, "all " + std::to_string(kSlots) + " gradings' slots are taken");
    });
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

GpuShare::~GpuShare() {
  if (fd_ < 0) return;
  try {
    update([&](Table& table) {
      if (slot_ >= 0) table.slots[static_cast<std::size_t>(slot_)] = Slot{};
    });
  } catch (...) {
    // A member whose slot could not be freed is freed by the next look
    // once its process is gone.
  }
  ::close(fd_);
}

GpuShare::Hold GpuShare::active(std::chrono::milliseconds patience) { return wait_for(Kind::kActive, patience); }

GpuShare::Hold GpuShare::alone(std::chrono::milliseconds patience) { return wait_for(Kind::kAlone, patience); }

std::chrono::milliseconds GpuShare::patience_for(double row_timeout_s) {
  const auto rows = std::chrono::milliseconds(static_cast<std::int64_t>(3 * row_timeout_s * 1000) + 60'000);
  return std::max(kPatience, rows);
}

GpuShare::Hold GpuShare::try_active(bool start) {
  return wait_for(Kind::kActive, std::chrono::milliseconds(-1), start);
}

GpuShare::Hold GpuShare::wait_for(Kind kind, std::chrono::milliseconds patience, bool start) {
  if (fd_ < 0) return {this, kind};
  if (patience == std::chrono::milliseconds::zero()) patience = patience_;
  const auto me = static_cast<std::size_t>(slot_);
  std::uint64_t ticket = 0;
  if (kind == Kind::kAlone) {
    ticket = update([&](Table& table) {
      const std::uint64_t mine = table.next_ticket++;
      tickets_.insert(mine);
      table.slots[me].waiting = *tickets_.begin();
      return mine;
    });
  }
  const auto others_quiet = [](const Table& table, std::size_t member) {
    for (std::size_t k = 0; k < table.slots.size(); ++k) {
      const Slot& slot = table.slots[k];
      if (k != member && slot.pid != 0 && (slot.active > 0 || slot.alone > 0)) return false;
    }
    return true;
  };
  const auto granted = [&](Table& table) {
    Slot& mine = table.slots[me];
    if (kind == Kind::kActive) {
      bool others_timing = false, others_alone = false;
      for (std::size_t k = 0; k < table.slots.size(); ++k) {
        const Slot& slot = table.slots[k];
        if (k == me || slot.pid == 0) continue;
        if (slot.alone > 0 || slot.waiting != 0) others_timing = true;
        if (slot.alone > 0) others_alone = true;
      }
      // A start beside this member's own work holds no one up longer than
      // that work does (no one is alone while it lasts), and a grading may
      // have to wait for a start while it holds something (a runner kept
      // for its next row): it is granted while no other member is alone.
      const bool start_granted = mine.alone == 0 && (!others_timing || (mine.active > 0 && !others_alone));
      if (start ? start_granted : mine.alone > 0 || !others_timing) {
        ++mine.active;
        return true;
      }
      return false;
    }
    // The earliest waiting member whose condition holds goes.
    std::optional<std::size_t> first;
    for (std::size_t k = 0; k < table.slots.size(); ++k) {
      const Slot& slot = table.slots[k];
      if (slot.pid == 0 || slot.waiting == 0 || !others_quiet(table, k)) continue;
      if (!first || slot.waiting < table.slots[*first].waiting) first = k;
    }
    if (first != me) return false;
    tickets_.erase(tickets_.find(ticket));
    mine.waiting = tickets_.empty() ? 0 : *tickets_.begin();
    ++mine.alone;
    return true;
  };
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (!update(granted)) {
    if (patience < std::chrono::milliseconds::zero()) return {};  // try_active
    if (std::chrono::steady_clock::now() > deadline) {
      if (kind == Kind::kAlone) {
        update([&](Table& table) {
          tickets_.erase(tickets_.find(ticket));
          table.slots[me].waiting = tickets_.empty() ? 0 : *tickets_.begin();
        });
      }
      refuse(file_, "another grading kept the GPU for over " +
                        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(patience).count()) +
                        " s (a grader stuck; see its log)");
    }
    std::this_thread::sleep_for(kPoll);
  }
  return {this, kind};
}

void GpuShare::end(Kind kind) {
  if (fd_ < 0) return;
  const auto me = static_cast<std::size_t>(slot_);
  try {
    update([&](Table& table) { --(kind == Kind::kActive ? table.slots[me].active : table.slots[me].alone); });
  } catch (const SetupError&) {
    // Released by the next look once this process is gone; nothing else to do.
  }
}

}  // namespace spmv::grade
