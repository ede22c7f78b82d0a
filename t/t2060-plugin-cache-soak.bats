#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The site cache's life cycle under many jobs of two users: with
# topomap-epilog in Slurm's Epilog no file of a finished job stays; without
# it the user's directory stays within cache_max_files.  A long job's
# files survive both.  TOPOMAP_SOAK_JOBS jobs a run (default 24, half a
# user's); each line "soak:" gives the files and bytes before and after.
# The switches are Slurm's topology.yaml where Slurm reads one (25.05+),
# else its topology.conf: each job's topology=auto takes that tree from
# slurmctld (a yaml tree only here; t1060 gives 25.05+ blocks).

load lib/cluster
load lib/plugin
load lib/users

setup_file() {
	need_cluster
	two_users_add || return 1
	local kind=tree
	slurm_before 25.05 || kind=yaml
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo" --slurm-topology=$kind
	plugin_setup
	printf '0,100\n100,0\n' >"$BATS_FILE_TMPDIR/pair.csv"
	"$TOPOMAP" profile import -o "$SHARE/pair.json" "$BATS_FILE_TMPDIR/pair.csv"
	chmod 0644 "$SHARE/pair.json"
}

teardown_file() {
	cluster_down
	two_users_del
}

setup() {
	need_cluster
	SITE=$SHARE/soak.$BATS_TEST_NUMBER
	install -d -m 0755 -o root "$SITE"
	local u
	for u in $UA $UB; do
		SLURM_JOB_UID=$(id -u $u) "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
	done
	# The levels' figures given: no probe step, each job's step still
	# takes its netmap's lock in the cache.
	plugstack "cache=$SITE" topology=auto "topology_levels=1:10:1000,2:50:100"
	N=${TOPOMAP_SOAK_JOBS:-24}
}

# files_of USER: "FILES BYTES" in the user's directory of the site cache.
files_of() {
	find "$SITE/$(id -u "$1")" -mindepth 1 -maxdepth 1 -printf '%s\n' |
		awk '{ n++; b += $1 } END { printf "%d %d\n", n, b }'
}

# soak: N/2 jobs of each user, a two-rank dry run each; then waits for all.
soak() {
	local u ids=()
	for u in $UA $UB; do
		ids+=("$(runuser -u $u -- sbatch --parsable -D / --array=1-$((N / 2)) -N2 --ntasks-per-node=1 \
			-o /dev/null --wrap "cd && srun --mpi=$MPI_TYPE --topo-map=dry-run --topo-profile=$SHARE/pair.json $SHARE/hello")") || return 1
	done
	SECONDS=0
	while [ -n "$(squeue -h -j "$(
		IFS=,
		echo "${ids[*]}"
	)" -o %i 2>/dev/null)" ]; do
		[ "$SECONDS" -lt 1200 ] || return 1
		sleep 0.2
	done
	echo "# soak: $N jobs in $SECONDS s" >&3
}

# long_job: B's job that runs through the soak, its lock in the cache.
long_job() {
	LONG=$(runuser -u $UB -- sbatch --parsable -D / -N2 --ntasks-per-node=1 -o /dev/null \
		--wrap "cd && srun --mpi=$MPI_TYPE --topo-map=dry-run --topo-profile=$SHARE/pair.json $SHARE/hello && sleep 900")
	SECONDS=0
	until [ -e "$SITE/$(id -u $UB)/job$LONG.json.lock" ]; do
		[ "$SECONDS" -lt 60 ] || return 1
		sleep 0.2
	done
}

@test "with topomap-epilog: no file of a finished job stays; a running job's do" {
	local dir=$TOPOMAP_CLUSTER_DIR/etc
	# slurmd runs it on the nodes, which see the cluster's share, not the
	# build tree (it may lie under /tmp, each node's own).
	# As Slurm runs an Epilog, without arguments: DIR from the plugstack line.
	stage "$TOPOMAP_SRCDIR/contrib/topomap-epilog" "$TOPOMAP_SRCDIR/contrib/topomap-prolog"
	echo "Epilog=$SHARE/topomap-epilog" >>"$dir/slurm.conf"
	scontrol reconfigure
	sleep 2
	long_job
	echo "# soak: before: A $(files_of $UA), B $(files_of $UB) (files bytes)" >&3
	soak
	echo "# soak: after: A $(files_of $UA), B $(files_of $UB) (files bytes), with the epilog" >&3
	[ "$(files_of $UA)" = "0 0" ]
	[ "$(find "$SITE/$(id -u $UB)" -mindepth 1 ! -name "job$LONG.*" | wc -l)" -eq 0 ]
	[ -f "$SITE/$(id -u $UB)/job$LONG.json.lock" ]
	scancel "$LONG"
	sed -i '/^Epilog=/d' "$dir/slurm.conf"
	scontrol reconfigure
}

@test "without it: each user's directory stays within cache_max_files" {
	plugstack "cache=$SITE" topology=auto "topology_levels=1:10:1000,2:50:100" cache_max_files=10
	long_job
	echo "# soak: before: A $(files_of $UA), B $(files_of $UB) (files bytes)" >&3
	soak
	echo "# soak: after: A $(files_of $UA), B $(files_of $UB) (files bytes), cache_max_files=10" >&3
	[ "$(files_of $UA | cut -d' ' -f1)" -le 10 ]
	[ "$(files_of $UB | cut -d' ' -f1)" -le 10 ]
	[ -f "$SITE/$(id -u $UB)/job$LONG.json.lock" ]
	# probe_ttl=0: the next job's first step removes every ended job's.
	plugstack "cache=$SITE" topology=auto "topology_levels=1:10:1000,2:50:100" probe_ttl=0
	run runuser -u $UA -- salloc -Q -N2 --ntasks-per-node=1 bash -c \
		"cd && srun -v --mpi=$MPI_TYPE --topo-map=dry-run --topo-profile=$SHARE/pair.json $SHARE/hello"
	echo "$output"
	[[ "$output" == *" of finished jobs"* ]]
	echo "# soak: a step with probe_ttl=0: A $(files_of $UA) (files bytes)" >&3
	[ "$(files_of $UA | cut -d' ' -f1)" -le 1 ]
	scancel "$LONG"
}
