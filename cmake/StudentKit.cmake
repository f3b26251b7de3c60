# The student kit: what a class gets instead of this repository, which holds
# the solutions (reference/, the per-format CPU walkers). Made with
#
#   cmake --build --preset dev --target student-kit
#
# into <build>/student-kit/: the folder spmv-lab-student-kit/ and
# spmv-lab-student-kit.tar.gz of it. The kit holds the contract, the stubs of
# student/, cmake/, the grader's sources (less grader/hostpath/, grader/bench/,
# grader/ta/, grader/fuzz/ and grader/core/src/cpu_spmv/), the public and
# edge cases, the student-facing docs, the tests of the student's kernels,
# and the two reference plugins prebuilt (prebuilt/):
#
#   libspmv_reference.so       the graded reference kernels (those of the
#                              catalog's SPMV_SUBMISSION_KERNELS) and the
#                              submission table, nothing else of reference/
#                              (no research kernels); machine code for
#                              SPMV_KIT_CUDA_ARCHITECTURES plus PTX for newer
#                              GPUs; the CUDA runtime linked statically
#   libspmv_host_reference.so  the host reference of grader/hostpath/, which
#                              the kit's grader grades host-path plugins against
#
# Both are stripped of debug information. The kit's top-level CMakeLists.txt
# finds prebuilt/ and builds with SPMV_KIT, SPMV_REFERENCE_PLUGIN and
# SPMV_HOST_REFERENCE_PLUGIN set. Which files go in is an allow-list in
# StudentKitAssemble.cmake, which also refuses to write a kit holding a
# file of the deny-list (reference sources, tuning constants, CPU walkers,
# fake submissions). tests/kit/ makes the kit, unpacks it and checks it.

include_guard(GLOBAL)

set(SPMV_KIT_CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CACHE STRING
    "CUDA architectures of the student kit's prebuilt reference plugin: machine code for the course's GPUs \
(A100 sm_80, H100 sm_90) and PTX (compute_90) that newer GPUs compile when they load it")

# The reference kernels a student writes too, one file each (the stems of
# SPMV_SUBMISSION_KERNELS, from the catalog: cmake/SpmvCatalog.cmake).
function(_spmv_kit_reference_sources out_var)
  set(sources "")
  foreach(kernel IN LISTS SPMV_SUBMISSION_KERNELS)
    list(APPEND sources "${PROJECT_SOURCE_DIR}/reference/${kernel}.cu")
  endforeach()
  set(${out_var} "${sources}" PARENT_SCOPE)
endfunction()

function(spmv_add_student_kit)
  if(TARGET spmv_host_reference)
    get_target_property(host_reference_imported spmv_host_reference IMPORTED)
  endif()
  if(NOT TARGET spmv_reference_kernels OR NOT TARGET spmv_host_reference OR host_reference_imported)
    message(STATUS "student-kit: not available (it needs reference/ and grader/hostpath/ built from source)")
    return()
  endif()

  set(kit_dir "${PROJECT_BINARY_DIR}/student-kit")

  # The kit's reference plugin: the graded kernels' objects, compiled for
  # the kit's architectures, with the submission table (named "reference").
  _spmv_kit_reference_sources(sources)
  add_library(spmv_kit_reference_objects OBJECT EXCLUDE_FROM_ALL
    ${sources} "${SPMV_CONTRACT_SOURCE_DIR}/submission_table.cpp")
  spmv_configure_plugin_objects(spmv_kit_reference_objects NAME reference)
  set_target_properties(spmv_kit_reference_objects PROPERTIES CUDA_ARCHITECTURES "${SPMV_KIT_CUDA_ARCHITECTURES}")
  spmv_add_plugin_module(spmv_kit_reference_plugin NAME reference OBJECTS spmv_kit_reference_objects
                         OUTPUT_DIRECTORY "${kit_dir}/plugins" STATIC_CUDA_RUNTIME)
  set_target_properties(spmv_kit_reference_plugin PROPERTIES EXCLUDE_FROM_ALL ON)

  find_program(SPMV_STRIP NAMES strip DOC "strip, for the student kit's prebuilt plugins")
  add_custom_target(student-kit
    COMMAND "${CMAKE_COMMAND}"
            "-DSOURCE_DIR=${PROJECT_SOURCE_DIR}"
            "-DKIT_DIR=${kit_dir}"
            "-DREFERENCE_PLUGIN=$<TARGET_FILE:spmv_kit_reference_plugin>"
            "-DHOST_REFERENCE_PLUGIN=$<TARGET_FILE:spmv_host_reference>"
            "-DSTRIP=${SPMV_STRIP}"
            "-DCUDA_ARCHITECTURES=${SPMV_KIT_CUDA_ARCHITECTURES}"
            "-DCUDA_VERSION=${CUDAToolkit_VERSION}"
            "-DPROJECT_VERSION=${PROJECT_VERSION}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/StudentKitAssemble.cmake"
    DEPENDS spmv_kit_reference_plugin spmv_host_reference
    COMMENT "Making the student kit in ${kit_dir}"
    VERBATIM)
endfunction()
