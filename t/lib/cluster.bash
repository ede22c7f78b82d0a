# SPDX-License-Identifier: GPL-2.0-or-later
# cluster.bash: helpers for bats suites that run on the emulated cluster.
#
#   load lib/cluster            (from a suite in t/)
#   cluster_up --topology FILE  bring it up (in setup_file), plugin included
#   cluster_down                take it down (in teardown_file)
#   stage FILE...               copy built programs where every node sees them
#   sbatch_wait ARGS...         sbatch --wait, looking every 0.1 s
#
# Suites that need the cluster call need_cluster in setup_file and setup:
# it skips outside root (t/run-tests turns that skip into a failure under
# CI), and moves to /, since srun starts tasks in its working directory
# and the nodes do not see this machine's /tmp, where a clone may live.

: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${TOPOMAP_BUILDDIR:=$TOPOMAP_SRCDIR}"
export TOPOMAP_CLUSTER_DIR=${TOPOMAP_CLUSTER_DIR:-/run/topomap-cluster}
export SLURM_CONF=$TOPOMAP_CLUSTER_DIR/etc/slurm.conf
CLUSTER=$TOPOMAP_SRCDIR/contrib/topomap-cluster
TOPOLOGIES=$TOPOMAP_SRCDIR/contrib/topologies
SHARE=$TOPOMAP_CLUSTER_DIR/share
# The emulated nodes share this machine's cores, more ranks than cores: an
# Open MPI rank that waits must yield its core, as Open MPI does by itself
# when mpirun knows a node is oversubscribed.  srun passes it to the ranks.
export OMPI_MCA_mpi_yield_when_idle=1
# UCX (under MPICH) hooks malloc and mmap in every library to keep an
# RDMA registration cache valid, 0.4 s a rank here, for hardware the
# cluster has none of; its TCP and shared-memory transports register no
# memory.  srun passes it to the ranks.
export UCX_MEM_EVENTS=no
# Open MPI 4.1 (Debian 12) ends with pml/ob1 here, after trying pml/cm,
# whose MTLs find no hardware: opening each loads libpsm2, whose
# constructor times the clock for 100 ms (opa-psm2's opa/opa_time.c),
# 0.2 s a rank.  Leaving cm out skips the trial; ob1 is chosen as before.
# The suites whose steps run as other users keep it (lib/users.bash).
export OMPI_MCA_pml=^cm
# A step that hangs must end, not hold up the suite: bats's
# BATS_TEST_TIMEOUT (t/run-tests) ends the test's shell, but an salloc or
# srun under runuser outlives it and keeps the test's output open.  So
# every job the tests start has a limit slurmctld enforces, 3 minutes,
# beyond the longest test.
export SALLOC_TIMELIMIT=3 SBATCH_TIMELIMIT=3 SLURM_TIMELIMIT=3
# MPI_FAMILY, MPI_TYPE, MPI_PROBE ...: the MPI the scenarios run over.
cluster=$CLUSTER builddir=$TOPOMAP_BUILDDIR . "$TOPOMAP_SRCDIR/t/lib/mpi.sh"
# quiet [TEXT]: TEXT ($output by default) is empty.
quiet() {
	local text=${1-$output}
	[ -z "$text" ]
}

# sbatch_wait SBATCH_ARGS...: sbatch --wait without its waits.  sbatch
# looks at the job every 2 s here, 2 s and then 8 s later where MinJobAge
# is 5 or more (src/sbatch/sbatch.c's _job_wait, 22.05 to 26.05;
# contrib/topomap-cluster).  This looks every 0.1 s, for 200 s at most (a
# job that never starts is cancelled).  Exit status: the job's, as sbatch --wait gives it
# (1 when it ended otherwise, or sbatch failed).
sbatch_wait() {
	local id job state code deadline=$((SECONDS + 200))
	id=$(sbatch --parsable "$@") || return 1
	id=${id%%;*}
	[[ $id =~ ^[0-9]+$ ]] || { echo "sbatch_wait: sbatch gave no job id (-Q hides it)" >&2; return 1; }
	while :; do
		job=$(scontrol -o show job "$id") || return 1
		state=$(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' <<<"$job")
		case "$state" in
		PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | RESIZING | REQUEUE*)
			if [ "$SECONDS" -ge "$deadline" ]; then
				scancel "$id"
				echo "sbatch_wait: job $id still $state after 200 s, cancelled" >&2
				return 1
			fi
			sleep 0.1
			;;
		*) break ;;
		esac
	done
	code=$(sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p' <<<"$job")
	[ "$state" = COMPLETED ] && return "${code:-0}"
	[ "${code:-0}" -gt 0 ] && return "$code"
	return 1
}

