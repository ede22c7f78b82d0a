#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated cluster with rails (topomap-cluster --nics): 3 nodes, two
# interfaces each, hsn0 on rail 0 and hsn1 on rail 1, 100 Mbit/s, the two
# rails joined by a spine router at 20 Mbit/s a rail.  Each interface has
# its rail's address; traffic from a rail's address leaves by that rail,
# reaching another rail through the spine; traffic not bound to an address
# takes the destination's rail; Slurm stays on eth0.  Each node's tasks
# see it as a GPU node whose NIC k is hsn k (--hwloc, an lstopo export),
# and the probe's --inside reads those GPU slots; Slurm gives each node
# two fake GPUs (--gpus), GPU k the slot of hsn k.  MPI ranks held to two
# rails (Open MPI's btl_tcp_if_include, UCX_NET_DEVICES) meet through the
# spine.  down removes it all.

load lib/cluster
load lib/plugin
load lib/probe

setup_file() {
	need_cluster
	cluster_up --nodes 3 --nics 2,100mbit,20mbit --gpus 2 --cpus 2 --hwloc "$TOPOMAP_SRCDIR/t/fixtures/hwloc/rail-2.xml" \
		--hwloc "n3=$TOPOMAP_SRCDIR/t/fixtures/hwloc/rail-4.xml"
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
	plugin_setup || return 1
	# nic: each task's rank, node and the NIC variables it was given
	cat >"$SHARE/nic" <<'EOF2' || return 1
#!/bin/sh
echo "rank=$SLURM_PROCID node=$SLURMD_NODENAME ucx=${UCX_NET_DEVICES-} tcp=${OMPI_MCA_btl_tcp_if_include-} nccl=${NCCL_SOCKET_IFNAME-} hca=${NCCL_IB_HCA-} fi=${FI_TCP_IFACE-} left=${TOPOMAP_NICS-}"
EOF2
	chmod 755 "$SHARE/nic"
	# gpu: each task's rank, node, Slurm's GPU variables and NIC; its CPUs
	cat >"$SHARE/gpu" <<'EOF2' || return 1
#!/bin/sh
echo "rank=$SLURM_PROCID node=$SLURMD_NODENAME local=$SLURM_LOCALID gpu=${CUDA_VISIBLE_DEVICES-} step=${SLURM_STEP_GPUS-} ordinal=${GPU_DEVICE_ORDINAL-} ucx=${UCX_NET_DEVICES-}"
echo "cpus of $SLURM_PROCID: $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
EOF2
	chmod 755 "$SHARE/gpu"
	# 4 ranks, 2 a node, placed as srun does (no plan gains): a ring,
	# whose edges between the nodes join opposite local ranks (ring4);
	# pairs inside the nodes three times heavier than pairs between them
	# at the same local rank (same4)
	profile4 ring4 '[0, 1, 10, 1000000], [0, 3, 10, 1000000], [1, 0, 10, 1000000],
		[1, 2, 10, 1000000], [2, 1, 10, 1000000], [2, 3, 10, 1000000], [3, 0, 10, 1000000],
		[3, 2, 10, 1000000]' 8000000 80
	profile4 same4 '[0, 1, 10, 3000000], [0, 2, 10, 1000000], [1, 0, 10, 3000000],
		[1, 3, 10, 1000000], [2, 0, 10, 1000000], [2, 3, 10, 3000000], [3, 1, 10, 1000000],
		[3, 2, 10, 3000000]' 16000000 80
}

# profile4 NAME ENTRIES BYTES MSGS: a 4-rank profile in $SHARE/NAME.json.
profile4() {
	cat >"$SHARE/$1.json" <<EOF2
{"kind": "topomap-profile", "schema": 1, "ntasks": 4, "exe": {"id": "", "path": ""},
 "mpi": "", "source": "recorder", "collectives": false, "record_s": 0, "jobid": "",
 "timestamp": "2026-12-05T00:00:00Z", "totals": {"msgs": $4, "bytes": $3},
 "entries": [$2]}
EOF2
}

# nic_step PROFILE [ENV...]: a 4-rank step on n1 and n2 under --topo-map -v.
nic_step() {
	local prof=$1
	shift
	in_alloc -w n1,n2 -N2 --ntasks-per-node=2 -- \
		"$* srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/$prof.json $SHARE/nic 2>&1"
}

