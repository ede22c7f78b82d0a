#!/usr/bin/env bats
# topomap-probe on a 3-level tree of 12 nodes (edge, aggregation and core
# switches, links shaped to 1 Gbit/s, 300 and 100 Mbit/s): the inferred
# tree is the configured one.
#
# Pings are 16 KiB here.  At the default 1 KiB, htb lets a small message
# through at line rate (its burst), so the levels barely differ, and which
# of the two cores a pair's ranks share makes a pair within a switch read
# 7 or 13 us: the levels are lost in that noise.  16 KiB takes 69, 230 and
# 690 us across the three levels, and the levels stand out.

load lib/cluster
load lib/probe

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/3level-12.topo"
	stage "$PROBE" "$TOPOMAP"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

@test "the inferred tree is the configured one, twice" {
	local want
	want=$(configured_tree)
	echo "configured: $want"
	[ "$want" = "(((n1 n2 n3) (n4 n5 n6)) ((n7 n8 n9) (n10 n11 n12)))" ]
	for run in 1 2; do
		run run_probe 12 --lat-size 16384 -o "$SHARE/tree.$run.json"
		[ "$status" -eq 0 ]
		run "$SHARE/topomap" netmap show "$SHARE/tree.$run.json"
		grep -E '^(model|tree):' <<<"$output"
		[[ "$output" == *"model: tree (the latencies fit a switch tree), 7 switches, 4 groups: [n1 n2 n3] [n4 n5 n6] [n7 n8 n9] [n10 n11 n12]"* ]]
		[[ "$output" == *"tree: $want"* ]]
	done
}
