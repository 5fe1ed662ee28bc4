# What generated kernels need at run time (Note [Code cache] in src/compiler/codecache.h): the
# build's compiler, SLEEF and the kernel headers, baked into toolchain.cpp; and
# the kernel headers installed under <includedir>/ember/kernels, where an installed libember
# finds them (<libdir>/<EMBER_LIBDIR_TO_INCLUDEDIR>/ember/kernels).

# Headers of src/ that generated sources include, and what they include from src/ (the public
# headers they include are installed anyway).
set(EMBER_KERNEL_HEADERS
  backend/cpu/capability.h
  backend/cpu/vec.h
  backend/cpu/unary_functors.h
  backend/cpu/binary_functors.h
  backend/cpu/parallel.h)

file(RELATIVE_PATH _ember_lib_to_inc "/prefix/${CMAKE_INSTALL_LIBDIR}" "/prefix/${CMAKE_INSTALL_INCLUDEDIR}")
set_source_files_properties("${PROJECT_SOURCE_DIR}/src/compiler/toolchain.cpp" PROPERTIES
  COMPILE_DEFINITIONS
  "EMBER_BUILD_CXX=\"${CMAKE_CXX_COMPILER}\";EMBER_BUILD_INCLUDE_DIRS=\"${PROJECT_SOURCE_DIR}/src:${PROJECT_SOURCE_DIR}/include\";EMBER_LIBDIR_TO_INCLUDEDIR=\"${_ember_lib_to_inc}\";EMBER_SLEEF_INCLUDE_DIR=\"${SLEEF_INCLUDE_DIR}\";EMBER_SLEEF_LIBRARY=\"${SLEEF_LIBRARY}\"")

foreach(h IN LISTS EMBER_KERNEL_HEADERS)
  get_filename_component(_ember_dir "${h}" DIRECTORY)
  install(FILES "${PROJECT_SOURCE_DIR}/src/${h}"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/ember/kernels/${_ember_dir}")
endforeach()
unset(_ember_dir)
unset(_ember_lib_to_inc)
