# The catalog of formats and submission kernels, read from its one place,
# contract/include/spmv/contract/catalog.h (the C preprocessor reads the same
# lines as X-macros).
#
#   spmv_read_catalog(<catalog.h>)
#     Sets, in the caller's scope:
#       SPMV_FORMATS                  the formats' names, in the catalog's order
#       SPMV_FORMAT_NUMBER_<name>     each one's number in the plugin ABI
#       SPMV_SUBMISSION_KERNELS       the kernels a submission implements, in
#                                     report order (file stem = kernel name)
#       SPMV_KERNEL_DESCRIPTION_<name>  each one's line for reports
#     and stops the configuration at an entry it cannot read, so that no
#     list here silently differs from the compiler's.
#
# Included, it reads the catalog beside this folder into those variables
# (configuring again when the catalog changes). StudentKitAssemble.cmake
# calls spmv_read_catalog in script mode.

include_guard(GLOBAL)

function(spmv_read_catalog catalog)
  # Line by line, never as a CMake list: a line's continuation backslash
  # or a comment's semicolon or bracket would join or split list elements.
  file(READ "${catalog}" text)
  set(formats "")
  set(numbers "")
  set(kernels "")
  set(line_number 0)
  while(NOT text STREQUAL "")
    math(EXPR line_number "${line_number} + 1")
    string(FIND "${text}" "\n" end)
    if(end EQUAL -1)
      set(line "${text}")
      set(text "")
    else()
      string(SUBSTRING "${text}" 0 ${end} line)
      math(EXPR end "${end} + 1")
      string(SUBSTRING "${text}" ${end} -1 text)
    endif()
    if(line MATCHES "^[ \t]*FORMAT\\(")
      if(NOT line MATCHES "^[ \t]*FORMAT\\(([a-z][a-z0-9_]*), ([A-Z][A-Z0-9_]*), ([A-Z][A-Za-z0-9_]*), ([1-9][0-9]*)\\)[ \t]*\\\\?$")
        message(FATAL_ERROR "${catalog}:${line_number}: expected FORMAT(name, NAME, Name, number) alone on the line, "
                            "found: ${line}")
      endif()
      set(name "${CMAKE_MATCH_1}")
      set(number "${CMAKE_MATCH_4}")
      string(TOUPPER "${name}" upper)
      if(NOT upper STREQUAL CMAKE_MATCH_2)
        message(FATAL_ERROR "${catalog}:${line_number}: format ${name}'s enumerator name must be ${upper}")
      endif()
      if(name IN_LIST formats OR number IN_LIST numbers)
        message(FATAL_ERROR "${catalog}:${line_number}: format ${name} or number ${number} is in the catalog twice")
      endif()
      list(APPEND formats "${name}")
      list(APPEND numbers "${number}")
      set(SPMV_FORMAT_NUMBER_${name} "${number}" PARENT_SCOPE)
    elseif(line MATCHES "^[ \t]*KERNEL\\(")
      if(NOT line MATCHES "^[ \t]*KERNEL\\(([a-z][a-z0-9_]*), \"([^\"\\\\;]*)\"\\)[ \t]*\\\\?$")
        message(FATAL_ERROR "${catalog}:${line_number}: expected KERNEL(name, \"description\") alone on the line "
                            "(no quote, backslash or semicolon in the description), found: ${line}")
      endif()
      if(CMAKE_MATCH_1 IN_LIST kernels)
        message(FATAL_ERROR "${catalog}:${line_number}: kernel ${CMAKE_MATCH_1} is in the catalog twice")
      endif()
      list(APPEND kernels "${CMAKE_MATCH_1}")
      set(SPMV_KERNEL_DESCRIPTION_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}" PARENT_SCOPE)
    endif()
  endwhile()
  if(NOT formats OR NOT kernels)
    message(FATAL_ERROR "${catalog}: no FORMAT or no KERNEL line")
  endif()
  set(SPMV_FORMATS "${formats}" PARENT_SCOPE)
  set(SPMV_SUBMISSION_KERNELS "${kernels}" PARENT_SCOPE)
endfunction()

set(SPMV_CATALOG "${CMAKE_CURRENT_LIST_DIR}/../contract/include/spmv/contract/catalog.h")
get_filename_component(SPMV_CATALOG "${SPMV_CATALOG}" ABSOLUTE)
if(NOT CMAKE_SCRIPT_MODE_FILE)
  spmv_read_catalog("${SPMV_CATALOG}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${SPMV_CATALOG}")
endif()
