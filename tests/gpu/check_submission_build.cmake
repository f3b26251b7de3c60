# cmake -DROOT=<source dir> -DWORK_DIR=<scratch dir> -DCUDA_ARCHITECTURES=<arch>
#       -DNM=<nm> -DSANDBOX=<spmv-sandbox> -P check_submission_build.cmake
# Builds student/ the way a submission is graded (tools/build-submission,
# the standalone project: no grader), checks the plugin's exports, then
# checks that a submission missing a kernel file is refused at configure
# time with a message naming the file.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(tool "${ROOT}/tools/build-submission" --sandbox "${SANDBOX}")
set(plugin "${WORK_DIR}/libspmv_submission.so")

execute_process(COMMAND ${tool} "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}"
                        "${ROOT}/student" "${plugin}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT result EQUAL 0 OR NOT EXISTS "${plugin}")
  message(FATAL_ERROR "build-submission of student/ failed (exit ${result}):\n${output}\n${errors}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" "-DPLUGIN=${plugin}" "-DNM=${NM}"
                        -P "${CMAKE_CURRENT_LIST_DIR}/check_plugin_exports.cmake"
                RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${errors}")
endif()

set(incomplete "${WORK_DIR}/incomplete")
file(GLOB kernel_files "${ROOT}/student/*.cu")
file(COPY ${kernel_files} DESTINATION "${incomplete}")
file(REMOVE "${incomplete}/jds.cu")
execute_process(COMMAND ${tool} "${incomplete}" "${WORK_DIR}/incomplete.so"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(result EQUAL 0 OR EXISTS "${WORK_DIR}/incomplete.so")
  message(FATAL_ERROR "build-submission accepted a submission without jds.cu")
endif()
if(NOT errors MATCHES "lacks[ \t\r\n]+jds\\.cu")
  message(FATAL_ERROR "build-submission refused a submission without jds.cu, but its message does not "
                      "name the file:\n${errors}")
endif()
# The build is sandboxed: a kernel file that includes a reference kernel by
# its absolute path, or embeds a case file with .incbin, does not build.
foreach(attack include incbin)
  set(hostile "${WORK_DIR}/hostile_${attack}")
  file(COPY ${kernel_files} DESTINATION "${hostile}")
  if(attack STREQUAL "include")
    file(APPEND "${hostile}/coo.cu" "\n#include \"${ROOT}/reference/csr_scalar.cu\"\n")
  else()
    file(GLOB case_files "${ROOT}/testcases/public/*.mtx")
    list(GET case_files 0 case_file)
    file(APPEND "${hostile}/coo.cu" "\nasm(\".section .rodata\\n.incbin \\\"${case_file}\\\"\\n.text\");\n")
  endif()
  execute_process(COMMAND ${tool} "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}" "${hostile}"
                          "${WORK_DIR}/hostile_${attack}.so"
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  if(result EQUAL 0 OR EXISTS "${WORK_DIR}/hostile_${attack}.so")
    message(FATAL_ERROR "build-submission built a submission that ${attack}s a file of the grading machine")
  endif()
  if(NOT errors MATCHES "(Permission denied|No such file|file not found)")
    message(FATAL_ERROR "the ${attack} of a grading machine's file failed, but not for want of access:\n${errors}")
  endif()
endforeach()
message(STATUS "student/ builds alone; a submission without jds.cu is refused by name; "
               "one that includes or embeds a file of the grading machine does not build")
