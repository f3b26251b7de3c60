// Hostile host-path submissions: each computes y = A x correctly (through the
// host reference's walk) and tries one attack on the grader, selected by
// SPMV_HOSTILE_ATTACK. The grader must give each row a verdict of its own,
// lose or forge nothing, leak nothing, and leave no process behind
// (test_grade_hostile.cpp says what each must get).
//
// SPMV_HOSTILE_PROBE_DIR is a folder the tests watch: an attack that gets
// out writes there (a file it should not be able to make).
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "host_terms.hpp"
#include "spmv/contract/plugin.h"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/runner/protocol.hpp"

#ifndef SPMV_HOSTILE_ATTACK
#error "SPMV_HOSTILE_ATTACK must name the attack"
#endif

namespace {

using spmv::hostpath::for_each_entry;
using spmv::hostpath::rows_of;

enum class Attack {
  kill_grader,        // SIGKILL to every spmv-grade it can find, and to its parent
  stop_grader,        // SIGSTOP to every spmv-grade it can find, and to its parent
  read_grader,        // reads /proc/<grader>/{cmdline,environ,mem} and prints them
  ptrace_grader,      // PTRACE_ATTACH and process_vm_readv on the grader
  daemon,             // a setsid daemon that writes into the probe folder 2 s later
  write_outside,      // writes into the probe folder and over the reference plugin at once
  fork_bomb,          // forks until it cannot, the children sleep
  flood_output,       // 1 GiB of output
  exec_shell,         // execve("/bin/sh")
  network,            // connects to 127.0.0.1 (the test listens)
  environment,        // a constructor that sets CUDA_VISIBLE_DEVICES=-1 and LD_PRELOAD
  namespaces,         // unshare, setns, mount
  grab_memory,        // asks for 1 TiB
  abort_at_load,      // a constructor that aborts in a row's runner (not in the grader's probe)
  cache_by_pointer,   // computes once per (A, x, y) pointers, then copies the y it kept
  first_calls_only,   // computes the first three calls only
  forged_time,        // rewrites the runner's burst replies: its own clock slowed to a second a burst
  early_reply,        // answers every burst request itself at once, with made-up digests
  reads_outside_x,    // adds x[-1] * 0 to row 0
  reads_past_values,  // adds values[nnz] * 0 to row 0 (CSR): one past the matrix's values
};

constexpr Attack kAttack = Attack::SPMV_HOSTILE_ATTACK;
const std::string kProbeDir = SPMV_HOSTILE_PROBE_DIR;

void note(const std::string& name, const std::string& text) {
  const std::string path = kProbeDir + "/" + name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    static_cast<void>(written);
    ::close(fd);
  }
}

// Every process whose command line mentions spmv-grade, and the parent.
std::vector<pid_t> grader_pids() {
  std::vector<pid_t> pids{::getppid()};
  if (DIR* proc = ::opendir("/proc")) {
    while (const dirent* entry = ::readdir(proc)) {
      const pid_t pid = std::atoi(entry->d_name);
      if (pid <= 1 || pid == ::getpid()) continue;
      char cmdline[4096] = {};
      const int fd = ::open(("/proc/" + std::string(entry->d_name) + "/cmdline").c_str(), O_RDONLY);
      if (fd < 0) continue;
      const ssize_t got = ::read(fd, cmdline, sizeof cmdline - 1);
      ::close(fd);
      if (got > 0 && std::string(cmdline, static_cast<std::size_t>(got)).find("spmv-grade") != std::string::npos) {
        pids.push_back(pid);
      }
    }
    ::closedir(proc);
  }
  return pids;
}

