# Note [Layers]: libember is built from one object library per layer, lowest first (DESIGN.md §2):
#   core         src/core: dtypes, devices, SymInt, storage, TensorImpl, Tensor's own methods,
#                IValue, the allocator registry, generators, threads, configuration
#   tensor       dispatch, primitives, backends and their kernels, ops (with the Tensor methods
#                that run ops), autograd, linalg, nn::functional, the profiler
#   nn           modules, optimizers, serialization
#   distributed  process groups, stores, DDP
#   data         datasets, samplers (DistributedSampler reads the process group), loaders
#   compiler     tracing, passes, code generation, compile
# A layer may use the layers before it, never one after it. With EMBER_CHECK_LAYERS (on by
# default) each layer below the top is also linked alone into a shared library with
# --no-undefined, together with the layers it may use: an upward reference fails the build
# there, naming the symbol. The layers inside `tensor` call each other (a primitive's vjp is
# written with ops, dispatch runs autograd's recording mode), so they are one layer.
set(EMBER_LAYERS core tensor nn distributed data compiler)
set(EMBER_LAYER_DIRS_core core)
set(EMBER_LAYER_DIRS_tensor dispatch primitives backend ops autograd linalg nn/functional profiler)
set(EMBER_LAYER_DIRS_nn nn optim serialize)
set(EMBER_LAYER_DIRS_distributed distributed)
set(EMBER_LAYER_DIRS_data data)
set(EMBER_LAYER_DIRS_compiler compiler)

set(_ember_claimed)  # sources of the layers so far (nn/functional is claimed before nn)
foreach(layer IN LISTS EMBER_LAYERS)
  set(_srcs)
  foreach(dir IN LISTS EMBER_LAYER_DIRS_${layer})
    file(GLOB_RECURSE _dir_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/${dir}/*.cpp")
    list(APPEND _srcs ${_dir_srcs})
  endforeach()
  if(_ember_claimed)
    list(REMOVE_ITEM _srcs ${_ember_claimed})
  endif()
  list(REMOVE_ITEM _srcs ${EMBER_CPU_DISPATCHED_SOURCES})
  list(APPEND _ember_claimed ${_srcs})
  add_library(ember_layer_${layer} OBJECT ${_srcs})
  target_link_libraries(ember_layer_${layer} PRIVATE ember_build)
  set(_objects $<TARGET_OBJECTS:ember_layer_${layer}>)
  if(layer STREQUAL "tensor")
    list(APPEND _objects ${EMBER_CPU_KERNEL_OBJECTS})
  endif()
  list(APPEND _ember_objects ${_objects})
  if(EMBER_CHECK_LAYERS AND NOT layer STREQUAL "compiler")
    add_library(ember_layer_check_${layer} SHARED ${_ember_objects})
    target_link_libraries(ember_layer_check_${layer} PRIVATE OpenMP::OpenMP_CXX ${EMBER_LINK_LIBRARIES})
    target_link_options(ember_layer_check_${layer} PRIVATE LINKER:--no-undefined)
  endif()
endforeach()

# Every source under src/ belongs to a layer.
file(GLOB_RECURSE _all CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp")
list(REMOVE_ITEM _all ${_ember_claimed} ${EMBER_CPU_DISPATCHED_SOURCES})
if(_all)
  message(FATAL_ERROR "Note [Layers] (cmake/layers.cmake): no layer holds ${_all}")
endif()

# The top layer is libember itself, also linked with --no-undefined.
target_sources(ember PRIVATE ${_ember_objects})
target_link_options(ember PRIVATE LINKER:--no-undefined)
unset(_all)
unset(_srcs)
unset(_dir_srcs)
unset(_objects)
unset(_ember_claimed)
