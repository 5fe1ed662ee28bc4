// Choosing the CPU capability (Note [CPU capability]).
#include "backend/cpu/capability.h"

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string_view>

#include "ember/core/parallel.h"

namespace ember::cpu {
namespace {

// What each capability is called (EMBER_CPU_CAPABILITY's value and PyTorch's public spelling),
// its copy's tag, and the flags its kernels are compiled with (cmake/cpu_capability.cmake).
struct CapabilityInfo {
  const char* name;
  const char* public_name;
  const char* tag;
  const char* flags;
};

const CapabilityInfo& info(Capability c) {
  static const CapabilityInfo table[] = {
      {"default", "DEFAULT", "TagDefault", EMBER_CPU_FLAGS_DEFAULT},
      {"avx2", "AVX2", "TagAvx2", EMBER_CPU_FLAGS_AVX2},
      {"avx512", "AVX512", "TagAvx512", EMBER_CPU_FLAGS_AVX512},
  };
  return table[static_cast<int>(c)];
}

bool cpu_has(Capability c) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  switch (c) {
    case Capability::Avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             cpu_has(Capability::Avx2);
    case Capability::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
    case Capability::Default:
      return true;
  }
  return false;
#else
  return c == Capability::Default;
#endif
}

Capability choose() {
  const std::vector<Capability> built = built_capabilities();
  Capability best = Capability::Default;
  for (Capability c : built) {
    if (cpu_has(c)) best = c;
  }
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (!env || !*env) return best;
  const std::string_view want(env);
  for (Capability c : {Capability::Default, Capability::Avx2, Capability::Avx512}) {
    if (want != capability_name(c)) continue;
    bool is_built = false;
    for (Capability b : built) is_built = is_built || b == c;
    if (is_built && cpu_has(c)) return c;
    std::cerr << "[W] EMBER_CPU_CAPABILITY=" << want << ": "
              << (is_built ? "this CPU does not support it" : "this build has no kernels for it")
              << "; using " << capability_name(best) << "\n";
    return best;
  }
  std::cerr << "[W] ignoring invalid value for EMBER_CPU_CAPABILITY: '" << want
            << "' (expected default, avx2 or avx512); using " << capability_name(best) << "\n";
  return best;
}

}  // namespace

Capability capability() {
  static const Capability chosen = choose();
  return chosen;
}

const char* capability_name(Capability c) { return info(c).name; }

std::vector<std::string> compile_flags(Capability c) {
  const CapabilityInfo& ci = info(c);
  std::vector<std::string> out;
  std::istringstream in(ci.flags);
  for (std::string f; in >> f;) out.push_back(f);
  out.push_back(std::string("-DEMBER_CPU_CAPABILITY=cap_") + ci.name);
  out.push_back(std::string("-DEMBER_CPU_TAG=") + ci.tag);
  return out;
}

std::vector<Capability> built_capabilities() {
  std::vector<Capability> built{Capability::Default};
#ifdef EMBER_CPU_HAVE_AVX2
  built.push_back(Capability::Avx2);
#endif
#ifdef EMBER_CPU_HAVE_AVX512
  built.push_back(Capability::Avx512);
#endif
  return built;
}

}  // namespace ember::cpu

namespace ember {

std::string get_cpu_capability() { return cpu::info(cpu::capability()).public_name; }

std::vector<std::string> get_built_cpu_capabilities() {
  std::vector<std::string> out;
  for (cpu::Capability c : cpu::built_capabilities()) out.push_back(cpu::info(c).public_name);
  return out;
}

}  // namespace ember
