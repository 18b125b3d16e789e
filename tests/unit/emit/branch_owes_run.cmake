# Builds the module for tests/fixtures/branch/branch_owes under its relabelling layout, compiles
# branch_owes_caller.cpp against it and runs it: a condition one branch owes is checked in that
# branch's block only.
file(MAKE_DIRECTORY ${WORK})
set(fixture ${SOURCE}/tests/fixtures/branch)
execute_process(COMMAND ${LOAM} build ${fixture}/branch_owes/model.onnx --options ${fixture}/branch_owes.options.json
                        --name branch_owes -o ${WORK}/branch_owes.hpp
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "loam build failed: ${err}")
endif()
execute_process(COMMAND ${COMPILER} -std=c++23 -O1 -I${WORK} ${SOURCE}/tests/unit/emit/branch_owes_caller.cpp
                        -o ${WORK}/branch_owes_caller
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the caller does not compile:\n${err}")
endif()
execute_process(COMMAND ${WORK}/branch_owes_caller RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the caller failed:\n${out}${err}")
endif()
