#!/usr/bin/env bats
# topomap-probe on three-level trees: the inferred tree is the configured
# one, three runs out of three, at the probe's default ping size, on
#   3level-12            12 nodes, 1 Gbit/s, 300 and 100 Mbit/s
#   3level-12-scrambled  12 nodes, names scrambled across the leaves,
#                        1 Gbit/s, 250 and 60 Mbit/s
#   3level-16            16 nodes, scrambled, 1 Gbit/s, 400 and 100 Mbit/s
#
# At the default 1 KiB, htb lets a small ping through at line rate (its
# burst), and which of the two cores a pair's ranks share makes a pair
# within a switch read 7 or 13 us: the latency levels are lost in that
# noise.  The bandwidths stand in clean classes per level, and the tree
# comes from them (topo_infer_net); the netmap says so.

load lib/cluster
load lib/probe

setup_file() {
	need_cluster
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

# tree_thrice TOPOLOGY NODES: bring the cluster up on TOPOLOGY and probe
# it three times; each netmap's tree is the configured one.
tree_thrice() {
	local want run
	cluster_up --topology "$TOPOLOGIES/$1.topo"
	stage "$PROBE" "$TOPOMAP"
	want=$(configured_tree)
	echo "configured: $want"
	[[ "$want" == "(((n"*"))" ]]
	for run in 1 2 3; do
		run run_probe "$2" -o "$SHARE/tree.$run.json"
		[ "$status" -eq 0 ]
		run "$SHARE/topomap" netmap show "$SHARE/tree.$run.json"
		grep -E '^(model|fit|tree):' <<<"$output"
		[[ "$output" == *"model: tree (the "*" fit a switch tree), 7 switches, 4 groups: "* ]]
		[[ "$output" == *"tree: $want"* ]]
		[[ "$output" == *"fit: residual "* ]]
	done
}

@test "3level-12: the inferred tree is the configured one, three times" {
	tree_thrice 3level-12 12
}

@test "3level-12-scrambled: the inferred tree is the configured one, three times" {
	tree_thrice 3level-12-scrambled 12
}

@test "3level-16: the inferred tree is the configured one, three times" {
	tree_thrice 3level-16 16
}