# nic_of RANK: that rank's line's field ucx.
nic_of() {
	sed -n "s/^rank=$1 .* ucx=\([^ ]*\).*/\1/p" <<<"$output"
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
	[[ "$output" == *" dev hsn0 "* ]]
	[[ "$output" != *" via "* ]]
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
	[[ "$output" == *" dev hsn1 "* ]]
	[[ "$output" != *" via "* ]]
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
	[ "$(grep -c '^n[12] slots: cuda0 hsn0 (switch, CPUs 0); cuda1 hsn1 (switch, CPUs 1)$' <<<"$output")" -eq 2 ]
	grep -q '^n3 slots: cuda0 hsn0 (switch, CPUs 0); cuda1 hsn1 (switch, CPUs 1); cuda2 hsn2 (switch, CPUs 0); cuda3 hsn3 (switch, CPUs 1)$' <<<"$output"
}

@test "MPI ranks held to one rail each: across rails through the 5x slower spine" {
	local same cross
	same=$(rail_bw 1 1)
	cross=$(rail_bw 0 1)
	echo "same rail ${same} MB/s, across ${cross} MB/s"
	[ -n "$same" ]
	[ -n "$cross" ]
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

@test "--topo-map gives partners across nodes one rail, every NIC used" {
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	run nic_step ring4
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "topomap: bytes between nodes crossing rails (2): 100.0% in Slurm's order, 0.0% by rail, gain 100.0%" <<<"$output"
	grep -q "^srun: topomap: each rank's NIC by rail, 100.0% fewer bytes crossing rails; srun's own placement: " <<<"$output"
	[ "$(grep -c '^rank=' <<<"$output")" -eq 4 ]
	# ring partners across nodes (3 and 0, 1 and 2) on one rail; each node's two ranks on its two NICs; every
	# variable names the rank's NIC, none left over
	[ -n "$(nic_of 0)" ]
	[ "$(nic_of 0)" = "$(nic_of 3)" ]
	[ "$(nic_of 1)" = "$(nic_of 2)" ]
	[ "$(nic_of 0)" != "$(nic_of 1)" ]
	[ "$(nic_of 2)" != "$(nic_of 3)" ]
	[ "$(printf '%s\n' "$(nic_of 0)" "$(nic_of 1)" | sort | tr '\n' ' ')" = "hsn0 hsn1 " ]
	[ "$(grep -Ec '^rank=[0-3] node=n[12] ucx=(hsn[01]) tcp=\1 nccl= hca= fi=\1 left=$' <<<"$output")" -eq 4 ]
	# each rank's GPU the one of its NIC: cudaK with hsnK
	local want="" r
	for r in 0 1 2 3; do
		want+="${want:+, }$r n$((r / 2 + 1)) cuda$(nic_of $r | tr -d hsn) $(nic_of $r)"
	done
	grep -q "topomap: rank, node, GPU and NIC: $want$" <<<"$output"
}

@test "partners already on one rail, or a user's own NIC: the MPI's choice stands" {
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	run nic_step same4
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "topomap: no NIC chosen: below min_gain" <<<"$output"
	[ "$(grep -c '^rank=[0-3] .* ucx= tcp= nccl= hca= fi= left=$' <<<"$output")" -eq 4 ]
	# the user's variables stand; Open MPI's include only where no exclude
	run nic_step ring4 UCX_NET_DEVICES=eth0 OMPI_MCA_btl_tcp_if_exclude=lo
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -Ec '^rank=[0-3] .* ucx=eth0 tcp= nccl= hca= fi=hsn[01] left=$' <<<"$output")" -eq 4 ]
	# a value srun's plugin did not set never reaches the tasks
	run in_alloc -w n1,n2 -N2 --ntasks-per-node=2 -- \
		"TOPOMAP_NICS='x\$/y;0:0,0:0,0:0,0:0' srun --mpi=$MPI_TYPE $SHARE/nic 2>&1"
	echo "$output"
	[ "$(grep -c '^rank=[0-3] .* ucx= tcp= .* left=$' <<<"$output")" -eq 4 ]
}

