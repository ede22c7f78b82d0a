#!/usr/bin/env bats
# topomap-probe on 8 nodes, 2 switches, 10:1, names interleaved across the
# switches: every pair measured, the switches found, the run repeatable.

load lib/cluster
load lib/probe

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	stage "$PROBE" "$TOPOMAP"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

@test "the probe measures every pair of 8 nodes and writes a netmap" {
	run run_probe 8 -v -o "$SHARE/net1.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"8 hosts, 7 rounds"* ]]
	run "$SHARE/topomap" netmap show "$SHARE/net1.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"netmap $SHARE/net1.json: 8 hosts, job "* ]]
	# every off-diagonal latency and bandwidth is a number, the diagonal '-'
	local rows
	rows=$(awk '/^latency/ {on = 1; next} /^$/ {on = 0} on && /^n/' <<<"$output")
	[ "$(wc -l <<<"$rows")" -eq 8 ]
	awk '{ for (i = 2; i <= NF; i++) if ((i - 1 == NR) != ($i == "-")) exit 1 }' <<<"$rows"
}

@test "the inferred groups are the configured switches" {
	run "$SHARE/topomap" netmap show "$SHARE/net1.json"
	[[ "$output" == *"[n1 n3 n5 n7] [n2 n4 n6 n8]"* ]]
}

@test "inter-switch pairs measure slower than intra-switch pairs" {
	run "$SHARE/topomap" netmap show "$SHARE/net1.json"
	# latency row of n1: n1..n8 columns; n3, n5, n7 share its switch
	read -r _ _ l2 l3 _ <<<"$(awk '/^latency/ {on = 1; next} on && $1 == "n1" {print; exit}' <<<"$output")"
	read -r _ _ b2 b3 _ <<<"$(awk '/^bandwidth/ {on = 1; next} on && $1 == "n1" {print; exit}' <<<"$output")"
	echo "n1-n2 ${l2} us ${b2} MB/s, n1-n3 ${l3} us ${b3} MB/s"
	awk -v a="$l2" -v b="$l3" 'BEGIN { exit !(a > 2 * b) }'
	awk -v a="$b2" -v b="$b3" 'BEGIN { exit !(b > 3 * a) }'
}

@test "a second run infers the same groups" {
	run run_probe 8 -o "$SHARE/net2.json"
	[ "$status" -eq 0 ]
	run "$SHARE/topomap" netmap show "$SHARE/net2.json"
	[[ "$output" == *"[n1 n3 n5 n7] [n2 n4 n6 n8]"* ]]
}

@test "two ranks on a node give its intra-node figures" {
	run srun --overlap --mpi=pmix -N2 -n4 --ntasks-per-node=2 "$SHARE/topomap-probe" -j 1 -o "$SHARE/intra.json"
	[ "$status" -eq 0 ]
	run "$SHARE/topomap" netmap show "$SHARE/intra.json"
	echo "$output"
	rows=$(awk '/^latency/ {on = 1; next} /^$/ {on = 0} on && /^n/' <<<"$output")
	[ "$(wc -l <<<"$rows")" -eq 2 ]
	# the diagonal is measured now, and faster than the network
	awk '{ d = $(NR + 1); o = $(4 - NR); if (d == "-" || d + 0 >= o + 0) exit 1 }' <<<"$rows"
}

@test "a one-node allocation gives a valid trivial netmap" {
	run run_probe 1 -o "$SHARE/one.json"
	[ "$status" -eq 0 ]
	run "$SHARE/topomap" netmap show "$SHARE/one.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *": 1 hosts,"* ]]
}
