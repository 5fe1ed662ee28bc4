#pragma once
#include <cstdint>

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

}  // namespace ember
