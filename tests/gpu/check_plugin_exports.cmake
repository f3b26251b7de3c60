# cmake -DPLUGIN=<module.so> -DNM=<nm> -P check_plugin_exports.cmake
# Fails unless the module's dynamic symbol table defines exactly one symbol,
# spmv_plugin_entry: everything else must stay hidden, or two plugins loaded
# into one grader could bind to each other's kernels.
if(NOT EXISTS "${PLUGIN}")
  message(FATAL_ERROR "${PLUGIN}: no such file (build the plugin target first)")
endif()
execute_process(COMMAND "${NM}" -D --defined-only "${PLUGIN}"
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${PLUGIN}: ${NM} failed: ${errors}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${listing}")
set(exported "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ ]+)$")
    list(APPEND exported "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT exported STREQUAL "spmv_plugin_entry")
  list(JOIN exported ", " exported_text)
  message(FATAL_ERROR "${PLUGIN}: expected to export only spmv_plugin_entry, exports: ${exported_text}")
endif()
message(STATUS "${PLUGIN}: exports only spmv_plugin_entry")