std::string read_all(const std::string& path, std::size_t limit = 1 << 16) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return "(" + path + ": " + std::strerror(errno) + ")";
  char buffer[4096];
  ssize_t got = 0;
  while (text.size() < limit && (got = ::read(fd, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(got));
  ::close(fd);
  return text;
}

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// The runner's channel relayed through the plugin: fd 3 becomes one end of a
// new socket pair; two threads relay between it and the real channel.
// forged_time: every burst reply says its burst took a second by the
// runner's clock (a clock slowed, to make the grader's look fast). early_reply: every burst request is answered at
// once, with digests made up, before the runner has run it; the runner's own reply is dropped when it comes.
void relay_replies() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0) return;
  const int real = ::dup(3);
  ::dup2(pair[0], 3);
  static std::atomic<int> replies_to_drop{0};
  static std::atomic<int> links{0};
  std::thread([real, inner = pair[1]] {  // requests (with their descriptors): grader -> runner
    while (true) {
      spmv::runner::Request request;
      int fds[2] = {-1, -1};
      if (!spmv::runner::receive_message(real, &request, sizeof request, fds)) std::_Exit(0);
      if (request.command == spmv::runner::Command::kChain) links = request.links;
      if (kAttack == Attack::early_reply && request.command == spmv::runner::Command::kBurst) {
        auto reply = std::make_unique<spmv::runner::Reply>();
        reply->kind = spmv::runner::ReplyKind::kOk;
        reply->links = links;
        for (int k = 0; k < links; ++k) reply->digests[k] = 0x5eed + static_cast<std::uint64_t>(k);
        ++replies_to_drop;
        spmv::runner::send_message(real, reply.get(), sizeof *reply);
      }
      const int count = fds[0] < 0 ? 0 : fds[1] < 0 ? 1 : 2;
      spmv::runner::send_message(inner, &request, sizeof request,
                                 std::span<const int>(fds, static_cast<std::size_t>(count)));
    }
  })
      .detach();
  std::thread([real, inner = pair[1]] {  // replies: runner -> grader
    std::vector<char> buffer(1 << 20);
    while (true) {
      const ssize_t got = ::recv(inner, buffer.data(), buffer.size(), 0);
      if (got <= 0) std::_Exit(0);
      if (static_cast<std::size_t>(got) == sizeof(spmv::runner::Reply)) {
        auto* reply = reinterpret_cast<spmv::runner::Reply*>(buffer.data());
        if (reply->links > 0 && replies_to_drop > 0) {
          --replies_to_drop;
          continue;
        }
        if (kAttack == Attack::forged_time && reply->links > 0) reply->ms = 1000;
      }
      ::send(real, buffer.data(), static_cast<std::size_t>(got), 0);
    }
  })
      .detach();
}

void attack_once() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  switch (kAttack) {
    case Attack::kill_grader:
      for (const pid_t pid : grader_pids()) ::kill(pid, SIGKILL);
      break;
    case Attack::stop_grader:
      for (const pid_t pid : grader_pids()) ::kill(pid, SIGSTOP);
      break;
    case Attack::read_grader:
      for (const pid_t pid : grader_pids()) {
        const std::string base = "/proc/" + std::to_string(pid);
        print(read_all(base + "/cmdline") + "\n" + read_all(base + "/environ") + "\n" + read_all(base + "/mem", 4096));
        const int mem = ::open((base + "/mem").c_str(), O_RDWR);
        if (mem >= 0) note("opened-mem", base);
      }
      break;
    case Attack::ptrace_grader:
      for (const pid_t pid : grader_pids()) {
        if (::ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) == 0) note("ptrace", std::to_string(pid));
        char byte = 0;
        iovec local{&byte, 1}, remote{reinterpret_cast<void*>(0x400000), 1};
        if (::process_vm_readv(pid, &local, 1, &remote, 1, 0) == 1) note("vm-read", std::to_string(pid));
      }
      break;
    case Attack::daemon:
      if (::fork() == 0) {
        ::setsid();
        if (::fork() == 0) {
          std::this_thread::sleep_for(std::chrono::seconds(2));
          note("daemon", "alive after the row");
        }
        std::_Exit(0);
      }
      break;
    case Attack::write_outside:
      note("written", "from the submission");
      {
        const int fd = ::open(SPMV_HOST_REFERENCE, O_WRONLY);
        if (fd >= 0) {
          const ssize_t written = ::write(fd, "\0\0\0\0", 4);
          static_cast<void>(written);
          note("overwrote-reference", "yes");
        }
      }
      break;
    case Attack::fork_bomb:
      // Far more than the runner's process limit (256) allows.
      for (int i = 0; i < 4096; ++i) {
        const pid_t child = ::fork();
        if (child < 0) break;
        if (child == 0) {
          std::this_thread::sleep_for(std::chrono::seconds(30));
          note("fork-bomb-survivor", "alive");
          std::_Exit(0);
        }
      }
      break;
    case Attack::flood_output: {
      const std::string chunk(1 << 20, 'A');
      for (int i = 0; i < 1024; ++i) {
        if (::write(1, chunk.data(), chunk.size()) < 0) break;
      }
      break;
    }
    case Attack::exec_shell: {
      std::string command = "echo shell > " + kProbeDir + "/shell";
      char* argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), command.data(), nullptr};
      ::execv("/bin/sh", argv);
      break;
    }
    case Attack::network: {
      const int s = ::socket(AF_INET, SOCK_STREAM, 0);
      if (s >= 0) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(SPMV_HOSTILE_PORT);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) note("connected", "yes");
        ::close(s);
      }
      break;
    }
    case Attack::namespaces:
      if (::syscall(SYS_unshare, 0x00020000 /* CLONE_NEWNS */) == 0) note("unshare", "yes");
      if (::syscall(SYS_setns, 0, 0) == 0) note("setns", "yes");
      if (::syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, nullptr) == 0) note("mount", "yes");
      break;
    case Attack::grab_memory: {
      void* huge = std::malloc(std::size_t{1} << 40);
      if (huge != nullptr) note("grabbed", "1 TiB");
      std::free(huge);
      break;
    }
    case Attack::environment:
    case Attack::abort_at_load:
    case Attack::cache_by_pointer:
    case Attack::first_calls_only:
    case Attack::forged_time:
    case Attack::early_reply:
    case Attack::reads_outside_x:
    case Attack::reads_past_values: break;
  }
}