# step_waits_out: standard input without the lines srun prints when it
# waits for a step's resources, which the step before may not have freed
# yet ("Job N step creation temporarily disabled, retrying", "Step created
# for job N", from 24.11 "Step created for StepId=N.S": src/srun/launch.c's
# %ps): Slurm's own, on any cluster.
step_waits_out() {
	grep -v -E '^srun: (Job [0-9]+ step creation temporarily disabled, retrying|Step created for (job [0-9]+|StepId=[0-9]+\.[0-9]+)$)'
}

# slurm_before RELEASE: the cluster's Slurm is older than RELEASE (24.05).
# slurmctld's version, as topomap-cluster reads it: `srun --version` of
# 24.11 needs a configuration, and with none at hand (no cluster up yet)
# fails after DNS look-ups, which read as "before" anything.
slurm_before() {
	local v
	v=$(slurmctld -V | awk '{ print $2 }')
	[ -n "$v" ] || { echo "slurm_before: slurmctld -V names no release" >&2; return 2; }
	[ "$(printf '%s\n%s\n' "$1" "$v" | sort -V | head -n 1)" != "$1" ]
}

need_cluster() {
	[ "$(id -u)" -eq 0 ] || skip "needs root and the emulated cluster"
	cd /
}

cluster_up() {
	local plugin=$TOPOMAP_BUILDDIR/spank/.libs/topomap.so
	"$CLUSTER" down >&2 || return 1
	"$CLUSTER" up --plugin "$plugin" "$@" >&2
}

# need_pmix WHAT: skip unless the running cluster's Slurm has the PMIx
# plugin, which Debian's Open MPI programs (WHAT) need.
need_pmix() {
	case " $("$CLUSTER" mpi) " in
	*" pmix "*) ;;
	*) skip "$1 is an Open MPI program, and this Slurm has no PMIx plugin" ;;
	esac
}

cluster_down() {
	[ "$(id -u)" -eq 0 ] || return 0
	"$CLUSTER" down >&2
}

stage() {
	local f
	for f in "$@"; do
		install -m 0755 "$f" "$SHARE/" || return 1
	done
}

# stage_mpi PROGRAM...: the test programs (t/mpi) built for MPI_FAMILY,
# under their own names.
stage_mpi() {
	local p
	for p in "$@"; do
		[ -x "$MPI_BUILT/$p" ] || { echo "$MPI_BUILT/$p: not built (is $MPI_FAMILY installed?)" >&2; return 1; }
		stage "$MPI_BUILT/$p" || return 1
	done
}

# Everything topomap-cluster creates, one item per line; empty when clean.
cluster_leftovers() {
	ip netns list | awk '$1 ~ /^tm-/ {print "netns " $1}'
	ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); if ($2 ~ /^tm(br|n|u|rl|r|sp)[0-9]/) print "link " $2}'
	tc qdisc show | awk '/dev tm(br|n|u|rl|r|sp)[0-9]/ {print "qdisc " $0}'
	grep -E ' /run/netns/tm-| /tmp .*topomap-cluster' /proc/mounts | sed 's/^/mount /'
	# Processes, but not zombies: this machine's init may reap late.
	ps -eo pid=,stat=,comm=,args= |
		awk '$2 !~ /^Z/ && ($3 ~ /^(slurmd|slurmstepd)$/ || /topomap-cluster\/etc\/slurm.conf/) {print "process " $0}'
	return 0
}
