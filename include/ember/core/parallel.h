#pragma once
#include <cstdint>

namespace ember {

/// torch.set_num_threads / get_num_threads: one OpenMP pool shared by Ember and OpenBLAS.
/// The initial value honours OMP_NUM_THREADS.
void set_num_threads(int n);
int get_num_threads();

}  // namespace ember
