# Chooses CMAKE_CUDA_ARCHITECTURES before project() enables CUDA.
#
# Order: an explicit -DCMAKE_CUDA_ARCHITECTURES=... wins; otherwise the
# compute capability of the GPU that nvidia-smi reports (the first one);
# otherwise SPMV_DEFAULT_CUDA_ARCHITECTURE, 90 (the course's H100), which
# compiles on a machine without a GPU. One architecture keeps builds quick.
set(SPMV_DEFAULT_CUDA_ARCHITECTURE 90)

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  find_program(SPMV_NVIDIA_SMI nvidia-smi)
  set(_spmv_arch "")
  if(SPMV_NVIDIA_SMI)
    execute_process(
      COMMAND "${SPMV_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE _spmv_caps
      RESULT_VARIABLE _spmv_smi_result
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_spmv_smi_result EQUAL 0 AND _spmv_caps MATCHES "^([0-9]+)\\.([0-9]+)")
      set(_spmv_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  if(_spmv_arch)
    message(STATUS "CUDA architecture ${_spmv_arch}, from the GPU nvidia-smi reports")
  else()
    set(_spmv_arch ${SPMV_DEFAULT_CUDA_ARCHITECTURE})
    message(STATUS "CUDA architecture ${_spmv_arch} (no GPU found; the default)")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${_spmv_arch} CACHE STRING "CUDA architectures to build for")
endif()
