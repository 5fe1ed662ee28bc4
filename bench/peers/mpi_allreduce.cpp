// MPI_Allreduce called directly (Open MPI only, no Ember): the mpi "engine" column of
// bench/allreduce_bench.sh, measured as bench/bench_allreduce.cpp measures Ember. Run under
// mpirun; float32 MPI_SUM in place.
//   mpi_allreduce [--cases BYTES:ITERS,...]
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include "allreduce_cases.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const auto cases = bench::parse_cases(argc, argv);
  if (cases.empty()) {
    MPI_Finalize();
    return 2;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (const auto& c : cases) {
    std::vector<float> buf(c.bytes / sizeof(float), 1.0f);
    std::vector<double> us;
    for (int it = -1; it < c.iters; ++it) {  // iteration -1 warms up
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
      if (it >= 0) us.push_back(bench::micros_since(t0));
    }
    double med = bench::median(us), slowest = 0;
    MPI_Reduce(&med, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) bench::report(c, slowest);
  }
  MPI_Finalize();
  return 0;
}
