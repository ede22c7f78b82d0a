# SPDX-License-Identifier: GPL-2.0-or-later
# emulated.sh: what the benchmarks (t/bench/) and the demo
# (contrib/topomap-demo) share when they drive the emulated cluster from
# the build tree.  Source it with builddir and srcdir set.

cluster=$srcdir/contrib/topomap-cluster
export TOPOMAP_CLUSTER_DIR=${TOPOMAP_CLUSTER_DIR:-/run/topomap-cluster}
export SLURM_CONF=$TOPOMAP_CLUSTER_DIR/etc/slurm.conf
# The nodes share this machine's cores: a waiting Open MPI rank yields.
export OMPI_MCA_mpi_yield_when_idle=1
share=$TOPOMAP_CLUSTER_DIR/share
# MPI_FAMILY, MPI_TYPE, MPI_PROBE ...: the MPI to run over.
. "$srcdir/t/lib/mpi.sh"
# srun starts tasks in its working directory; the nodes do not see /tmp.
cd /

# median: the median of the numbers on standard input, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
