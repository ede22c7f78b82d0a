#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated cluster with rails (topomap-cluster --nics): 3 nodes, two
# interfaces each, hsn0 on rail 0 and hsn1 on rail 1, 100 Mbit/s, the two
# rails joined by a spine router at 20 Mbit/s a rail.  Each interface has
# its rail's address; traffic from a rail's address leaves by that rail,
# reaching another rail through the spine; traffic not bound to an address
# takes the destination's rail; Slurm stays on eth0.  Each node's tasks
# see it as a GPU node whose NIC k is hsn k (--hwloc, an lstopo export),
# and the probe's --inside reads those GPU slots.  MPI ranks held to two
# rails (Open MPI's btl_tcp_if_include, UCX_NET_DEVICES) meet through the
# spine.  down removes it all.

load lib/cluster
load lib/probe

setup_file() {
	need_cluster
	cluster_up --nodes 3 --nics 2,100mbit,20mbit --cpus 2 --hwloc "$TOPOMAP_SRCDIR/t/fixtures/hwloc/rail-2.xml"
	stage "$PROBE" "$TOPOMAP"
	stage_mpi pingpong
	# on-rail R0 R1 PROGRAM...: rank 0 held to hsnR0, the others to
	# hsnR1, as each MPI reads it (Open MPI's TCP transport, UCX's)
	cat >"$SHARE/on-rail" <<'EOF2' || return 1
#!/bin/sh
r=$2
[ "${SLURM_PROCID:-0}" = 0 ] && r=$1
shift 2
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=hsn$r
export UCX_NET_DEVICES=hsn$r UCX_TLS=tcp,self
exec "$@"
EOF2
	chmod 755 "$SHARE/on-rail"
}

# rail_bw R0 R1: a 256 KiB ping-pong's MB/s between n1 held to hsnR0 and
# n2 held to hsnR1.
rail_bw() {
	srun --mpi=$MPI_TYPE -w n1,n2 -N2 -n2 "$SHARE/on-rail" "$1" "$2" "$SHARE/pingpong" -s 262144 -n 10 |
		sed -n 's/.* bw_MBps=\([0-9.]*\).*/\1/p'
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

# rail R NODE_INDEX: that node's address on rail R (nodes from 0).
rail() {
	local subnet=${TOPOMAP_CLUSTER_SUBNET:-10.99.0}
	echo "${subnet%.*}.$((${subnet##*.} + 100 + $1)).$(($2 + 10))"
}

# spine R: the spine router's address on rail R.
spine() {
	local subnet=${TOPOMAP_CLUSTER_SUBNET:-10.99.0}
	echo "${subnet%.*}.$((${subnet##*.} + 100 + $1)).1"
}

@test "each node has hsn0 and hsn1 with its address on each rail, shaped at 100 Mbit/s" {
	local k r
	for k in 0 1 2; do
		for r in 0 1; do
			ip -n "tm-n$((k + 1))" -o -4 addr show dev "hsn$r" | grep -q " inet $(rail $r $k)/24 "
			tc -n "tm-n$((k + 1))" class show dev "hsn$r" | grep -q 'rate 100Mbit'
		done
	done
	tc -n tm-spine class show dev rail0 | grep -q 'rate 20Mbit'
	tc class show dev tmsp1 | grep -q 'rate 20Mbit'
	[ "$(ip netns exec tm-spine sysctl -n net.ipv4.ip_forward)" = 1 ]
}

@test "from a rail's address: out of that rail, another rail's by its spine address" {
	run ip -n tm-n1 route get "$(rail 0 1)" from "$(rail 0 0)"
	echo "$output"
	[[ "$output" == *" dev hsn0 "* ]] && [[ "$output" != *" via "* ]]
	run ip -n tm-n1 route get "$(rail 1 1)" from "$(rail 0 0)"
	echo "$output"
	[[ "$output" == *" via $(spine 0) dev hsn0 "* ]]
	run ip -n tm-n2 route get "$(rail 0 0)" from "$(rail 1 1)"
	echo "$output"
	[[ "$output" == *" via $(spine 1) dev hsn1 "* ]]
}

@test "unbound traffic takes the destination's rail; Slurm's stays on eth0" {
	run ip -n tm-n1 route get "$(rail 1 2)"
	echo "$output"
	[[ "$output" == *" dev hsn1 "* ]] && [[ "$output" != *" via "* ]]
	# slurmd answers on each rail and through the spine's legs
	ip netns exec tm-n1 timeout 5 bash -c "exec 3<>/dev/tcp/$(rail 0 1)/$((${TOPOMAP_CLUSTER_PORT:-6817} + 1))"
	ip netns exec tm-spine timeout 5 bash -c "exec 3<>/dev/tcp/$(rail 1 2)/$((${TOPOMAP_CLUSTER_PORT:-6817} + 1))"
	run srun -N3 -l hostname
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "0: n1 1: n2 2: n3 " ]
}

@test "the probe reads each node's GPU slots, each GPU with the NIC on its rail" {
	run run_probe 3 --inside -o "$SHARE/rails.json"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$SHARE/topomap" netmap show "$SHARE/rails.json"
	echo "$output"
	[ "$(grep -c '^n[1-3] slots: cuda0 hsn0 (switch, CPUs 0); cuda1 hsn1 (switch, CPUs 1)$' <<<"$output")" -eq 3 ]
}

@test "MPI ranks held to one rail each: across rails through the 5x slower spine" {
	local same cross
	same=$(rail_bw 1 1)
	cross=$(rail_bw 0 1)
	echo "same rail ${same} MB/s, across ${cross} MB/s"
	[ -n "$same" ] && [ -n "$cross" ]
	# 100 Mbit/s against a 20 Mbit/s spine: at least 3x
	awk -v a="$same" -v b="$cross" 'BEGIN { exit !(a > 3 * b) }'
}

@test "--nics refuses a bad count or rate, naming it" {
	run "$CLUSTER" up --nodes 3 --nics 9
	[ "$status" -ne 0 ]
	[[ "$output" == *"--nics: '9' is not K[,RATE[,SPINE]] with K from 1 to 8"* ]]
	run "$CLUSTER" up --nodes 3 --nics 2,fast
	[ "$status" -ne 0 ]
	[[ "$output" == *"--nics: '2,fast': bad rate"* ]]
}

@test "down removes the rails, the spine and their links" {
	cluster_down
	[ -z "$(cluster_leftovers)" ]
	! ip netns list | grep -q '^tm-spine'
}
