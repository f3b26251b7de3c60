# SPMV_SANITIZE: GCC sanitizers for the whole build (the `sanitize` preset),
# to catch use after free, data races and undefined behaviour in the host
# code. A comma-separated list as for -fsanitize=, e.g.
#   cmake --preset sanitize                                  # address,undefined
#   cmake --preset sanitize -B build-tsan -DSPMV_SANITIZE=thread
# Empty (the default): no flag is added and the build is unchanged.
#
# Host C++ sources get the flags directly; the host code of CUDA sources
# gets them through nvcc's -Xcompiler (device code is not instrumented).
# Every executable and shared library links the runtime, so the plugins the
# runners load and the runners themselves are instrumented too. What differs
# in such a build (SPMV_SANITIZED_BUILD is defined), all for tests only:
# - runners get no RLIMIT_DATA (grader/app/src/grading/setup.cpp): the
#   runtime reserves terabytes of shadow memory before main(), which the
#   limit counts; the runtime's allocator caps a request at the same 64 GiB
#   instead (grader/runner/src/runner_main.cpp);
# - sandboxed programs (the runners, tests/sandbox/probe.cpp) build their
#   sanitizer options in, since the sandbox passes them no environment: no
#   leak check (it needs ptrace, which their seccomp filter denies), and a
#   crash keeps its signal;
# - the fakes that crash on purpose store to null uninstrumented.
# ctest --preset sanitize sets ASAN_OPTIONS/TSAN_OPTIONS for the tests'
# own processes so that their deliberate SIGSEGVs stay signals as well.
set(SPMV_SANITIZE "" CACHE STRING
    "Sanitizers for host code, as for -fsanitize= (address,undefined or thread); empty: none")

if(SPMV_SANITIZE)
  if(SPMV_SANITIZE MATCHES "thread" AND SPMV_SANITIZE MATCHES "address")
    message(FATAL_ERROR "SPMV_SANITIZE=${SPMV_SANITIZE}: thread and address cannot be combined")
  endif()
  message(STATUS "Sanitizers for host code: ${SPMV_SANITIZE}")
  # One -fsanitize= per sanitizer: nvcc splits -Xcompiler's argument at commas.
  string(REPLACE "," ";" _spmv_sanitizers "${SPMV_SANITIZE}")
  list(TRANSFORM _spmv_sanitizers PREPEND "-fsanitize=" OUTPUT_VARIABLE _spmv_sanitize_flags)
  list(APPEND _spmv_sanitize_flags -fno-omit-frame-pointer)
  if(SPMV_SANITIZE MATCHES "undefined")
    # A report is a failure (the test fails), not a line in a log.
    list(APPEND _spmv_sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  list(JOIN _spmv_sanitize_flags "," _spmv_sanitize_cuda_flags)
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:C,CXX>:${_spmv_sanitize_flags}>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_spmv_sanitize_cuda_flags}>")
  # CUDA targets link with the host compiler too (CMAKE_CUDA_HOST_LINK_LAUNCHER).
  add_link_options(${_spmv_sanitize_flags})
  add_compile_definitions(SPMV_SANITIZED_BUILD=1)
endif()
