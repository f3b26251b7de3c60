# Grading through CTest: one grading run per kernel, one test per (kernel, case)
# that reports its row, then a final step that
# gathers every row into Gradescope's results.json and prints the score.
#
#   ctest -L grade      the instructor's whole run (every registered case set)
#   ctest -L public     the student's run (the public cases)
#   ctest -L csr_vector one kernel
#
# Configure-time settings (cache variables):
#   SPMV_SUBMISSION      the submission folder to grade (default: student/);
#                        any other folder is built into plugins/ with
#                        spmv_add_submission_plugin(... UNTRUSTED)
#                        (cmake/SpmvPlugin.cmake): a folder holding a
#                        symbolic link, a FIFO or a device stops the
#                        configuration, naming it
#   SPMV_CASES           case folders, a ;-list (default: testcases/public).
#                        Tests of testcases/public are labelled `public`,
#                        of any other folder `hidden`. An entry that is not
#                        a folder, a list written with commas, a folder
#                        holding no case and a case name in two folders
#                        stop the configuration (FATAL_ERROR), as a policy
#                        that grades no kernel does: a staff mistake never
#                        becomes a grading that silently leaves cases out
#                        or registers no test at all. The case sets graded
#                        are printed at configure time.
#   SPMV_POLICY          the scoring policy (default: grader/policy/default-policy.ini)
#   SPMV_GRADE_TIMEOUT   seconds one row may take (default 60)
#   SPMV_GRADE_CONFIG    an spmv-grade --config file, e.g. holding a
#                        secret-seed for hidden runs (default: none)
#   SPMV_GRADE_GPUS      the GPUs to grade on, nvidia-smi's indices as a list
#                        (default: every GPU nvidia-smi lists)
#   SPMV_GRADE_ALLOW_UNISOLATED
#                        grade even where the submission cannot be contained
#                        for marks (a student's own account: the user level);
#                        default ON when configured by a user other than root
#
# grade.run-all grades every kernel's rows (every case folder) in one run of
# spmv-grade, as a direct run does, writing each kernel's rows to
# <build>/grading/rows/<kernel>.jsonl; with several GPUs the kernels are
# shared out among runs grade.run-part<N>, one per GPU. grade.run.<kernel>
# comes after it and grades that kernel's rows still missing there: none
# after a whole grading (it ends at once), all of them when a filtered
# `ctest -L <kernel>` left the whole run out. grade.setup empties the
# folder, so each grading measures afresh. Each row's test
# grade.<set>.<kernel>.<case> prints its row from the journal and passes or
# fails with it. The final step (fixture cleanup, so it also runs after a
# filtered `ctest -L ...`) writes <build>/grading/results.json and
# summary.md.
# Without a GPU every row test exits 77 and CTest shows it as skipped.
# Never two runs on one GPU: with one GPU the runs hold the RESOURCE_LOCK
# spmv_gpu even under ctest -j; with several, each takes one of them
# through CTest's resource groups (<build>/grading/gpus.json, written at
# configure time, which every `ctest` of the build reads).
#
# Case names are found here as spmv-grade finds them: every *.mtx and
# *.mtx.gz file of the folder is a case named by its file name without the
# extension, unless cases.ini names it; every [section] of cases.ini is a
# case of that name. Adding a file and re-running cmake adds its tests.

include_guard(GLOBAL)

