#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated cluster as a 3-level tree: core, two aggregation switches,
# four edge switches, twelve nodes; uplinks slow down towards the core.

load lib/cluster

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/3level-12.topo"
	stage_mpi pingpong
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

bw() {
	srun --mpi=$MPI_TYPE -w "$1" -N2 -n2 "$SHARE/pingpong" -s 262144 -n 10 |
		sed -n 's/.* bw_MBps=\([0-9.]*\).*/\1/p'
}

@test "twelve nodes come up idle" {
	run sinfo -h -o '%D %t'
	[ "$output" = "12 idle" ]
}

@test "the tree has seven switches with the configured parents" {
	run awk '$1 == "switch" {print $2, $3}' "$TOPOMAP_CLUSTER_DIR/topology"
	[ "$output" = "$(printf '%s\n' 'core parent=-' 'agg1 parent=core' 'agg2 parent=core' \
		'e1 parent=agg1' 'e2 parent=agg1' 'e3 parent=agg2' 'e4 parent=agg2')" ]
}

@test "bandwidth falls with every level a path climbs" {
	edge=$(bw n1,n2)
	agg=$(bw n1,n4)
	core=$(bw n1,n7)
	echo "same edge ${edge}, same aggregation ${agg}, across the core ${core} MB/s"
	# Configured 1000 : 300 : 100 Mbit/s.
	awk -v e="$edge" -v a="$agg" -v c="$core" 'BEGIN { exit !(e > 2 * a && a > 2 * c) }'
}

@test "a 12-rank MPI job spans every leaf of the tree" {
	stage_mpi hello
	run srun --mpi=$MPI_TYPE -N12 -n12 "$SHARE/hello"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'size=12 host=n[0-9]* sum=66 local=1 first=[0-9]*$' <<<"$output")" -eq 12 ]
}
