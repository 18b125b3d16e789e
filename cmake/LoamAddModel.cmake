# loam_add_model(NAME GRAPH graph [CHECKPOINT ckpt...] [OPTIONS options.json])
#
# Generates NAME.hpp at build time with `loam build` and exposes it as the INTERFACE library NAME
# (include directory + C++23), so a shape error in the model fails the consumer's build.
#
# Regeneration is keyed on a stamp `loam probe` rewrites only when what the header depends on in the
# checkpoints changes (their safetensors headers, or their whole files under inline_weights, and the
# canonical options): a checkpoint whose payload changes and whose header does not regenerates
# nothing. The graph and options files are dependencies of their own.
#
# LOAM_EXECUTABLE names the generator (set by find_package(Loam), or to $<TARGET_FILE:loam> inside
# Loam's own build); LOAM_EXECUTABLE_TARGET, when set, is a target the generator is built by.
function(loam_add_model name)
  cmake_parse_arguments(L "" "GRAPH;OPTIONS" "CHECKPOINT" ${ARGN})
  if(NOT L_GRAPH)
    message(FATAL_ERROR "loam_add_model(${name}): GRAPH is required")
  endif()
  if(NOT LOAM_EXECUTABLE)
    message(FATAL_ERROR "loam_add_model(${name}): LOAM_EXECUTABLE is not set (find_package(Loam) sets it)")
  endif()
  get_filename_component(graph "${L_GRAPH}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/loam/${name}")
  set(header "${out_dir}/${name}.hpp")
  set(stamp "${out_dir}/${name}.probe")
  set(build_args "${graph}" -o "${header}" --name "${name}")
  set(probe_args "")
  set(deps "${graph}")
  foreach(c IN LISTS L_CHECKPOINT)
    get_filename_component(c "${c}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND build_args --checkpoint "${c}")
    list(APPEND probe_args "${c}")
  endforeach()
  if(L_OPTIONS)
    get_filename_component(opts "${L_OPTIONS}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND build_args --options "${opts}")
    list(APPEND probe_args --options "${opts}")
    list(APPEND deps "${opts}")
  endif()
  file(MAKE_DIRECTORY "${out_dir}")
  # The probe runs on every build; it touches the stamp only when the key changes (restat).
  add_custom_target(${name}_loam_probe
    COMMAND "${LOAM_EXECUTABLE}" probe ${probe_args} --stamp "${stamp}"
    BYPRODUCTS "${stamp}"
    COMMENT "loam probe ${name}"
    VERBATIM)
  if(LOAM_EXECUTABLE_TARGET)
    add_dependencies(${name}_loam_probe ${LOAM_EXECUTABLE_TARGET})
    list(APPEND deps ${LOAM_EXECUTABLE_TARGET})
  endif()
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "${LOAM_EXECUTABLE}" build ${build_args}
    DEPENDS "${stamp}" ${deps}
    COMMENT "loam build ${name}"
    VERBATIM)
  add_custom_target(${name}_loam_header DEPENDS "${header}")
  add_dependencies(${name}_loam_header ${name}_loam_probe)
  add_library(${name} INTERFACE)
  target_include_directories(${name} INTERFACE "${out_dir}")
  target_compile_features(${name} INTERFACE cxx_std_23)
  add_dependencies(${name} ${name}_loam_header)
endfunction()