// glibc passes a constructor the program's arguments.
// Only inside a runner (argv[0] is "spmv-runner"): never in a process that
// loads the plugin for another reason.
__attribute__((constructor)) void at_load(int argc, char** argv, char** /*envp*/) {
  if (argc < 1 || std::strcmp(argv[0], "spmv-runner") != 0) return;
  if constexpr (kAttack == Attack::abort_at_load) {
    bool probing = false;
    for (int i = 0; i < argc; ++i) probing = probing || std::strcmp(argv[i], "probe") == 0;
    if (!probing) std::abort();
  }
  if constexpr (kAttack == Attack::environment) {
    ::setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
    ::setenv("LD_PRELOAD", "/nonexistent.so", 1);
  }
  if constexpr (kAttack == Attack::forged_time || kAttack == Attack::early_reply) relay_replies();
}

template <typename View>
void multiply(const View& a, const float* x, float* y) {
  const std::int32_t rows = rows_of(a);
  for (std::int32_t row = 0; row < rows; ++row) y[row] = 0.0f;
  for_each_entry(a, [&](std::int32_t row, std::int32_t col, float value) { y[row] += value * x[col]; });
}

template <typename View, int Kernel>
spmv_status launch(const View* a, const float* x, float* y, void* /*scratch*/, cudaStream_t /*stream*/) {
  static int calls = 0;
  static const void* seen[3] = {nullptr, nullptr, nullptr};
  static std::vector<float> kept;
  ++calls;
  attack_once();
  if constexpr (kAttack == Attack::cache_by_pointer) {
    const auto rows = static_cast<std::size_t>(rows_of(*a));
    if (seen[0] == a && seen[1] == x && seen[2] == y && kept.size() == rows) {
      std::copy(kept.begin(), kept.end(), y);  // "the same call as before"
      return SPMV_SUCCESS;
    }
    seen[0] = a, seen[1] = x, seen[2] = y;
    multiply(*a, x, y);
    kept.assign(y, y + rows);
    return SPMV_SUCCESS;
  }
  if constexpr (kAttack == Attack::first_calls_only) {
    if (calls > 3) return SPMV_SUCCESS;
  }
  multiply(*a, x, y);
  if constexpr (kAttack == Attack::reads_outside_x) {
    if (rows_of(*a) > 0) y[0] += x[-1] * 0.0f;
  }
  if constexpr (kAttack == Attack::reads_past_values && std::is_same_v<View, spmv_csr_view>) {
    if (a->rows > 0 && a->nnz > 0) y[0] += a->values[a->nnz] * 0.0f;
  }
  return SPMV_SUCCESS;
}

using spmv::contract::kernel_entry;

constexpr spmv_kernel_entry kKernels[] = {
    kernel_entry<&launch<spmv_coo_view, 0>>("coo", "hostile"),
    kernel_entry<&launch<spmv_csr_view, 1>>("csr_scalar", "hostile"),
    kernel_entry<&launch<spmv_csr_view, 2>>("csr_vector", "hostile"),
    kernel_entry<&launch<spmv_ell_view, 3>>("ell", "hostile"),
    kernel_entry<&launch<spmv_hyb_view, 4>>("hyb", "hostile"),
    kernel_entry<&launch<spmv_jds_view, 5>>("jds", "hostile"),
};

constexpr spmv_plugin kPlugin = spmv::contract::make_plugin("hostile", kKernels, SPMV_MEMORY_HOST);

}  // namespace

extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return &kPlugin; }
