# cmake -DROOT=<source dir> -DWORK_DIR=<scratch dir> -DCUDA_ARCHITECTURES=<arch>
#       -DNM=<nm> -P check_submission_build.cmake
# Builds student/ the way a submission is graded (tools/build-submission,
# the standalone project: no grader), checks the plugin's exports, then
# checks that a submission missing a kernel file is refused at configure
# time with a message naming the file.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(tool "${ROOT}/tools/build-submission")
set(plugin "${WORK_DIR}/libspmv_submission.so")

execute_process(COMMAND "${tool}" "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}"
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
execute_process(COMMAND "${tool}" "${incomplete}" "${WORK_DIR}/incomplete.so"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(result EQUAL 0 OR EXISTS "${WORK_DIR}/incomplete.so")
  message(FATAL_ERROR "build-submission accepted a submission without jds.cu")
endif()
if(NOT errors MATCHES "lacks[ \t\r\n]+jds\\.cu")
  message(FATAL_ERROR "build-submission refused a submission without jds.cu, but its message does not "
                      "name the file:\n${errors}")
endif()
message(STATUS "student/ builds alone; a submission without jds.cu is refused by name")
