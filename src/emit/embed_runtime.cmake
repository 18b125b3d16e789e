# Writes OUT: a .cpp defining loam::emit::runtime_text() from RUNTIME_DIR's prelude.hpp, the body
# files MANIFEST lists (in its order) and the RESERVED name list. Run at generator build time.
# HEADER, NAMESPACE, STRUCT and FUNCTION name another runtime's text (Loom's) in the same shape.
if(NOT DEFINED HEADER)
  set(HEADER "emit/runtime_text.hpp")
endif()
if(NOT DEFINED NAMESPACE)
  set(NAMESPACE "loam::emit")
endif()
if(NOT DEFINED STRUCT)
  set(STRUCT "RuntimeText")
endif()
if(NOT DEFINED FUNCTION)
  set(FUNCTION "runtime_text")
endif()
get_filename_component(runtime_name "${RUNTIME_DIR}" NAME)
set(prelude "")
set(body "")
set(reserved "")
set(files "")
if(EXISTS "${RUNTIME_DIR}/prelude.hpp")
  file(READ "${RUNTIME_DIR}/prelude.hpp" prelude)
endif()
if(EXISTS "${RUNTIME_DIR}/MANIFEST")
  file(STRINGS "${RUNTIME_DIR}/MANIFEST" manifest_lines)
  foreach(line IN LISTS manifest_lines)
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^#")
      continue()
    endif()
    if(NOT EXISTS "${RUNTIME_DIR}/${line}")
      message(FATAL_ERROR "runtime/${runtime_name}/MANIFEST names '${line}', which does not exist")
    endif()
    file(READ "${RUNTIME_DIR}/${line}" text)
    string(APPEND body "// ---- runtime/${runtime_name}/${line}\n${text}\n")
    string(APPEND files "\"${line}\",\n")
  endforeach()
endif()
if(EXISTS "${RUNTIME_DIR}/RESERVED")
  file(READ "${RUNTIME_DIR}/RESERVED" reserved)
endif()
foreach(part prelude body reserved)
  string(FIND "${${part}}" ")loam_runtime\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "runtime text contains the raw-string delimiter )loam_runtime\"")
  endif()
endforeach()
# Raw string literals are split in chunks so no single literal is huge.
function(chunked var out)
  set(text "${${var}}")
  string(LENGTH "${text}" n)
  set(acc "")
  set(pos 0)
  while(pos LESS n)
    string(SUBSTRING "${text}" ${pos} 16000 piece)
    string(APPEND acc "R\"loam_runtime(${piece})loam_runtime\"\n")
    math(EXPR pos "${pos} + 16000")
  endwhile()
  if(acc STREQUAL "")
    set(acc "\"\"")
  endif()
  set(${out} "${acc}" PARENT_SCOPE)
endfunction()
chunked(prelude prelude_lit)
chunked(body body_lit)
chunked(reserved reserved_lit)
set(content "// Generated from runtime/${runtime_name}/ by src/emit/embed_runtime.cmake. Do not edit.
#include \"${HEADER}\"
namespace ${NAMESPACE} {
namespace {
const char kPrelude[] =
${prelude_lit};
const char kBody[] =
${body_lit};
const char kReserved[] =
${reserved_lit};
}  // namespace
const ${STRUCT}& ${FUNCTION}() {
  static const ${STRUCT} text{
      std::string_view(kPrelude, sizeof kPrelude - 1),
      std::string_view(kBody, sizeof kBody - 1),
      std::string_view(kReserved, sizeof kReserved - 1),
      {${files}}};
  return text;
}
}  // namespace ${NAMESPACE}
")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${content}")
