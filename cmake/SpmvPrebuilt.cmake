# Plugins used prebuilt instead of built from their sources: the reference
# plugin of a build without reference/ (-DSPMV_REFERENCE_PLUGIN=path.so), and
# in the student kit the host reference too (-DSPMV_HOST_REFERENCE_PLUGIN=
# path.so, instead of grader/hostpath/). See the top-level CMakeLists.txt.
#
#   spmv_import_prebuilt_plugin(<target> FILE <path.so> OUTPUT_NAME <name.so>
#                               [OUTPUT_DIRECTORY <dir>])
#     Copies <path.so> to <dir>/<name.so> (default: <build>/plugins, where
#     spmv-grade looks for its default plugins) when CMake runs, and again
#     whenever the file changes (configure_file tracks it), and defines
#     <target> as an IMPORTED GLOBAL MODULE library at the copy. So
#     `if(TARGET <target>)`, `$<TARGET_FILE:<target>>` and
#     add_dependencies(... <target>) work as for a plugin built here.

include_guard(GLOBAL)

function(spmv_import_prebuilt_plugin target)
  cmake_parse_arguments(ARG "" "FILE;OUTPUT_NAME;OUTPUT_DIRECTORY" "" ${ARGN})
  if(NOT ARG_FILE OR NOT ARG_OUTPUT_NAME)
    message(FATAL_ERROR "spmv_import_prebuilt_plugin(${target}): FILE and OUTPUT_NAME are required")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/plugins")
  endif()
  get_filename_component(file "${ARG_FILE}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
  if(NOT EXISTS "${file}" OR IS_DIRECTORY "${file}")
    message(FATAL_ERROR "${target}: the prebuilt plugin ${file} does not exist (a .so file is expected)")
  endif()
  set(copy "${ARG_OUTPUT_DIRECTORY}/${ARG_OUTPUT_NAME}")
  configure_file("${file}" "${copy}" COPYONLY)
  add_library(${target} MODULE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${copy}")
  message(STATUS "${target}: prebuilt, ${file} (copied to ${copy})")
endfunction()
