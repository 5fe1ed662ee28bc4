# Note [CPU capability] (src/backend/cpu/capability.h): one object library per capability in
# EMBER_CPU_CAPABILITIES, each compiling EMBER_CPU_DISPATCHED_SOURCES with its instruction set
# into its own inline namespace, all linked into libember. DEFAULT comes first on the link line,
# so that where two copies of a shared inline function remain, the baseline one is kept.
set(EMBER_CPU_FLAGS_DEFAULT "")
set(EMBER_CPU_FLAGS_AVX2 -mavx2 -mfma -mf16c)
set(EMBER_CPU_FLAGS_AVX512 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mf16c)
set(EMBER_CPU_TAG_DEFAULT TagDefault)
set(EMBER_CPU_TAG_AVX2 TagAvx2)
set(EMBER_CPU_TAG_AVX512 TagAvx512)

set(_ember_caps DEFAULT)
foreach(cap IN LISTS EMBER_CPU_CAPABILITIES)
  if(NOT DEFINED EMBER_CPU_TAG_${cap})
    message(FATAL_ERROR "EMBER_CPU_CAPABILITIES: unknown capability '${cap}' (DEFAULT, AVX2, AVX512)")
  endif()
  if(NOT cap STREQUAL "DEFAULT")
    list(APPEND _ember_caps ${cap})
    list(APPEND _ember_cpu_defs EMBER_CPU_HAVE_${cap})
  endif()
endforeach()
list(REMOVE_DUPLICATES _ember_caps)

# What the generated kernels of each capability are compiled with (cpu::compile_flags).
foreach(cap DEFAULT AVX2 AVX512)
  list(JOIN EMBER_CPU_FLAGS_${cap} " " _flags)
  list(APPEND _ember_cpu_defs "EMBER_CPU_FLAGS_${cap}=\"${_flags}\"")
endforeach()
target_compile_definitions(ember_build INTERFACE ${_ember_cpu_defs})

foreach(cap IN LISTS _ember_caps)
  string(TOLOWER "${cap}" _lower)
  add_library(ember_cpu_${_lower} OBJECT ${EMBER_CPU_DISPATCHED_SOURCES})
  target_compile_options(ember_cpu_${_lower} PRIVATE ${EMBER_CPU_FLAGS_${cap}})
  target_compile_definitions(ember_cpu_${_lower} PRIVATE
    EMBER_CPU_CAPABILITY=cap_${_lower} EMBER_CPU_TAG=${EMBER_CPU_TAG_${cap}}
    $<$<STREQUAL:${cap},DEFAULT>:EMBER_CPU_IS_DEFAULT>)
  target_link_libraries(ember_cpu_${_lower} PRIVATE ember_build)
  # Part of the "tensor" layer (Note [Layers], cmake/layers.cmake).
  list(APPEND EMBER_CPU_KERNEL_OBJECTS $<TARGET_OBJECTS:ember_cpu_${_lower}>)
endforeach()
unset(_lower)
unset(_flags)
unset(_ember_caps)
unset(_ember_cpu_defs)
