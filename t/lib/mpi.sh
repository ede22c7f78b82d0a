# SPDX-License-Identifier: GPL-2.0-or-later
# mpi.sh: the MPI that the test suites, the benchmarks and the demo run
# over on the emulated cluster.  Source it with cluster (topomap-cluster)
# and builddir set.
#
# Open MPI over --mpi=pmix where this machine's Slurm has its PMIx plugin;
# else (Debian's Slurm 26.05 ships none) MPICH over --mpi=pmi2: the same
# scenarios with the same assertions.  TOPOMAP_TEST_MPI=mpich (or openmpi)
# picks one.
#   MPI_FAMILY  openmpi | mpich         MPI_TYPE   srun's --mpi
#   MPI_NAME    as profiles name it     MPI_BUILT  its build of t/mpi's programs
#   MPI_PROBE   its probe's file name   MPI_PROBE_BUILT  that probe, built
#   MPI_PROBE_KEY  the plugstack argument that names that probe

if [ -z "${MPI_FAMILY:-}" ]; then
	MPI_FAMILY=${TOPOMAP_TEST_MPI:-}
	if [ -z "$MPI_FAMILY" ]; then
		case " $("$cluster" mpi 2>/dev/null) " in
		*" pmix "*) MPI_FAMILY=openmpi ;;
		*) MPI_FAMILY=mpich ;;
		esac
	fi
	export MPI_FAMILY
fi
if [ "$MPI_FAMILY" = mpich ]; then
	MPI_TYPE=pmi2 MPI_NAME=MPICH MPI_BUILT=$builddir/t/mpich
	MPI_PROBE=topomap-probe-mpich MPI_PROBE_BUILT=$builddir/probe/mpich/topomap-probe-mpich
	MPI_PROBE_KEY=probe_mpich
else
	MPI_TYPE=pmix MPI_NAME="Open MPI" MPI_BUILT=$builddir/t/mpi
	MPI_PROBE=topomap-probe MPI_PROBE_BUILT=$builddir/probe/topomap-probe
	MPI_PROBE_KEY=probe
fi

# install_probes DIR: every probe built (Open MPI's, MPICH's) into DIR,
# where plugstack's probe= and probe_mpich= name them.
install_probes() {
	local p
	for p in probe/topomap-probe probe/mpich/topomap-probe-mpich; do
		[ ! -x "$builddir/$p" ] || install -m 0755 "$builddir/$p" "$1/" || return 1
	done
}

# nodes_share_ipc: the emulated cluster's nodes share this machine's
# System V IPC namespace, so that MPICH's UCX takes them for one host and
# meets by shared memory (topomap-cluster gives each node its own where
# MPICH is 4.2 or newer).
nodes_share_ipc() {
	local pid
	pid=$(cat "$TOPOMAP_CLUSTER_DIR/run/slurmd-n1.pid") &&
		[ "$(readlink "/proc/$pid/ns/ipc")" = "$(readlink /proc/self/ns/ipc)" ]
}
