# Reads the target description, dialects/JFA/Targets.def (the one list of
# targets; see the comment at its top), for CMake: the runtime's embedded
# kernels (runtime/cmake/EmbedAttentionKernels.cmake) and the generator of
# python/jfa/_targets.py (cmake/GenerateTargets.cmake). Plain CMake, so that
# building the runtime needs no Python, like the `// jfa-variants:` parser.
#
#   jfa_read_targets()
#
# sets, in the caller's scope:
#   JFA_TARGETS         the target names in the order of Targets.def
#   JFA_DEFAULT_TARGET  JFA_DEFAULT_TARGET's name
# and for each target NAME (e.g. sm_90a):
#   JFA_TARGET_<NAME>_KERNEL_SUFFIX, _CC_MAJOR, _CC_MINOR, _PTX_VERSION,
#   _FEATURES (a list), _MAX_SHARED_BYTES, _REGISTERS_PER_SM,
#   _MAX_REGISTERS_PER_THREAD, _TMEM_COLUMNS
# A line that does not parse is a fatal error naming it.

set(JFA_TARGETS_DEF ${CMAKE_CURRENT_LIST_DIR}/../dialects/JFA/Targets.def)
get_filename_component(JFA_TARGETS_DEF ${JFA_TARGETS_DEF} ABSOLUTE)

function(jfa_read_targets)
  set(fields KERNEL_SUFFIX CC_MAJOR CC_MINOR PTX_VERSION FEATURES
             MAX_SHARED_BYTES REGISTERS_PER_SM MAX_REGISTERS_PER_THREAD
             TMEM_COLUMNS)
  file(STRINGS ${JFA_TARGETS_DEF} lines REGEX "^JFA_(DEFAULT_)?TARGET\\(")
  set(names)
  set(default)
  foreach(line ${lines})
    if(line MATCHES "^JFA_DEFAULT_TARGET\\(\"([A-Za-z0-9_]+)\"\\)$")
      set(default ${CMAKE_MATCH_1})
      continue()
    endif()
    if(NOT line MATCHES "^JFA_TARGET\\(([^()]*)\\)$")
      message(FATAL_ERROR "${JFA_TARGETS_DEF}: cannot read '${line}'")
    endif()
    string(REPLACE "," ";" items "${CMAKE_MATCH_1}")
    set(values)
    foreach(item ${items})
      string(STRIP "${item}" item)
      if(item MATCHES "^\"([^\"]*)\"$")
        set(item "${CMAKE_MATCH_1}")
      elseif(NOT item MATCHES "^[0-9]+$")
        message(FATAL_ERROR "${JFA_TARGETS_DEF}: '${item}' in '${line}' is "
                            "neither a \"string\" nor a decimal integer")
      endif()
      # FEATURES is space-separated; keep it one list item for now.
      string(REPLACE " " "," item "${item}")
      list(APPEND values "${item}")
    endforeach()
    list(LENGTH values count)
    if(NOT count EQUAL 10)
      message(FATAL_ERROR "${JFA_TARGETS_DEF}: '${line}' has ${count} "
                          "fields, not 10")
    endif()
    list(POP_FRONT values name)
    list(APPEND names ${name})
    foreach(field ${fields})
      list(POP_FRONT values value)
      string(REPLACE "," ";" value "${value}")
      set(JFA_TARGET_${name}_${field} "${value}" PARENT_SCOPE)
    endforeach()
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "${JFA_TARGETS_DEF}: no JFA_TARGET")
  endif()
  if(NOT default IN_LIST names)
    message(FATAL_ERROR "${JFA_TARGETS_DEF}: JFA_DEFAULT_TARGET names no target")
  endif()
  set(JFA_TARGETS ${names} PARENT_SCOPE)
  set(JFA_DEFAULT_TARGET ${default} PARENT_SCOPE)
endfunction()
