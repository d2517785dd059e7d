# cases_listed.cmake — for each test program or script, the cases its --list prints
# must be the ones tests/CMakeLists.txt found in its sources (a TEST_CASE
# or section the scan missed would never run under ctest).
#   cmake -DLISTS="LIST_COMMAND=case,case|LIST_COMMAND=case,..." -P cases_listed.cmake
string(REPLACE "|" ";" entries "${LISTS}")
set(bad 0)
foreach(entry ${entries})
  string(REGEX REPLACE "=.*" "" program "${entry}")   # the command that lists
  string(REGEX REPLACE "^[^=]*=" "" expected "${entry}")
  string(REPLACE "," ";" expected "${expected}")
  separate_arguments(command UNIX_COMMAND "${program}")
  execute_process(COMMAND ${command} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  string(REGEX REPLACE "\n$" "" out "${out}")
  string(REPLACE "\n" ";" listed "${out}")
  if(NOT rc EQUAL 0 OR NOT "${listed}" STREQUAL "${expected}")
    message(SEND_ERROR "${program} --list: '${listed}' (status ${rc}); ctest has '${expected}'")
    set(bad 1)
  else()
    list(LENGTH listed n)
    message(STATUS "${program}: ${n} cases, as ctest has them")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "cases_listed: a program's cases differ from ctest's")
endif()
