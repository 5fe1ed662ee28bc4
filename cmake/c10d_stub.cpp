// libc10d.a: libtorch ships c10d as a library of its own, and some CMake files link it by path
// (pytorch/examples' cpp/distributed: ${CMAKE_PREFIX_PATH}/lib/libc10d.a). Ember's c10d names
// live in libember (src/distributed/c10d_compat.cpp); this archive exists so that such files link
// unchanged, and holds nothing a program needs.
extern "C" int ember_c10d_compat_archive() { return 1; }
