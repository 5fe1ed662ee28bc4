# libtorch's CMake package, provided by Ember: programs written for libtorch
#
#   find_package(Torch REQUIRED)
#   target_link_libraries(app "${TORCH_LIBRARIES}")
#
# build against Ember unchanged. <torch/torch.h> comes from include/ember/libtorch, which is on
# the include path only for targets that link ${TORCH_LIBRARIES} (a real libtorch installed
# elsewhere is never shadowed). Installed beside EmberConfig.cmake by cmake/install.cmake.
include(CMakeFindDependencyMacro)
find_dependency(Ember CONFIG HINTS "${CMAKE_CURRENT_LIST_DIR}/../Ember")

if(NOT TARGET Ember::torch)
  get_target_property(_ember_includes Ember::ember INTERFACE_INCLUDE_DIRECTORIES)
  list(GET _ember_includes 0 _ember_include)
  add_library(Ember::torch INTERFACE IMPORTED)
  set_target_properties(Ember::torch PROPERTIES
    INTERFACE_LINK_LIBRARIES Ember::ember
    INTERFACE_INCLUDE_DIRECTORIES "${_ember_include}/ember/libtorch")
  get_filename_component(TORCH_INSTALL_PREFIX "${_ember_include}" DIRECTORY)
  unset(_ember_includes)
  unset(_ember_include)
endif()

set(TORCH_LIBRARIES Ember::torch)
get_target_property(TORCH_INCLUDE_DIRS Ember::torch INTERFACE_INCLUDE_DIRECTORIES)
set(TORCH_CXX_FLAGS "")
set(Torch_VERSION "${Ember_VERSION}")
set(Torch_FOUND TRUE)
