# Builds the module for tests/unit/emit/checked_lengths, compiles checked_lengths_caller.cpp against it
# and runs it: a length some inputs would carry past 2^63 is computed with overflow checks.
file(MAKE_DIRECTORY ${WORK})
set(fixture ${SOURCE}/tests/unit/emit/checked_lengths)
execute_process(COMMAND ${LOAM} build ${fixture}/model.onnxtext --options ${fixture}/options.json
                        --name checked_lengths -o ${WORK}/checked_lengths.hpp
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "loam build failed: ${err}")
endif()
execute_process(COMMAND ${COMPILER} -std=c++23 -O1 -I${WORK} ${SOURCE}/tests/unit/emit/checked_lengths_caller.cpp
                        -o ${WORK}/checked_lengths_caller
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the caller does not compile:\n${err}")
endif()
execute_process(COMMAND ${WORK}/checked_lengths_caller RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the caller failed:\n${out}${err}")
endif()
