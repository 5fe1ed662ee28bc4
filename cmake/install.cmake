# Install rules and package export for Ember.
#
#   cmake --install build/default --prefix /some/prefix
#
# installs the public headers (include/ember), libember.so, a CMake package
# (find_package(Ember) -> Ember::ember) and ember.pc for pkg-config.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(EMBER_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Ember"
  CACHE STRING "Where EmberConfig.cmake is installed (relative to the prefix)")

# Usage requirements that travel with the exported target: the public headers are C++20.
target_compile_features(ember PUBLIC cxx_std_20)

# Keep non-system link directories (Debian's openblas-openmp/ directory) in the installed
# library's RUNPATH, so the OpenMP build of OpenBLAS is used whatever the alternatives say.
set_target_properties(ember PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

install(TARGETS ember EXPORT EmberTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")

# Public headers. OPTIONAL: the tree has no public headers yet while the core is being written.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/ember"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  OPTIONAL)
# The exported target names the include directory, so it must exist even while it is empty.
install(DIRECTORY DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

install(EXPORT EmberTargets
  NAMESPACE Ember::
  FILE EmberTargets.cmake
  DESTINATION "${EMBER_INSTALL_CMAKEDIR}")

configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/EmberConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/EmberConfig.cmake"
  INSTALL_DESTINATION "${EMBER_INSTALL_CMAKEDIR}")
# 0.x releases: only the same minor version is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/EmberConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/EmberConfig.cmake" "${PROJECT_BINARY_DIR}/EmberConfigVersion.cmake"
  DESTINATION "${EMBER_INSTALL_CMAKEDIR}")
# libtorch's package name (find_package(Torch) -> ${TORCH_LIBRARIES}), for libtorch programs.
get_filename_component(_ember_cmake_root "${EMBER_INSTALL_CMAKEDIR}" DIRECTORY)
install(FILES "${CMAKE_CURRENT_LIST_DIR}/TorchConfig.cmake"
  DESTINATION "${_ember_cmake_root}/Torch")

# pkg-config. The file is written at install time, so that `cmake --install --prefix P`
# produces a .pc that points at P rather than at the configure-time prefix.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(_ember_pc_libdir "${CMAKE_INSTALL_LIBDIR}")
else()
  set(_ember_pc_libdir "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(_ember_pc_includedir "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(_ember_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
install(CODE "
  set(EMBER_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(EMBER_PC_LIBDIR [[${_ember_pc_libdir}]])
  set(EMBER_PC_INCLUDEDIR [[${_ember_pc_includedir}]])
  set(EMBER_PC_VERSION \"${PROJECT_VERSION}\")
  set(EMBER_PC_OPENMP_FLAGS \"${OpenMP_CXX_FLAGS}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/ember.pc.in\" \"${PROJECT_BINARY_DIR}/pkgconfig/ember.pc\" @ONLY)
")
install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/ember.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
unset(_ember_pc_libdir)
unset(_ember_pc_includedir)

# libtorch's lib/libc10d.a, which some libtorch programs' CMake files link by path (see
# cmake/c10d_stub.cpp). Installed under lib/ whatever CMAKE_INSTALL_LIBDIR says, as libtorch's.
add_library(c10d STATIC "${CMAKE_CURRENT_LIST_DIR}/c10d_stub.cpp")
set_target_properties(c10d PROPERTIES POSITION_INDEPENDENT_CODE ON)
install(TARGETS c10d ARCHIVE DESTINATION lib)
