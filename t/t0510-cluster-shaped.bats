#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated cluster, shaped: 2 switches x 4 nodes, names interleaved
# across the switches (n1,n3,n5,n7 on s1), 1 Gbit/s node links and 100 Mbit/s
# switch uplinks, so inter-switch paths are 10x slower.

load lib/cluster

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	stage_mpi hello pingpong
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

# pingpong_field NODES BYTES FIELD: the FIELD of a 2-rank pingpong on NODES.
pingpong_field() {
	srun --mpi=$MPI_TYPE -w "$1" -N2 -n2 "$SHARE/pingpong" -s "$2" -n "$4" |
		sed -n "s/.* $3=\([0-9.]*\).*/\1/p"
}

@test "all eight nodes come up idle, listed in name order" {
	run sinfo -h -N -o '%N %t'
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'n%d idle\n' 1 2 3 4 5 6 7 8)" ]
}

@test "the parsed topology puts the odd nodes on s1 and the even on s2" {
	run awk '$1 == "node" {print $2, $3}' "$TOPOMAP_CLUSTER_DIR/topology"
	[ "$(sort -V <<<"$output" | tr '\n' ' ')" = "n1 switch=s1 n2 switch=s2 n3 switch=s1 n4 switch=s2 n5 switch=s1 n6 switch=s2 n7 switch=s1 n8 switch=s2 " ]
}

@test "an MPI program across all eight nodes reports every hostname once" {
	run srun --mpi=$MPI_TYPE -N8 -n8 "$SHARE/hello"
	[ "$status" -eq 0 ]
	[ "$(sed -n 's/.* host=\(n[0-9]*\) sum=28 local=1 first=[0-9]*$/\1/p' <<<"$output" | sort -V | tr '\n' ' ')" = "n1 n2 n3 n4 n5 n6 n7 n8 " ]
}

@test "bandwidth across the switches is far below bandwidth inside one" {
	intra=$(pingpong_field n1,n3 262144 bw_MBps 20)
	inter=$(pingpong_field n1,n2 262144 bw_MBps 20)
	echo "intra-switch ${intra} MB/s, inter-switch ${inter} MB/s"
	[ -n "$intra" ]
	[ -n "$inter" ]
	# 10:1 configured; demand at least 5:1 measured.
	awk -v a="$intra" -v b="$inter" 'BEGIN { exit !(a > 5 * b) }'
}

@test "small-message round trips across the switches are clearly slower" {
	# 4 KiB: its 330 us at the uplinks' 100 Mbit/s, not the 27 or 63 us a
	# round trip inside a switch takes as the two ranks share a core or not
	# (1 KiB's 82 us was less than twice the latter; findings, 2026-12-04).
	intra=$(pingpong_field n2,n4 4096 rtt_us 200)
	inter=$(pingpong_field n2,n7 4096 rtt_us 200)
	echo "intra-switch ${intra} us, inter-switch ${inter} us"
	[ -n "$intra" ]
	[ -n "$inter" ]
	awk -v a="$intra" -v b="$inter" 'BEGIN { exit !(b > 2 * a) }'
}

@test "two nodes of the same switch with other names measure alike" {
	a=$(pingpong_field n5,n7 262144 bw_MBps 20)
	b=$(pingpong_field n6,n8 262144 bw_MBps 20)
	echo "s1 ${a} MB/s, s2 ${b} MB/s"
	awk -v a="$a" -v b="$b" 'BEGIN { r = a / b; exit !(r > 0.7 && r < 1.4) }'
}
