# Building kernel plugins: shared modules that export one symbol,
# spmv_plugin_entry, returning the table of their kernels
# (contract/include/spmv/contract/plugin.h).
#
# Used by the grader's own build (reference/, student/) and by the standalone
# submission project (cmake/submission/), which builds one submission's plugin
# against the contract headers without building the grader.
#
#   spmv_add_submission_plugin(<target> DIR <dir> NAME <name>
#                              [OUTPUT_DIRECTORY <dir>] [UNTRUSTED])
#     A plugin from DIR/<kernel>.cu for each kernel of
#     SPMV_SUBMISSION_KERNELS (the catalog, cmake/SpmvCatalog.cmake) and the
#     submission table (contract/src/submission_table.cpp); the table's
#     plugin name is <name>, the file libspmv_<name>.so. Also defines
#     the object library <target>_objects (its objects and table, for tests
#     that call the kernels without loading the module). UNTRUSTED: DIR is
#     a student's folder, compiled where it is: everything in it must be a
#     regular file or a folder (no symbolic link, FIFO, device or socket),
#     or the configuration stops naming the file, since the compiler would
#     read what a link points at and quote it in its errors.
#
#   spmv_configure_plugin_objects(<target> NAME <name>)
#     Compile settings every plugin object needs: hidden visibility, C++20,
#     the shared CUDA runtime, the plugin name for the table source, the
#     contract headers, warnings. Set per target, so a plugin builds the same
#     inside the grader's project and in the standalone one.
#
#   spmv_add_plugin_module(<target> NAME <name> OBJECTS <object library>
#                          [OUTPUT_DIRECTORY <dir>] [STATIC_CUDA_RUNTIME])
#     The MODULE library itself, linked from an object library's objects
#     against the CUDA runtime only: the shared one, which the process that
#     loads it provides; with STATIC_CUDA_RUNTIME a copy of its own, for a
#     plugin shipped prebuilt (the student kit's reference plugin,
#     cmake/StudentKit.cmake), which must load beside any toolkit's runtime.
#
# Plugins go to ${PROJECT_BINARY_DIR}/plugins unless OUTPUT_DIRECTORY says
# otherwise.

include_guard(DIRECTORY)

# CMake 3.25 (the oldest this project supports) does not know nvcc's C++20
# flag, so CUDA_STANDARD 20 (set per target below, and project-wide by the
# top-level CMakeLists.txt) is a generate-time error there; nvcc has had
# -std=c++20 since CUDA 12.0. Newer CMake defines these itself. Included
# after project(), this sets them in the including (top-level) scope.
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

# contract/src/ next to this file's folder: the table sources live there.
set(SPMV_CONTRACT_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/../contract/src"
    CACHE INTERNAL "Sources of the plugin tables")

# SPMV_SUBMISSION_KERNELS: the kernel files every submission provides (file
# stem = kernel name), from the catalog.
include(${CMAKE_CURRENT_LIST_DIR}/SpmvCatalog.cmake)

function(spmv_configure_plugin_objects target)
  cmake_parse_arguments(ARG "" "NAME" "" ${ARGN})
  if(NOT ARG_NAME)
    message(FATAL_ERROR "spmv_configure_plugin_objects(${target}): NAME is required")
  endif()
  # Everything but the entry point stays inside the module, so two plugins
  # defining the same kernel names (spmv_coo, ...) never interpose on each
  # other when the grader loads both.
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON
    CXX_STANDARD 20
    CXX_STANDARD_REQUIRED ON
    CUDA_STANDARD 20
    CUDA_STANDARD_REQUIRED ON
    CUDA_RUNTIME_LIBRARY Shared)
  target_compile_definitions(${target} PRIVATE SPMV_PLUGIN_NAME="${ARG_NAME}")
  target_link_libraries(${target} PUBLIC spmv::contract)
  if(COMMAND spmv_set_warnings)
    spmv_set_warnings(${target})
  endif()
endfunction()

function(spmv_add_plugin_module target)
  cmake_parse_arguments(ARG "STATIC_CUDA_RUNTIME" "NAME;OBJECTS;OUTPUT_DIRECTORY" "" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_OBJECTS)
    message(FATAL_ERROR "spmv_add_plugin_module(${target}): NAME and OBJECTS are required")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/plugins")
  endif()
  # The shared CUDA runtime: a plugin built with the grader uses the grader's
  # runtime (one context, one error state), never a static copy of its own.
  # A prebuilt plugin cannot know the runtime of the grader that will load
  # it (libcudart.so.12 or .13): it carries its own, which works in the same
  # primary context and on the streams it is given.
  set(runtime CUDA::cudart)
  set(runtime_kind Shared)
  if(ARG_STATIC_CUDA_RUNTIME)
    set(runtime CUDA::cudart_static)
    set(runtime_kind Static)
  endif()
  add_library(${target} MODULE $<TARGET_OBJECTS:${ARG_OBJECTS}>)
  target_link_libraries(${target} PRIVATE spmv::contract ${runtime})
  set_target_properties(${target} PROPERTIES
    CUDA_RUNTIME_LIBRARY ${runtime_kind}
    OUTPUT_NAME "spmv_${ARG_NAME}"
    LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}"
    LINKER_LANGUAGE CXX)
  # An undefined symbol (a kernel file that forgot a launch function) fails
  # the link here instead of the grader's dlopen.
  target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  # Code pulled in from static archives (on some toolchains the C++ runtime
  # support library) stays local too: only spmv_plugin_entry is exported.
  target_link_options(${target} PRIVATE "LINKER:--exclude-libs,ALL")
  # So do the default-visibility inline functions of the C++ library's
  # headers (g++ 13's std::thread emits one into every module that starts a
  # thread), which hidden visibility does not reach: a version script.
  set(exports "${CMAKE_CURRENT_BINARY_DIR}/${target}.exports")
  file(WRITE "${exports}" "{\n  global: spmv_plugin_entry;\n  local: *;\n};\n")
  target_link_options(${target} PRIVATE "LINKER:--version-script=${exports}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${exports}")
