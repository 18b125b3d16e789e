# Generates the MLP module, then compiles caller.cpp twice: with LOAM_CONTROL (the input spelled
# Axes<Batch, In>, must compile) and without (Axes<In, Batch>, must fail naming the mismatch).
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${LOAM} build ${SOURCE}/examples/mlp/mlp.onnxtext
                        --checkpoint ${SOURCE}/examples/mlp/mlp.safetensors
                        --options ${SOURCE}/examples/mlp/layout.json -o ${WORK}/mlp.hpp
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "loam build failed: ${err}")
endif()
set(caller ${SOURCE}/tests/unit/emit/caller.cpp)
execute_process(COMMAND ${COMPILER} -std=c++23 -fsyntax-only -DLOAM_CONTROL -I${WORK} ${caller}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the correct caller does not compile:\n${err}")
endif()
execute_process(COMMAND ${COMPILER} -std=c++23 -fsyntax-only -I${WORK} ${caller}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a caller passing Axes<In, Batch> where forward takes Axes<Batch, In> compiled")
endif()
if(NOT err MATCHES "forward")
  message(FATAL_ERROR "the caller failed for another reason:\n${err}")
endif()
