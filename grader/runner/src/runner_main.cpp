// spmv-runner: the process a plugin's code runs in. It is started by the
// grader through the sandbox (grader/sandbox), one per submission row and one
// for the reference kernels, and speaks the run protocol
// (spmv/runner/protocol.hpp) on fd 3:
//
//   1. start its executor (CUDA's context on the one visible GPU, or nothing
//      for host-memory plugins), then restrict itself (Landlock, seccomp):
//      after this it can open no new file outside its folder and the system
//      libraries, start no program, trace nothing;
//   2. answer kHello ("CUDA ready"): failures before this are the grader's;
//   3. kLoad the plugin from ./plugin.so: from here on, whatever happens in
//      this process is the plugin's doing;
//   4. kSetup, kRun, kChain, kBurst, kKeepLink, kCopyKept as the parent asks,
//      one at a time.
//
// It holds no golden result, no expected answer, no secret and no path of
// the grading machine: the parent judges everything from y.
//
//   spmv-runner --space device|host|probe --level LEVEL
//
// spmv-reference-runner is the same program built with cuSPARSE, for the
// reference plugin only: it may load a plugin that links vendor libraries,
// and times cuSPARSE for context (kCusparse).
#include <malloc.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "session.hpp"
#include "spmv/sandbox/sandbox.hpp"

#if defined(SPMV_SANITIZED_BUILD)
// A sanitized build (SPMV_SANITIZE) runs without RLIMIT_DATA (the
// sanitizer's shadow memory exceeds it; grading/setup.cpp): the runtime's
// allocator refuses what the limit would have, returning null as malloc
// does under the limit. A plugin's SIGSEGV, SIGBUS or SIGFPE kills the
// runner with that signal, as in a plain build, instead of becoming a
// sanitizer report and exit status 1. No leak check at exit: it needs
// ptrace, which the runner's seccomp filter denies. (The runner's
// environment is the grader's own making: ASAN_OPTIONS does not reach it.)
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=65536:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
         "detect_leaks=0";
}
extern "C" const char* __tsan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=65536:handle_segv=0:handle_sigbus=0:handle_sigfpe=0";
}
#endif

namespace {

struct Arguments {
  spmv::runner::Space space = spmv::runner::Space::kDevice;
  spmv::sandbox::Level level = spmv::sandbox::Level::kFull;
};

bool parse(int argc, char** argv, Arguments& arguments) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    const bool has_value = i + 1 < argc;
    if (argument == "--space" && has_value) {
      const std::string_view value = argv[++i];
      if (value == "device") {
        arguments.space = spmv::runner::Space::kDevice;
      } else if (value == "host") {
        arguments.space = spmv::runner::Space::kHost;
      } else if (value == "probe") {
        arguments.space = spmv::runner::Space::kProbe;
      } else {
        return false;
      }
    } else if (argument == "--level" && has_value) {
      const auto level = spmv::sandbox::parse_level(argv[++i]);
      if (!level) return false;
      arguments.level = *level;
    } else {
      return false;
    }
  }
  return true;
}

// Memory a case's arrays were read into is kept for the next case's: every
// allocation comes from the heap (none from a mapping of its own, which
// glibc makes for blocks over 32 MB at most and unmaps when freed), and the
// heap is never given back, so the next image is copied into pages the
// process has touched already, not into fresh ones that cost a fault each.
// On the public cases (an H200 machine) the six timing runners' 170 reads
// took 1.5 s before blocks of up to 32 MB were kept, 1.0 s after; a case of
// 12 M entries (100 MB of arrays) is read in about half the time with its
// blocks kept as well (docs/grading.md).
void keep_freed_memory() {
#if !defined(SPMV_SANITIZED_BUILD)
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  Arguments arguments;
  if (!parse(argc, argv, arguments)) {
    std::fprintf(stderr,
                 "usage: spmv-runner --space device|host|probe --level LEVEL\n"
                 "(started by spmv-grade; not meant to be run by hand)\n");
    return 2;
  }
  try {
#ifdef SPMV_RUNNER_CUSPARSE
    constexpr bool kReference = true;
#else
    constexpr bool kReference = false;
#endif
    spmv::runner::Session session(arguments.space, arguments.level, kReference);
    return session.serve();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spmv-runner: %s\n", e.what());
    return 70;
  }
}