# Case names of one folder, in spmv-grade's order.
function(_spmv_case_names dir out_var)
  set(names "")
  set(claimed "")
  set(manifest "${dir}/cases.ini")
  if(EXISTS "${manifest}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
    file(STRINGS "${manifest}" lines)
    foreach(line IN LISTS lines)
      # A ';' or '#' after whitespace starts a comment, as for spmv-grade.
      string(REGEX REPLACE "[ \t][;#].*$" "" line "${line}")
      if(line MATCHES "^[ \t]*\\[[ \t]*([^] \t]+)[ \t]*\\]")
        list(APPEND names "${CMAKE_MATCH_1}")
      elseif(line MATCHES "^[ \t]*file[ \t]*=[ \t]*(.*[^ \t])")
        get_filename_component(claimed_file "${CMAKE_MATCH_1}" NAME)
        list(APPEND claimed "${claimed_file}")
      endif()
    endforeach()
  endif()
  file(GLOB files CONFIGURE_DEPENDS RELATIVE "${dir}" "${dir}/*.mtx" "${dir}/*.mtx.gz")
  list(SORT files)
  foreach(file IN LISTS files)
    if(NOT file IN_LIST claimed)
      string(REGEX REPLACE "\\.mtx(\\.gz)?$" "" name "${file}")
      list(APPEND names "${name}")
    endif()
  endforeach()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# Kernels of weight > 0 in the policy's [kernels] section, in order. A
# policy that names no kernel there grades the default policy's kernels, as
# spmv-grade does: every kernel of the catalog (SPMV_SUBMISSION_KERNELS).
function(_spmv_policy_kernels policy out_var)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${policy}")
  file(STRINGS "${policy}" lines)
  set(section "")
  set(kernels "")
  set(names_kernels FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*\\[[ \t]*([^] \t]+)[ \t]*\\]")
      set(section "${CMAKE_MATCH_1}")
    elseif(section STREQUAL "kernels" AND line MATCHES "^[ \t]*([A-Za-z0-9_]+)[ \t]*=[ \t]*([0-9.eE+-]+)")
      set(names_kernels TRUE)
      if(CMAKE_MATCH_2 GREATER 0)
        list(APPEND kernels "${CMAKE_MATCH_1}")
      endif()
    endif()
  endforeach()
  if(NOT names_kernels)
    set(kernels "${SPMV_SUBMISSION_KERNELS}")
  endif()
  set(${out_var} "${kernels}" PARENT_SCOPE)
endfunction()

# The plugin target of the submission folder.
function(_spmv_submission_target submission_dir out_var)
  if(submission_dir STREQUAL "${PROJECT_SOURCE_DIR}/student" AND TARGET spmv_student)
    set(${out_var} spmv_student PARENT_SCOPE)
    return()
  endif()
  if(NOT COMMAND spmv_add_submission_plugin)
    message(FATAL_ERROR "SPMV_SUBMISSION=${submission_dir}: spmv_add_submission_plugin() "
                        "(cmake/SpmvPlugin.cmake) is not available to build it")
  endif()
  if(NOT TARGET spmv_graded_submission)
    spmv_add_submission_plugin(spmv_graded_submission DIR "${submission_dir}" NAME graded_submission UNTRUSTED)
  endif()
  set(${out_var} spmv_graded_submission PARENT_SCOPE)
endfunction()

function(spmv_register_grading)
  if(NOT TARGET spmv-grade)
    return()
  endif()
  set(SPMV_SUBMISSION "${PROJECT_SOURCE_DIR}/student" CACHE PATH "Submission folder that ctest -L grade grades")
  set(SPMV_CASES "${PROJECT_SOURCE_DIR}/testcases/public" CACHE STRING
      "Case folders that ctest -L grade grades (a list; testcases/public is public, others hidden)")
  set(SPMV_POLICY "${PROJECT_SOURCE_DIR}/grader/policy/default-policy.ini" CACHE FILEPATH "Scoring policy")
  set(SPMV_GRADE_TIMEOUT 60 CACHE STRING "Seconds one graded (kernel, case) row may take")
  execute_process(COMMAND id -u OUTPUT_VARIABLE configuring_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(unisolated_default OFF)
  if(NOT configuring_uid STREQUAL "0")
    set(unisolated_default ON)
  endif()
  option(SPMV_GRADE_ALLOW_UNISOLATED "Grade where the submission cannot be contained for marks (a user's own account)"
         ${unisolated_default})
  set(SPMV_GRADE_CONFIG "" CACHE FILEPATH "An spmv-grade --config file for graded runs (optional)")
  set(SPMV_GRADE_GPUS "" CACHE STRING
      "GPUs CTest grades on, nvidia-smi's indices as a ;-list (default: every GPU nvidia-smi lists)")

  get_filename_component(submission_dir "${SPMV_SUBMISSION}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
  if(NOT EXISTS "${SPMV_POLICY}" OR IS_DIRECTORY "${SPMV_POLICY}")
    message(FATAL_ERROR "SPMV_POLICY=${SPMV_POLICY}: no such policy file")
  endif()
  _spmv_submission_target("${submission_dir}" plugin_target)
  _spmv_policy_kernels("${SPMV_POLICY}" kernels)

  set(grading_dir "${PROJECT_BINARY_DIR}/grading")
  set(rows_dir "${grading_dir}/rows")
  set(common_args
    --submission "$<TARGET_FILE:${plugin_target}>"
    --policy "${SPMV_POLICY}"
    --timeout "${SPMV_GRADE_TIMEOUT}"
    --output-dir "${grading_dir}"
    --cache-dir "${PROJECT_BINARY_DIR}/cache"
    --strict-gpu --quiet)
  if(SPMV_GRADE_ALLOW_UNISOLATED)
    list(APPEND common_args --allow-unisolated)
  endif()
  if(TARGET spmv_reference_plugin)
    list(APPEND common_args --reference "$<TARGET_FILE:spmv_reference_plugin>")
  endif()
  if(SPMV_GRADE_CONFIG)
    list(APPEND common_args --config "${SPMV_GRADE_CONFIG}")
  endif()
  # Loading a large case and starting CUDA come on top of the row's limit.
  math(EXPR test_timeout "${SPMV_GRADE_TIMEOUT} + 120")

  # Every row sees every case folder (and picks its case with --case), so
  # that the policy's [case.<name>] sections are checked against all of
  # them and a name used in two folders is refused, as in a direct run.
  # Each entry must be a folder holding at least one case: a case set that
  # is mistyped, not there or empty is an error here, never a grading
  # without it.
  if(SPMV_CASES STREQUAL "")
    message(FATAL_ERROR "SPMV_CASES is empty: name the case folders to grade, a ;-list such as "
                        "-DSPMV_CASES=\"testcases/public;/secret/hidden\"")
  endif()
  set(case_dirs "")
  set(all_cases_args "")
  foreach(given IN LISTS SPMV_CASES)
    get_filename_component(cases_dir "${given}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${cases_dir}")
      if(given MATCHES ",")
        message(FATAL_ERROR "SPMV_CASES=${SPMV_CASES}: '${given}' is not a folder, and it holds a comma: SPMV_CASES "
                            "is a ;-list, e.g. -DSPMV_CASES=\"testcases/public;/secret/hidden\" (quoted, so the "
                            "shell keeps the ;)")
      elseif(EXISTS "${cases_dir}")
        message(FATAL_ERROR "SPMV_CASES: ${cases_dir} is a file, not a case folder; SPMV_CASES names folders "
                            "(a folder's cases.ini and matrix files are its cases)")
      else()
        message(FATAL_ERROR "SPMV_CASES: ${cases_dir} is not a folder (no such folder); a case set that is not "
                            "there cannot be graded")
      endif()
    endif()
    if(cases_dir IN_LIST case_dirs)
      message(FATAL_ERROR "SPMV_CASES: ${cases_dir} is listed twice")
    endif()
    list(APPEND case_dirs "${cases_dir}")
    list(APPEND all_cases_args --cases "${cases_dir}")
  endforeach()

  # The rows are graded by as few runs of spmv-grade as there are GPUs to
  # share them (a run keeps its runners' start-ups, case preparation and
  # reference runner across its rows), each writing to the journals; each
  # row's test (grade.<set>.<kernel>.<case>) reads its verdict from there. A
  # kernel's own run (grade.run.<kernel>) grades what is missing, so a
  # filtered `ctest -L <kernel>` grades that kernel only.
  set(set_labels "")
  set(kernel_cases "")
  set(all_case_names "")
  set(graded_sets "")
  foreach(cases_dir IN LISTS case_dirs)
    if(cases_dir STREQUAL "${PROJECT_SOURCE_DIR}/testcases/public")
      set(set_label public)
    else()
      set(set_label hidden)
    endif()
    list(APPEND set_labels ${set_label})
    _spmv_case_names("${cases_dir}" cases)
    if(NOT cases)
      message(FATAL_ERROR "SPMV_CASES: ${cases_dir} holds no case (no .mtx or .mtx.gz file and no [section] in a "
                          "cases.ini); a case set left empty would be graded as nothing at all")
    endif()
    foreach(case IN LISTS cases)
      if(case IN_LIST all_case_names)
        message(FATAL_ERROR "SPMV_CASES: case ${case} of ${cases_dir} is also in another folder of SPMV_CASES; "
                            "spmv-grade refuses two cases of one name")
      endif()
      list(APPEND all_case_names "${case}")
      list(APPEND kernel_cases "${set_label}/${case}")
    endforeach()
    list(LENGTH cases set_size)
    list(APPEND graded_sets "${cases_dir} (${set_label}, ${set_size} cases)")
  endforeach()
  if(NOT kernels)
    message(FATAL_ERROR "SPMV_POLICY=${SPMV_POLICY}: its [kernels] section gives no kernel a weight above 0, so "
                        "nothing would be graded")
  endif()
  # Said at every configure, so a hidden set left out shows before grading.
  list(JOIN graded_sets ", " graded_sets_text)
  list(JOIN kernels ", " kernels_text)
  message(STATUS "ctest -L grade grades ${submission_dir} on ${graded_sets_text}; kernels ${kernels_text}; "
                 "policy ${SPMV_POLICY}")
  if(NOT "hidden" IN_LIST set_labels)
    message(STATUS "ctest -L grade grades no hidden case set (SPMV_CASES names testcases/public only)")
  endif()
  list(REMOVE_DUPLICATES set_labels)
  list(LENGTH kernel_cases case_count)

  # GPUs: each run takes one through CTest's resource groups, from the spec
  # file written here; with one, or none, the runs also take turns on a lock.
  set(gpu_count 0)
  find_program(SPMV_NVIDIA_SMI nvidia-smi)
  if(SPMV_GRADE_GPUS)
    foreach(index IN LISTS SPMV_GRADE_GPUS)
      if(NOT index MATCHES "^[0-9]+$")
        message(FATAL_ERROR "SPMV_GRADE_GPUS=${SPMV_GRADE_GPUS}: '${index}' is not a GPU index "
                            "(nvidia-smi's, a ;-list such as 0;1)")
      endif()
    endforeach()
    set(gpu_indices ${SPMV_GRADE_GPUS})
    list(REMOVE_DUPLICATES gpu_indices)
    list(LENGTH gpu_indices gpu_count)
  elseif(SPMV_NVIDIA_SMI)
    execute_process(COMMAND "${SPMV_NVIDIA_SMI}" --query-gpu=index --format=csv,noheader
                    OUTPUT_VARIABLE gpu_indices RESULT_VARIABLE smi_result ERROR_QUIET)
    if(smi_result EQUAL 0)
      string(REGEX MATCHALL "[0-9]+" gpu_indices "${gpu_indices}")
      list(LENGTH gpu_indices gpu_count)
    endif()
  endif()
  set(gpu_entries "")
  if(gpu_count GREATER 0)
    foreach(index IN LISTS gpu_indices)
      list(APPEND gpu_entries "{\"id\": \"${index}\", \"slots\": 1}")
    endforeach()
  else()
    set(gpu_entries "{\"id\": \"0\", \"slots\": 1}")
  endif()
  list(JOIN gpu_entries ", " gpu_entries)
  file(WRITE "${grading_dir}/gpus.json"
       "{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [{\"gpus\": [${gpu_entries}]}]}\n")
  # Set in the top folder's CTestTestfile.cmake, so that a plain `ctest -j N`
  # reads it too and never gives two runs one GPU.
  if(NOT DEFINED CTEST_RESOURCE_SPEC_FILE)
    set(CTEST_RESOURCE_SPEC_FILE "${grading_dir}/gpus.json" PARENT_SCOPE)
  endif()

  # The runs over several kernels: one, or one per GPU (at most one per
  # kernel), the kernels dealt out in turn.
  list(LENGTH kernels kernel_count)
  set(part_count 1)
  if(gpu_count GREATER 1)
    set(part_count ${gpu_count})
    if(part_count GREATER kernel_count)
      set(part_count ${kernel_count})
    endif()
  endif()
  set(part_tests "")
  math(EXPR last_part "${part_count} - 1")
  foreach(part RANGE ${last_part})
    if(part_count EQUAL 1)
      list(APPEND part_tests "grade.run-all")
    else()
      math(EXPR part_number "${part} + 1")
      list(APPEND part_tests "grade.run-part${part_number}")
    endif()
    set(part_kernels_${part} "")
  endforeach()
  set(position 0)
  foreach(kernel IN LISTS kernels)
    math(EXPR part "${position} % ${part_count}")
    list(APPEND part_kernels_${part} "${kernel}")
    set(part_of_${kernel} ${part})
    math(EXPR position "${position} + 1")
  endforeach()

  # A run takes its GPU from the spec file (--device-from-ctest); with one
  # GPU it also holds the lock the GPU tests hold.
  macro(_spmv_takes_a_gpu test)
    set_tests_properties("${test}" PROPERTIES RESOURCE_GROUPS "gpus:1")
    if(gpu_count LESS_EQUAL 1)
      set_tests_properties("${test}" PROPERTIES RESOURCE_LOCK spmv_gpu)
    endif()
  endmacro()

  foreach(part RANGE ${last_part})
    list(GET part_tests ${part} part_test)
    list(JOIN part_kernels_${part} "," part_kernel_list)
    list(LENGTH part_kernels_${part} part_size)
    add_test(NAME "${part_test}"
      COMMAND spmv-grade ${common_args} ${all_cases_args} --kernel "${part_kernel_list}" --journal "${rows_dir}"
              --device-from-ctest)
    math(EXPR run_timeout "${part_size} * ${case_count} * ${test_timeout}")
    set_tests_properties("${part_test}" PROPERTIES
      LABELS "grade;${set_labels}"
      TIMEOUT ${run_timeout}
      SKIP_RETURN_CODE 77
      FIXTURES_REQUIRED spmv_grading)
    _spmv_takes_a_gpu("${part_test}")
  endforeach()

  set(planned_files "")
  foreach(kernel IN LISTS kernels)
    set(run_test "grade.run.${kernel}")
    set(journal "${rows_dir}/${kernel}.jsonl")
    add_test(NAME "${run_test}"
      COMMAND spmv-grade ${common_args} ${all_cases_args} --kernel "${kernel}" --journal "${rows_dir}"
              --device-from-ctest)
    math(EXPR run_timeout "${case_count} * ${test_timeout}")
    list(GET part_tests ${part_of_${kernel}} part_test)
    set_tests_properties("${run_test}" PROPERTIES
      LABELS "grade;${kernel};${set_labels}"
      TIMEOUT ${run_timeout}
      SKIP_RETURN_CODE 77
      DEPENDS "${part_test}"
      FIXTURES_SETUP "spmv_grading_${kernel}"
      FIXTURES_REQUIRED spmv_grading)
    _spmv_takes_a_gpu("${run_test}")
    list(APPEND planned_files "${kernel}.jsonl")
    foreach(entry IN LISTS kernel_cases)
      string(REPLACE "/" ";" entry "${entry}")
      list(GET entry 0 set_label)
      list(GET entry 1 case)
      set(test_name "grade.${set_label}.${kernel}.${case}")
      add_test(NAME "${test_name}"
        COMMAND spmv-grade --show-row "${journal}" --kernel "${kernel}" --case "${case}" --strict-gpu)
      set_tests_properties("${test_name}" PROPERTIES
        LABELS "grade;${kernel};${set_label}"
        SKIP_RETURN_CODE 77
        FIXTURES_REQUIRED "spmv_grading;spmv_grading_${kernel}")
    endforeach()
  endforeach()

  add_test(NAME grade.setup COMMAND ${CMAKE_COMMAND} -E rm -rf "${rows_dir}")
  set_tests_properties(grade.setup PROPERTIES LABELS "grade;${set_labels}" FIXTURES_SETUP spmv_grading)
  # The aggregation reads only the row files of these tests: anything else
  # in the folder is ignored (and said).
  list(JOIN planned_files "\n" planned_text)
  file(WRITE "${grading_dir}/planned-rows.txt" "${planned_text}\n")
  add_test(NAME grade.results
    COMMAND spmv-grade --aggregate "${rows_dir}" --planned "${grading_dir}/planned-rows.txt"
            --output-dir "${grading_dir}" --policy "${SPMV_POLICY}" --strict-gpu)
  set_tests_properties(grade.results PROPERTIES
    LABELS "grade;${set_labels}"
    FIXTURES_CLEANUP spmv_grading
    SKIP_RETURN_CODE 77)
endfunction()