endfunction()

# Stops the configuration when DIR holds anything but regular files and
# folders, naming each such entry and what it is (never what a link points
# at). The folder is checked when configured and compiled later in place: a
# folder the staff hold, which no student changes in between (the graders'
# own path, tools/build-submission, copies the files it checks instead).
function(_spmv_refuse_irregular_files dir)
  execute_process(
    COMMAND find "${dir}" -mindepth 1 ( -type l -o ( ! -type f ! -type d ) ) -printf "%y %P\\n"
    OUTPUT_VARIABLE entries RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "Submission ${dir}: could not list its files: ${errors}")
  endif()
  string(REGEX REPLACE "\n$" "" entries "${entries}")
  if(entries STREQUAL "")
    return()
  endif()
  string(REPLACE "\n" ";" entries "${entries}")
  set(found "")
  foreach(entry IN LISTS entries)
    string(SUBSTRING "${entry}" 0 1 kind)
    string(SUBSTRING "${entry}" 2 -1 name)
    if(kind STREQUAL "l")
      set(kind "a symbolic link")
    elseif(kind STREQUAL "p")
      set(kind "a FIFO")
    elseif(kind STREQUAL "s")
      set(kind "a socket")
    else()
      set(kind "a device")
    endif()
    string(APPEND found "\n  ${name} is ${kind}")
  endforeach()
  message(FATAL_ERROR "Submission ${dir} holds files that are not regular files:${found}\n"
                      "A submission's files must be regular files inside its folder (the compiler would read "
                      "what a link points at): replace each by the file itself, or remove it.")
endfunction()

function(spmv_add_submission_plugin target)
  cmake_parse_arguments(ARG "UNTRUSTED" "DIR;NAME;OUTPUT_DIRECTORY" "" ${ARGN})
  if(NOT ARG_DIR OR NOT ARG_NAME)
    message(FATAL_ERROR "spmv_add_submission_plugin(${target}): DIR and NAME are required")
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z0-9_]+$")
    message(FATAL_ERROR "spmv_add_submission_plugin(${target}): NAME \"${ARG_NAME}\" "
                        "may hold only letters, digits and underscores")
  endif()
  get_filename_component(dir "${ARG_DIR}" ABSOLUTE)
  if(NOT IS_DIRECTORY "${dir}")
    message(FATAL_ERROR "spmv_add_submission_plugin(${target}): no submission folder ${dir}")
  endif()

  if(ARG_UNTRUSTED)
    _spmv_refuse_irregular_files("${dir}")
  endif()

  set(sources "")
  set(missing "")
  foreach(kernel IN LISTS SPMV_SUBMISSION_KERNELS)
    if(IS_DIRECTORY "${dir}/${kernel}.cu")
      message(FATAL_ERROR "Submission ${dir}: ${kernel}.cu is a folder, not a regular file")
    elseif(EXISTS "${dir}/${kernel}.cu")
      list(APPEND sources "${dir}/${kernel}.cu")
    else()
      list(APPEND missing "${kernel}.cu")
    endif()
  endforeach()
  if(missing)
    list(JOIN missing ", " missing_text)
    list(JOIN SPMV_SUBMISSION_KERNELS ".cu, " expected_text)
    message(FATAL_ERROR
      "Submission ${dir} lacks ${missing_text}: a submission holds ${expected_text}.cu "
      "(start from the stubs in student/ for any kernel not written yet)")
  endif()

  add_library(${target}_objects OBJECT ${sources} "${SPMV_CONTRACT_SOURCE_DIR}/submission_table.cpp")
  target_include_directories(${target}_objects PRIVATE "${dir}")
  spmv_configure_plugin_objects(${target}_objects NAME ${ARG_NAME})
  set(output_args "")
  if(ARG_OUTPUT_DIRECTORY)
    set(output_args OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()
  spmv_add_plugin_module(${target} NAME ${ARG_NAME} OBJECTS ${target}_objects ${output_args})
endfunction()
