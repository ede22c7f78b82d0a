#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# topomap-probe --plan sampled (lib/sample.h) on the emulated cluster: the
# switches found as every pair finds them, from far fewer pairs; the pairs
# not measured marked so and filled from the tree; names that do not
# follow the switches still give the configured tree; auto measures every
# pair below 64 nodes; a plan that measured every pair after all looks
# again where the full plan does (t1010).  (A bad --plan: t1020.)

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

# two_switches N: N nodes on two switches, names interleaved, 10:1.
two_switches() {
	local k
	{
		echo "switch core"
		echo "switch s1 parent=core rate=100mbit"
		echo "switch s2 parent=core rate=100mbit"
		for ((k = 1; k <= $1; k++)); do
			echo "node n$k switch=s$((2 - k % 2)) rate=1gbit"
		done
	} >"$BATS_FILE_TMPDIR/two-$1.topo"
	cluster_up --topology "$BATS_FILE_TMPDIR/two-$1.topo"
	stage "$PROBE" "$TOPOMAP"
}

@test "16 nodes on two switches: the sampled plan finds both switches from under half the pairs" {
	two_switches 16
	run run_probe 16 -v --plan sampled -o "$SHARE/sampled.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"16 hosts, "*" batch"*" of the sampling plan, "* ]]
	measured=$(sed -n 's/.* \([0-9]*\) of 120 pairs measured,.*/\1/p' <<<"$output")
	[ -n "$measured" ]
	[ "$measured" -lt 60 ]
	run "$SHARE/topomap" netmap show "$SHARE/sampled.json"
	echo "$output"
	[[ "$output" == *"pairs: $measured of 120 measured, the others' figures from the tree"* ]]
	[[ "$output" == *"2 groups: [n1 n3 n5 n7 n9 n11 n13 n15] [n2 n4 n6 n8 n10 n12 n14 n16]"* ]]
	# a pair not measured carries its level's figures: n1's row has a
	# bandwidth for every other node
	[ "$(awk '/^bandwidth/ {on = 1; next} on && $1 == "n1" && $2 !~ /^n/ {print NF; exit}' \
		<<<"$output")" -eq 17 ]
}

@test "auto below 64 nodes measures every pair" {
	two_switches 16
	run run_probe 16 -v -o "$SHARE/auto.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"16 hosts, 15 rounds, 120 of 120 pairs measured"* ]]
}

@test "3level-16, names scrambled across the leaves: the sampled plan gives the configured tree" {
	cluster_up --topology "$TOPOLOGIES/3level-16.topo"
	stage "$PROBE" "$TOPOMAP"
	want=$(configured_tree)
	run run_probe 16 -v --plan sampled -o "$SHARE/scrambled.json"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$SHARE/topomap" netmap show "$SHARE/scrambled.json"
	echo "$output"
	[[ "$output" == *"tree: $want"* ]]
}

@test "2sw-pairs, every pair measured by the sampled plan: the pairs between two switches of two nodes are measured again" {
	cluster_up --topology "$TOPOMAP_SRCDIR/t/fixtures/2sw-pairs.topo"
	stage "$PROBE" "$TOPOMAP"
	# 4 hosts: the skeleton holds them all; --doubt 1000 leaves the split
	# check alone to measure again (t1010's 2sw-pairs test)
	run run_probe 4 --plan sampled --doubt 1000 -v -o "$SHARE/pairs.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"6 of 6 pairs measured, 4 pairs measured again (0 in doubt),"* ]]
	run "$SHARE/topomap" netmap show "$SHARE/pairs.json"
	echo "$output"
	[[ "$output" == *"model: tree (the bandwidths fit a switch tree), 3 switches, 2 groups: [n1 n3] [n2 n4]"* ]]
}
