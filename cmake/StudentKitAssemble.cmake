# cmake -DSOURCE_DIR=<repository> -DKIT_DIR=<build>/student-kit
#       -DREFERENCE_PLUGIN=<kit's reference .so> -DHOST_REFERENCE_PLUGIN=<host reference .so>
#       [-DSTRIP=<strip>] -DCUDA_ARCHITECTURES=<list> -DCUDA_VERSION=<toolkit version>
#       -DPROJECT_VERSION=<version> -P StudentKitAssemble.cmake
#
# Writes KIT_DIR/spmv-lab-student-kit/ afresh and KIT_DIR/spmv-lab-student-kit.tar.gz
# of it (the student-kit target, cmake/StudentKit.cmake, runs this).
cmake_minimum_required(VERSION 3.24)

foreach(var SOURCE_DIR KIT_DIR REFERENCE_PLUGIN HOST_REFERENCE_PLUGIN CUDA_ARCHITECTURES CUDA_VERSION PROJECT_VERSION)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "StudentKitAssemble.cmake: -D${var}=... is required")
  endif()
endforeach()

set(kit_name spmv-lab-student-kit)
set(kit "${KIT_DIR}/${kit_name}")
set(archive "${KIT_DIR}/${kit_name}.tar.gz")

# What goes in: globs relative to the repository (a folder's pattern ends in
# /* and takes everything under it). Everything else stays out.
set(allowed
  CMakeLists.txt
  CMakePresets.json
  .gitignore
  cmake/CudaArchitectures.cmake
  cmake/SpmvCatalog.cmake
  cmake/SpmvGrading.cmake
  cmake/SpmvPlugin.cmake
  cmake/SpmvPrebuilt.cmake
  cmake/SpmvSanitize.cmake
  cmake/SpmvWarnings.cmake
  cmake/submission/CMakeLists.txt
  contract/*
  student/*
  grader/CMakeLists.txt
  grader/core/*
  grader/memory/*
  grader/plugin/*
  grader/sandbox/*
  grader/cli/*
  grader/runner/*
  grader/app/*
  grader/policy/*
  testcases/public/*
  testcases/edge/*
  testcases/large/*
  docs/handout.md
  docs/student-guide.md
  docs/grading.md
  tools/quickstart
  tools/build-submission
  tests/CMakeLists.txt
  tests/gpu/CMakeLists.txt
  tests/gpu/*.cpp
  tests/gpu/*.hpp
  tests/gpu/*.cu
  tests/gpu/*.cmake
  tests/unit/sparse_test_support.hpp
  tests/unit/fresh_seed.hpp
  tests/unit/random_csr.hpp
  tests/kit/CMakeLists.txt)

# Left out of the allowed folders on purpose (regular expressions on the
# relative path): the CPU product of every format, and the tests of the
# reference kernels (which the kit cannot build) with the typed suite that
# checks kernels against the CPU product; editor and Python leftovers.
set(skipped
  "^grader/core/src/cpu_spmv/"
  "^grader/core/include/spmv/core/cpu_spmv\\.hpp$"
  "^tests/gpu/test_(reference_kernels|reference_formats|merge_scratch|reference_table|csr_auto_rule)\\.cpp$"
  "^tests/gpu/format_suite\\.hpp$"
  "(^|/)__pycache__/"
  "\\.(swp|pyc|orig|rej)$"
  "~$")

# Never in a kit, whatever the lists above say: the solutions and what
# describes them. A match stops the kit from being written.
set(denied
  "^reference/"
  "(^|/)tuning\\.hpp$"
  "(^|/)cpu_spmv(\\.(cpp|hpp)$|/)"
  "^grader/hostpath/"
  "(^|/)host_terms\\.hpp$"
  "(^|/)host_plugin\\.cpp$"
  "(^|/)faults/"
  "(^|/)fault_plugin\\.cu$"
  "^docs/performance\\.md$"
  "^cmake/StudentKit")

set(files "")
foreach(pattern IN LISTS allowed)
  if(pattern MATCHES "^(.*)/\\*$" AND IS_DIRECTORY "${SOURCE_DIR}/${CMAKE_MATCH_1}")
    file(GLOB_RECURSE found RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${CMAKE_MATCH_1}/*")
  else()
    file(GLOB found RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${pattern}")
  endif()
  if(NOT found)
    message(FATAL_ERROR "student kit: nothing in ${SOURCE_DIR} matches ${pattern}")
  endif()
  list(APPEND files ${found})
endforeach()
list(REMOVE_DUPLICATES files)
list(SORT files)

set(kept "")
foreach(file IN LISTS files)
  set(skip FALSE)
  foreach(regex IN LISTS skipped)
    if(file MATCHES "${regex}")
      set(skip TRUE)
    endif()
  endforeach()
  if(NOT skip)
    list(APPEND kept "${file}")
  endif()
endforeach()
foreach(file IN LISTS kept)
  foreach(regex IN LISTS denied)
    if(file MATCHES "${regex}")
      message(FATAL_ERROR "student kit: ${file} would be in the kit, but no kit may hold it (${regex})")
    endif()
  endforeach()
endforeach()

file(REMOVE_RECURSE "${kit}" "${archive}")
foreach(file IN LISTS kept)
  get_filename_component(folder "${file}" DIRECTORY)
  file(COPY "${SOURCE_DIR}/${file}" DESTINATION "${kit}/${folder}")
endforeach()

# The prebuilt plugins, without debug information (names of variables and
# source lines have no place in a kit).
file(MAKE_DIRECTORY "${kit}/prebuilt")
foreach(pair "${REFERENCE_PLUGIN}|libspmv_reference.so" "${HOST_REFERENCE_PLUGIN}|libspmv_host_reference.so")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 from)
  list(GET pair 1 name)
  file(COPY_FILE "${from}" "${kit}/prebuilt/${name}")
  if(STRIP)
    execute_process(COMMAND "${STRIP}" --strip-debug "${kit}/prebuilt/${name}" RESULT_VARIABLE stripped)
    if(NOT stripped EQUAL 0)
      message(FATAL_ERROR "student kit: ${STRIP} --strip-debug ${name} failed")
    endif()
  endif()
  file(SHA256 "${kit}/prebuilt/${name}" digest)
  set(SHA256_${name} "${digest}")
endforeach()

# Where the kit comes from, for the course staff's records and the reports'
# provenance (the grader records the reference plugin's SHA-256 too).
set(commit "unknown")
find_program(GIT git)
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" describe --always --dirty
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
string(REPLACE ";" ", " architectures "${CUDA_ARCHITECTURES}")
string(REGEX MATCH "^[0-9]+" cuda_major "${CUDA_VERSION}")
file(WRITE "${kit}/prebuilt/MANIFEST.txt"
  "SpMV Lab ${PROJECT_VERSION} student kit, made from ${commit}\n"
  "CUDA toolkit ${CUDA_VERSION}; CMake CUDA architectures ${architectures}\n"
  "${SHA256_libspmv_reference.so}  libspmv_reference.so\n"
  "${SHA256_libspmv_host_reference.so}  libspmv_host_reference.so\n")

# The oldest driver that runs the runtime linked into the reference plugin
# (NVIDIA's CUDA toolkit release notes, "minimum required driver version"
# for minor version compatibility).
set(min_driver_12 525)
set(min_driver_13 580)
if(NOT DEFINED min_driver_${cuda_major})
  message(FATAL_ERROR "student kit: the minimum driver for CUDA ${cuda_major} is not known here; add it")
endif()
set(KIT_MIN_DRIVER "${min_driver_${cuda_major}}")
set(KIT_PROJECT_VERSION "${PROJECT_VERSION}")
set(KIT_COMMIT "${commit}")
set(KIT_CUDA_VERSION "${CUDA_VERSION}")
set(KIT_CUDA_MAJOR "${cuda_major}")
set(KIT_ARCHITECTURES "${architectures}")
# The kernels a student writes, from the catalog: a line each, and their files.
include("${SOURCE_DIR}/cmake/SpmvCatalog.cmake")
spmv_read_catalog("${SOURCE_DIR}/contract/include/spmv/contract/catalog.h")
set(KIT_KERNELS "")
set(KIT_KERNEL_FILES "")
foreach(kernel IN LISTS SPMV_SUBMISSION_KERNELS)
  string(APPEND KIT_KERNELS "- `${kernel}` (`student/${kernel}.cu`): ${SPMV_KERNEL_DESCRIPTION_${kernel}}\n")
  list(APPEND KIT_KERNEL_FILES "`${kernel}.cu`")
endforeach()
string(REGEX REPLACE "\n$" "" KIT_KERNELS "${KIT_KERNELS}")
list(JOIN KIT_KERNEL_FILES " " KIT_KERNEL_FILES)
configure_file("${SOURCE_DIR}/kit/README.md.in" "${kit}/README.md" @ONLY)

# A fixed time and owner in the archive: the same kit gives the same bytes.
execute_process(COMMAND "${CMAKE_COMMAND}" -E tar czf "${archive}" --format=gnutar --mtime=2000-01-01
                        "${kit_name}"
                WORKING_DIRECTORY "${KIT_DIR}" RESULT_VARIABLE tarred)
if(NOT tarred EQUAL 0)
  message(FATAL_ERROR "student kit: could not write ${archive}")
endif()
list(LENGTH kept count)
message(STATUS "student kit: ${archive} (${count} files and 2 prebuilt plugins, from ${commit})")
