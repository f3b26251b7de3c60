# spmv_set_warnings(<target>): the project's warning flags for C++ and CUDA
# sources of a target, as errors when SPMV_WARNINGS_AS_ERRORS is ON (the ci
# preset). Applied per target, never directory-wide.
function(spmv_set_warnings target)
  set(cxx_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  set(cuda_flags -Xcompiler=-Wall,-Wextra)
  if(SPMV_WARNINGS_AS_ERRORS)
    list(APPEND cxx_flags -Werror)
    list(APPEND cuda_flags -Werror=all-warnings -Xcompiler=-Werror)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${cxx_flags}>
    $<$<COMPILE_LANGUAGE:CUDA>:${cuda_flags}>)
endfunction()
