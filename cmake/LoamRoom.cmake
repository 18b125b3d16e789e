# loam_room(NAME SOURCES... [DEPS ...]): one static library for one room of src/, added to loam_lib.
function(loam_room name)
  cmake_parse_arguments(R "" "" "SOURCES;DEPS" ${ARGN})
  add_library(loam_${name} STATIC ${R_SOURCES})
  target_include_directories(loam_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(loam_${name} PUBLIC ${R_DEPS})
  target_link_libraries(loam_lib INTERFACE loam_${name})
endfunction()