@test "UCX_TLS without shared memory: UCX keeps its NICs, a line a node; with it, the rank's" {
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	local tls
	# "\name": that transport alone, never an alias (UCX's ucp_config)
	for tls in tcp,self '^sm' '\shm,tcp' '^posix,sysv' '\posix,tcp' tcp,sm; do
		run nic_step ring4 "UCX_TLS='$tls'"
		echo "$output"
		[ "$status" -eq 0 ]
		case $tls in
		'\posix,tcp' | tcp,sm)
			[ "$(grep -Ec '^rank=[0-3] node=n[12] ucx=(hsn[01]) tcp=\1 nccl= hca= fi=\1 left=$' <<<"$output")" -eq 4 ]
			[ "$(grep -c "UCX_TLS allows no shared memory" <<<"$output")" -eq 0 ]
			;;
		*)
			[ "$(grep -Ec '^rank=[0-3] node=n[12] ucx= tcp=(hsn[01]) nccl= hca= fi=\1 left=$' <<<"$output")" -eq 4 ]
			[ "$(grep -c "topomap: UCX_TLS allows no shared memory, or cannot be read: UCX chooses the NIC (over TCP, ranks of a node on two rails cannot reach each other)$" <<<"$output")" -eq 2 ]
			;;
		esac
	done
}

@test "a NIC the netmap has but the node lacks is not set: one line, the MPI's choice" {
	# n3 is described with four NICs and has two: its rank without a
	# partner stays on its slot in local order, hsn2 (1 and 2 talk across
	# the nodes, 0 and 1 three times as much inside n1: srun's layout)
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	profile4 lone4 '[0, 1, 10, 3000000], [1, 0, 10, 3000000], [1, 2, 10, 1000000], [2, 1, 10, 1000000]' 8000000 40
	run in_alloc -w n1,n3 -N2 --ntasks-per-node=2 -- \
		"srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/lone4.json $SHARE/nic 2>&1"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "topomap: rank, node, GPU and NIC: 0 n1 cuda[01] hsn[01], 1 n1 cuda[01] hsn[01], 2 n3 cuda[01] hsn[01], 3 n3 cuda2 hsn2$" <<<"$output"
	grep -q "topomap: TOPOMAP_NICS: hsn2 is not up here: the MPI chooses the NIC$" <<<"$output"
	grep -Eq '^rank=3 node=n3 ucx= tcp= nccl= hca= fi= left=$' <<<"$output"
	[ "$(grep -Ec '^rank=[0-2] node=n[13] ucx=(hsn[01]) tcp=\1 nccl= hca= fi=\1 left=$' <<<"$output")" -eq 3 ]
}

# gpu_step PROFILE SRUN-OPTION...: a 4-rank step on n1 and n2 under
# --topo-map -v, printing each task's GPU and NIC.
gpu_step() {
	local prof=$1
	shift
	in_alloc -w n1,n2 -N2 --ntasks-per-node=2 "$@" -- \
		"srun -v --mpi=$MPI_TYPE $* --topo-map --topo-profile=$SHARE/$prof.json $SHARE/gpu 2>&1"
}

# gpu_of RANK: the GPU that rank's program takes, of those it sees the
# one of its local rank (gpu's entry local % count).
gpu_of() {
	awk -v r="rank=$1" '$1 == r { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		n = split(f["gpu"], g, ","); if (n) print g[f["local"] % n + 1] }' <<<"$output"
}

# cpus_of RANK: the CPUs that rank may run on.
cpus_of() {
	sed -n "s/^cpus of $1: //p" <<<"$output"
}

@test "Slurm's fake GPUs: per-task binding as Slurm gives it, the node's GPUs without" {
	run srun -w n1,n2 -N2 -n4 --gpus-per-task=1 "$SHARE/gpu"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -Ec '^rank=[0-3] node=n[12] local=([01]) gpu=\1 step=\1 ordinal=\1 ucx=$' <<<"$output")" -eq 4 ]
	run srun -w n1,n2 -N2 -n4 --gpus-per-node=2 "$SHARE/gpu"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=[0-3] node=n[12] local=[01] gpu=0,1 step=0,1 ordinal=0,1 ucx=$' <<<"$output")" -eq 4 ]
	run "$CLUSTER" up --nodes 3 --gpus 9
	[ "$status" -ne 0 ]
	[[ "$output" == *"--gpus: '9' is not a number from 1 to 8"* ]]
}

