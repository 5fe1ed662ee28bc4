#pragma once
// Note [CPU capability]: the kernels that gain from wider vectors (elementwise, reductions,
// softmax, normalisation, attention) are compiled once per instruction set this build supports
// (EMBER_CPU_CAPABILITIES in CMake: DEFAULT = the x86-64 baseline, AVX2 = AVX2 + FMA + F16C,
// AVX512 = AVX-512 F/BW/VL/DQ, ATen's "avx512"), and the best one the CPU has is chosen once, at
// the first kernel call (EMBER_CPU_CAPABILITY=default|avx2|avx512 forces one, as PyTorch's
// ATEN_CPU_CAPABILITY). Each copy lives in its own inline namespace (cap_default, cap_avx2,
// cap_avx512; the translation unit's EMBER_CPU_CAPABILITY picks it), so its functions and template
// instantiations never mix with another copy's; everything else in the library is compiled for the
// baseline. A primitive whose kernel is in such a unit declares EMBER_CPU_DISPATCHED_KERNEL in its
// class and defines `template <> void P::eval_cpu_for<cpu::Tag>(inputs, outputs) const` in the
// unit; its eval_cpu calls the chosen copy.
#include <string>
#include <vector>

#ifndef EMBER_CPU_CAPABILITY
#define EMBER_CPU_CAPABILITY cap_default
#define EMBER_CPU_TAG TagDefault
#endif

namespace ember::cpu {

enum class Capability { Default, Avx2, Avx512 };

/// The capability the kernels run with (decided once; thread-safe).
Capability capability();
/// The width of a Vec<T> in bytes in that capability's kernels (EMBER_VEC_BYTES of vec.h):
/// generated kernels use it to plan their loops.
constexpr int vec_bytes(Capability c) { return c == Capability::Avx512 ? 64 : 32; }
/// "default", "avx2" or "avx512".
const char* capability_name(Capability c);
/// The instruction set flags and definitions that compile code as capability c's copy: what
/// generated kernels are compiled with, so that they agree with the eager kernels.
std::vector<std::string> compile_flags(Capability c);
/// The capabilities this build compiled kernels for, lowest first.
std::vector<Capability> built_capabilities();

struct TagDefault {};
struct TagAvx2 {};
struct TagAvx512 {};

/// The tag of the copy this translation unit is compiled as.
inline namespace EMBER_CPU_CAPABILITY {
using Tag = EMBER_CPU_TAG;
}

/// f(tag) with the tag of the chosen capability's copy.
template <typename F>
decltype(auto) dispatch(F&& f) {
  switch (capability()) {
#ifdef EMBER_CPU_HAVE_AVX512
    case Capability::Avx512:
      return f(TagAvx512{});
#endif
#ifdef EMBER_CPU_HAVE_AVX2
    case Capability::Avx2:
      return f(TagAvx2{});
#endif
    case Capability::Default:
    default:
      return f(TagDefault{});
  }
}

}  // namespace ember::cpu

/// Heads the definition of primitive P's kernel in a capability unit, naming its parameters:
///   EMBER_CPU_KERNEL(Softmax, inputs, outputs) { ... }
/// defines this copy's P::eval_cpu_for<cpu::Tag>; the default copy also defines P::eval_cpu,
/// which runs the chosen copy. P's class declares EMBER_CPU_DISPATCHED_KERNEL
/// (dispatch/primitive.h).
#define EMBER_CPU_KERNEL(P, inputs, outputs)                                                  \
  EMBER_CPU_KERNEL_DECLARE_(P, ::ember::cpu::TagDefault)                                      \
  EMBER_CPU_KERNEL_DECLARE_(P, ::ember::cpu::TagAvx2)                                         \
  EMBER_CPU_KERNEL_DECLARE_(P, ::ember::cpu::TagAvx512)                                       \
  EMBER_CPU_KERNEL_DISPATCHER_(P)                                                             \
  template <>                                                                                 \
  void P::eval_cpu_for<::ember::cpu::Tag>([[maybe_unused]] const std::vector<Tensor>& inputs, \
                                          [[maybe_unused]] std::vector<Tensor>& outputs) const
#define EMBER_CPU_KERNEL_DECLARE_(P, TAG) \
  template <>                             \
  void P::eval_cpu_for<TAG>(const std::vector<Tensor>&, std::vector<Tensor>&) const;
#ifdef EMBER_CPU_IS_DEFAULT
#define EMBER_CPU_KERNEL_DISPATCHER_(P)                                                     \
  void P::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const { \
    ::ember::cpu::dispatch([&]<typename Tag>(Tag) { eval_cpu_for<Tag>(inputs, outputs); }); \
  }
#else
#define EMBER_CPU_KERNEL_DISPATCHER_(P)
#endif
