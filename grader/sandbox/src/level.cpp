// Levels: names, and which of them this process can have here (tried once
// per effective uid in throwaway children).
#include <sched.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <string>

#include "internal.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::sandbox {
namespace {

struct Support {
  int landlock_abi = 0;
  std::string user_namespaces;  // "" when usable, else why not
  std::string why_not[4];       // per level, "" when available
};

Support probe_support() {
  Support support;
  support.landlock_abi = detail::landlock_abi();
  const bool root = geteuid() == 0;
  const bool seccomp = detail::seccomp_usable();
  const std::string no_seccomp = "seccomp filters cannot be installed here";

  support.user_namespaces =
      detail::dry_run(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS, false);
  auto& why_not = support.why_not;
  why_not[static_cast<int>(Level::kUser)] = seccomp ? "" : no_seccomp;
  if (!root) {
    why_not[static_cast<int>(Level::kContainer)] = "needs root (to run the program as a distinct uid)";
    why_not[static_cast<int>(Level::kFull)] = "needs root (namespaces and a distinct uid)";
    return support;
  }
  std::string container = seccomp ? detail::dry_run(0, true) : no_seccomp;
  why_not[static_cast<int>(Level::kContainer)] = container;
  std::string full = container;
  if (full.empty() && support.landlock_abi <= 0) full = "Landlock is not available in this kernel";
  if (full.empty())
    full = detail::dry_run(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS, true);
  why_not[static_cast<int>(Level::kFull)] = full;
  return support;
}

const Support& support() {
  static std::mutex mutex;
  static std::map<uid_t, Support> by_euid;  // a process that drops privileges asks again
  const std::lock_guard<std::mutex> lock(mutex);
  const uid_t euid = geteuid();
  auto found = by_euid.find(euid);
  if (found == by_euid.end()) found = by_euid.emplace(euid, probe_support()).first;
  return found->second;
}

}  // namespace

const char* level_name(Level level) {
  switch (level) {
    case Level::kNone: return "none";
    case Level::kUser: return "user";
    case Level::kContainer: return "container";
    case Level::kFull: return "full";
  }
  return "?";
}

std::optional<Level> parse_level(std::string_view name) {
  for (const Level level : {Level::kNone, Level::kUser, Level::kContainer, Level::kFull}) {
    if (name == level_name(level)) return level;
  }
  return std::nullopt;
}

std::string why_unavailable(Level level) { return support().why_not[static_cast<int>(level)]; }

Level strongest_available() {
  for (const Level level : {Level::kFull, Level::kContainer, Level::kUser}) {
    if (why_unavailable(level).empty()) return level;
  }
  return Level::kNone;
}

bool user_namespaces_usable() { return support().user_namespaces.empty(); }

std::string describe_level(Level level) {
  const Support& s = support();
  const std::string landlock = s.landlock_abi > 0 ? "Landlock ABI " + std::to_string(s.landlock_abi)
                                                  : std::string("no Landlock (not in this kernel)");
  switch (level) {
    case Level::kNone: return "none: fork and exec with the given environment, no containment (debugging only)";
    case Level::kUser:
      return std::string("user: ") +
             (s.user_namespaces.empty() ? "user, PID, network and mount namespaces"
                                        : "a new session only (no user namespaces: " + s.user_namespaces + ")") +
             ", " + landlock + ", seccomp, rlimits; the caller's uid";
    case Level::kContainer:
      return "container: a distinct uid, " + landlock +
             ", seccomp, rlimits; no namespaces; clean-up kills the uid's processes";
    case Level::kFull:
      return "full: PID, network, mount, IPC and UTS namespaces, a distinct uid, " + landlock + ", seccomp, rlimits";
  }
  return "?";
}

}  // namespace spmv::sandbox
