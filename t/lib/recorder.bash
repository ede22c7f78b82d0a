# SPDX-License-Identifier: GPL-2.0-or-later
# recorder.bash: helpers for the recorder suites (load after lib/cluster).

TOPOMAP=$TOPOMAP_BUILDDIR/cli/topomap
MPI_MPICH=$TOPOMAP_BUILDDIR/t/mpich
RECORDERS=$TOPOMAP_BUILDDIR/recorder/.libs

# stage_recorders: the recorders, the CLI and the test programs into
# $SHARE: those of MPI_FAMILY under their names, MPICH's also with the
# suffix .mpich.
stage_recorders() {
	local p
	stage "$TOPOMAP" "$RECORDERS"/topomap-recorder-*.so || return 1
	stage_mpi ring halo2d alltoall split msgrate hello || return 1
	for p in ring halo2d alltoall split; do
		[ -x "$MPI_MPICH/$p" ] || continue
		install -m 0755 "$MPI_MPICH/$p" "$SHARE/$p.mpich" || return 1
	done
}

# record MPI NODES TASKS OUT PROGRAM [ARGS...]: run PROGRAM under srun
# with the recorder for MPI (openmpi: --mpi=pmix, mpich: --mpi=pmi2)
# preloaded, writing the profile to OUT.
record() {
	local mpi=$1 nodes=$2 tasks=$3 out=$4 type=pmix
	shift 4
	[ "$mpi" = mpich ] && type=pmi2
	LD_PRELOAD=$SHARE/topomap-recorder-$mpi.so TOPOMAP_RECORD=$out \
		srun --overlap --mpi=$type -N"$nodes" -n"$tasks" "$@"
}

# same_matrix PROFILE WHAT EXPECTED_CSV: the recorded matrix equals the one
# the program counted itself.
same_matrix() {
	local got
	got=$("$SHARE/topomap" profile export --what "$2" "$1") || return 1
	if [ "$got" != "$(cat "$3")" ]; then
		echo "recorded $2 of $1:"
		echo "$got"
		echo "the program sent:"
		cat "$3"
		return 1
	fi
}