@test "a step with its nodes' GPUs: each rank's GPU the one of its NIC, partners on one rail" {
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	run gpu_step ring4 --gpus-per-node=2
	echo "$output"
	[ "$status" -eq 0 ]
	# GPU k is hsn k's slot: Slurm's variables reordered alike, both GPUs
	# visible, the rank's where its local rank takes it, the NIC its own
	[ "$(grep -Ec '^rank=[0-3] node=n[12] local=[01] gpu=(0,1|1,0) step=\1 ordinal=\1 ucx=hsn[01]$' <<<"$output")" -eq 4 ]
	for r in 0 1 2 3; do [ "hsn$(gpu_of $r)" = "$(nic_of $r)" ]; done
	[ "$(gpu_of 0)" = "$(gpu_of 3)" ]
	[ "$(gpu_of 1)" = "$(gpu_of 2)" ]
	[ "$(gpu_of 0)" != "$(gpu_of 1)" ]
	# each rank on its GPU's CPU (rail-2.xml: CPU k near GPU k), though
	# one node's local rank 0 has GPU 1
	grep -q "topomap: each rank bound to the CPUs of its GPU, GPU by GPU: 0/1$" <<<"$output"
	for r in 0 1 2 3; do [ "$(cpus_of $r)" = "$(gpu_of $r)" ]; done
	# the user's --cpu-bind stands, the NICs and GPUs are still chosen
	run in_alloc -w n1,n2 -N2 --ntasks-per-node=2 --gpus-per-node=2 -- \
		"srun -v --mpi=$MPI_TYPE --cpu-bind=map_cpu:0,0 --topo-map --topo-profile=$SHARE/ring4.json $SHARE/gpu 2>&1"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "topomap: the CPU binding stays Slurm's: --cpu-bind given$" <<<"$output"
	for r in 0 1 2 3; do
		[ "$(cpus_of $r)" = 0 ]
		[ "hsn$(gpu_of $r)" = "$(nic_of $r)" ]
	done
	# a GPU each, but Slurm asked to bind none: the same where Slurm gives
	# the tasks GPU variables (22.05 gives none: the NIC alone)
	run gpu_step ring4 --gpus-per-task=1 --gpu-bind=none
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -Ec '^rank=[0-3] node=n[12] local=[01] (gpu=(0,1|1,0) step=\2 ordinal=\2|gpu= step= ordinal=) ucx=hsn[01]$' <<<"$output")" -eq 4 ]
	for r in 0 1 2 3; do [ -z "$(gpu_of $r)" ] || [ "hsn$(gpu_of $r)" = "$(nic_of $r)" ]; done
	[ "$(nic_of 0)" = "$(nic_of 3)" ]
	[ "$(nic_of 1)" = "$(nic_of 2)" ]
	[ "$(nic_of 0)" != "$(nic_of 1)" ]
}

@test "Slurm binds each task's GPU: its NIC the MPI's, the binding stands" {
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	run gpu_step ring4 --gpus-per-task=1
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "topomap: no NIC chosen: Slurm binds each task's GPU (--gpus-per-task), the MPI takes the NIC near it$" <<<"$output"
	[ "$(grep -Ec '^rank=[0-3] node=n[12] local=[01] gpu=([01]) step=\1 ordinal=\1 ucx=$' <<<"$output")" -eq 4 ]
	[ "$(gpu_of 0)" != "$(gpu_of 1)" ]
	[ "$(gpu_of 2)" != "$(gpu_of 3)" ]
}

@test "a rank whose slot's GPU the step lacks: Slurm's GPU, the MPI's NIC, one line" {
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	run gpu_step ring4 --gpus-per-node=1
	echo "$output"
	[ "$status" -eq 0 ]
	# each node's one GPU is GPU 0: the ranks on hsn1 keep it and their NIC is the MPI's
	grep -q "topomap: TOPOMAP_NICS: GPU 1 is not among the task's 1: the MPI chooses the NIC$" <<<"$output"
	[ "$(grep -c '^rank=[0-3] node=n[12] local=[01] gpu=0 step=0 ordinal=0 ucx=hsn0$' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^rank=[0-3] node=n[12] local=[01] gpu=0 step=0 ordinal=0 ucx=$' <<<"$output")" -eq 2 ]
}

@test "down removes the rails, the spine and their links" {
	cluster_down
	[ -z "$(cluster_leftovers)" ]
	! ip netns list | grep -q '^tm-spine' || false
}
