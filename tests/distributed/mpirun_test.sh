#!/usr/bin/env bash
# Jobs started by Open MPI's mpirun: the "mpi" backend, and "gloo" finding its rank and world
# size in OMPI_COMM_WORLD_* (env://). Usage: mpirun_test.sh path/to/ember_dist_check
set -uo pipefail
check=$1
failures=0
mpi=(timeout 60 mpirun --allow-run-as-root --oversubscribe)
# Open MPI's own allocations (MPI_Init's components, dlclosed again by MPI_Finalize) are still
# held at exit; LeakSanitizer cannot symbolise them, so no suppression can name them. Leak checks
# stay on for the gloo run below, which does not initialise MPI.
no_leaks="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
for n in 1 3; do
  ASAN_OPTIONS=$no_leaks "${mpi[@]}" -np "$n" "$check" mpi || { echo "FAIL: mpirun -np $n (mpi backend)"; failures=$((failures + 1)); }
done
# A free loopback port for gloo's store: the first that refuses a connection.
port=$((20000 + RANDOM % 12000))  # below the ephemeral range (32768-)
while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
"${mpi[@]}" -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT="$port" "$check" gloo ||
  { echo "FAIL: mpirun -np 2 (gloo backend)"; failures=$((failures + 1)); }
((failures == 0)) && echo "mpirun_test: all passed"
exit $((failures > 0))
