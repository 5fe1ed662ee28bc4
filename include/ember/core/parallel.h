#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ember {

/// torch.set_num_threads / get_num_threads: one OpenMP pool shared by Ember and OpenBLAS.
///
/// At start-up the count comes from the environment, as in PyTorch: OMP_NUM_THREADS=4 gives
/// get_num_threads() == 4 (the first number when it is a list); without it, OpenMP's default of
/// one thread per available core. set_num_threads(n) changes it for the rest of the program
/// (n < 1 raises ValueError). Like PyTorch's, the setting belongs to the calling thread's OpenMP
/// state: call it from the thread that runs the ops. Random numbers are the same bits for every
/// thread count (Note [Deterministic random] in ember/core/generator.h).
void set_num_threads(int n);
int get_num_threads();

/// The instruction set the vectorised CPU kernels run with, as
/// torch.backends.cpu.get_cpu_capability(): "DEFAULT" (x86-64 baseline), "AVX2" or "AVX512". The
/// best one this build has kernels for and the CPU supports, chosen once at the first kernel
/// call; EMBER_CPU_CAPABILITY=default|avx2|avx512 forces one (as ATEN_CPU_CAPABILITY; a value the
/// CPU or the build lacks falls back to the best, with a warning).
std::string get_cpu_capability();
/// The capabilities this build has kernels for, lowest first ("DEFAULT" always).
std::vector<std::string> get_built_cpu_capabilities();

}  // namespace ember
