# Builds the module for a model with this tree's `loam build`, compiles a caller against it and runs
# it. -DLOAM, -DCOMPILER, -DSOURCE, -DWORK; -DMODEL, -DOPTIONS (paths below SOURCE), -DNAME (the
# module's namespace and header), -DCALLER (the caller's source below SOURCE); -DDEFINES, a
# definition the caller is compiled with.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${LOAM} build ${SOURCE}/${MODEL} --options ${SOURCE}/${OPTIONS} --name ${NAME} -o ${WORK}/${NAME}.hpp
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "loam build failed: ${err}")
endif()
execute_process(COMMAND ${COMPILER} -std=c++23 -O1 -I${WORK} ${DEFINES} ${SOURCE}/${CALLER} -o ${WORK}/${NAME}_caller
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the caller does not compile:\n${err}")
endif()
execute_process(COMMAND ${WORK}/${NAME}_caller RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the caller failed:\n${out}${err}")
endif()
