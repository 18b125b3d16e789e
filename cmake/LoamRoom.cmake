# loam_room(NAME [DEPS ...]): one static library from every .cpp in the calling src/ room, added to
# loam_lib. Globbing keeps a room's files its own: adding one edits no shared list.
function(loam_room name)
  cmake_parse_arguments(R "" "" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(loam_${name} STATIC ${sources})
  target_include_directories(loam_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(loam_${name} PUBLIC ${R_DEPS})
  target_link_libraries(loam_lib INTERFACE loam_${name})
endfunction()
