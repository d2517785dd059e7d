# cases_listed.cmake — for each test program, the cases its --list prints
# must be the ones tests/CMakeLists.txt found in its sources (a TEST_CASE
# the scan missed would never run under ctest).
#   cmake -DLISTS="PROGRAM=case,case|PROGRAM=case,..." -P cases_listed.cmake
string(REPLACE "|" ";" entries "${LISTS}")
set(bad 0)
foreach(entry ${entries})
  string(REGEX REPLACE "=.*" "" program "${entry}")
  string(REGEX REPLACE "^[^=]*=" "" expected "${entry}")
  string(REPLACE "," ";" expected "${expected}")
  execute_process(COMMAND ${program} --list OUTPUT_VARIABLE out RESULT_VARIABLE rc)
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
