#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Inside the node: on 8 nodes of 2 CPUs that Slurm binds (task/affinity),
# each showing its tasks a synthetic hwloc topology of 2 packages of one
# core (topomap-cluster --hwloc), srun --topo-map places the ranks by the
# plan and binds each to the CPU the plan chose for it, which every rank's
# Cpus_allowed_list shows.  Two ranks on two CPUs cost the same however
# they are bound, so bind=auto leaves Slurm's own binding here (said
# under -v); bind=always binds by the plan, as auto does where it gains.  A user's --cpu-bind stands; a node whose
# topology cannot be read, or that differs from the others, leaves the
# plan placing across nodes only; each says so in one line.  Where the
# plan does not bind, Slurm binds such a step by itself (task/affinity's
# auto binding, mask_cpu), never by a map_cpu list.

load lib/cluster
load lib/plugin

# bind_up [--hwloc SPEC]...: the cluster of this suite, each node
# "pack:2 core:1 pu:1" unless a SPEC says otherwise for it.
bind_up() {
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo" --cpus 2 \
		--hwloc "pack:2 core:1 pu:1" "$@" || return 1
	plugin_setup || return 1
	cat >"$SHARE/where" <<'EOF' || return 1
#!/bin/sh
# Where this task runs, and the binding it was given.
echo "rank=$SLURM_PROCID node=$SLURMD_NODENAME local=$SLURM_LOCALID cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status) bind=$SLURM_CPU_BIND"
EOF
	chmod 755 "$SHARE/where"
}

# step: a placed step of 16 ranks, 2 a node, the halo profile; extra srun
# options in $1.
step() {
	in_alloc -N8 --ntasks-per-node=2 -- \
		"srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $1 $SHARE/where"
}

# not_bound_by_plan: 16 ranks, none bound by a map_cpu list (Slurm binds
# a step on every CPU by itself: mask_cpu, rank after rank).
not_bound_by_plan() {
	[ "$(grep -c '^rank=' <<<"$output")" -eq 16 ]
	! grep -q '^rank=.*map_cpu' <<<"$output" || false
}

setup_file() {
	need_cluster
	bind_up
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	plugstack bind=always
}

# A test that failed shows the netmap its step was planned on: a plan not
# applied says why only under -v.
teardown() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] && return 0
	local nm
	for nm in "$XDG_CACHE_HOME"/topomap/netmaps/job*.json; do
		[ -e "$nm" ] && "$SHARE/topomap" netmap show "$nm"
	done
	return 0
}

@test "every rank runs on the CPU the plan binds it to" {
	run step ""
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^srun: topomap: placed 16 ranks on 8 nodes and bound them inside, predicted gain ' <<<"$output"
	[ "$(quiet_lines <<<"$output" | grep -c '^srun: topomap:')" -eq 1 ]
	[ "$(grep -c '^rank=' <<<"$output")" -eq 16 ]
	# one list for every node, srun's map_cpu form; each rank on its
	# local id's CPU, and on that one only
	grep '^rank=' <<<"$output" | awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		b = f["bind"]; sub(/^.*map_cpu:/, "", b)
		n = split(b, list, ",")
		if (n != 2 || f["cpus"] != list[f["local"] + 1] || f["cpus"] !~ /^[01]$/) { print "wrong: " $0; bad = 1 }
		seen[f["node"] " " f["cpus"]]++
	} END { for (k in seen) if (seen[k] != 1) { print "twice: " k; bad = 1 } exit bad }'
	# the netmap knows each node's inside, the level across its packages
	# measured by the probe's two ranks a node
	local nm
	nm=$(ls "$XDG_CACHE_HOME"/topomap/netmaps/job*.json)
	run "$SHARE/topomap" netmap show "$nm"
	echo "$output"
	[ "$(grep -c '^n[1-8] inside: 2 CPUs (0-1) in 2 L3 domains of 2 packages; l3 not measured, package not measured, machine [0-9.]* us [0-9]* MB/s$' <<<"$output")" -eq 8 ]
}

@test "bind=auto leaves Slurm's own binding where the plan's gains nothing" {
	plugstack
	run step -v
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^srun: topomap: no CPU binding: Slurm's own binding (the packages in turn) is as good$" <<<"$output"
	grep -q '^srun: topomap: placed 16 ranks on 8 nodes, predicted gain ' <<<"$output"
	not_bound_by_plan
	# the probe read the nodes all the same
	"$SHARE/topomap" netmap show "$(ls "$XDG_CACHE_HOME"/topomap/netmaps/job*.json)" | grep -q '^n8 inside: 2 CPUs'
}

@test "a user's --cpu-bind stands, and the plan places across nodes only, saying so" {
	local opt
	for opt in --cpu-bind=none --cpu-bind=verbose,cores; do
		run step "$opt"
		echo "$output"
		[ "$status" -eq 0 ]
		grep -qx 'srun: topomap: --cpu-bind given: it stands, and the plan places ranks across nodes only' <<<"$output"
		grep -q '^srun: topomap: placed 16 ranks on 8 nodes, predicted gain ' <<<"$output"
		[ "$(quiet_lines <<<"$output" | grep -c '^srun: topomap:')" -eq 2 ]
		[ "$(grep -c '^rank=' <<<"$output")" -eq 16 ]
		! grep -q '^rank=.*map_cpu' <<<"$output" || false
	done
	# none: unbound; cores: Slurm's own binding, reported (verbose)
	[ "$(grep -c 'cpu-bind=MASK' <<<"$output")" -eq 16 ]
	[ "$(grep -c '^rank=.* cpus=[01] ' <<<"$output")" -eq 16 ]
}

@test "SLURM_CPU_BIND in the job's environment stands likewise" {
	run in_alloc -N8 --ntasks-per-node=2 -- \
		"SLURM_CPU_BIND=none srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $SHARE/where"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'srun: topomap: --cpu-bind given: it stands, and the plan places ranks across nodes only' <<<"$output"
	[ "$(grep -c '^rank=.* cpus=0-1 ' <<<"$output")" -eq 16 ]
}

@test "a node whose topology cannot be read leaves the plan across nodes, in one line" {
	bind_up --hwloc "n8=unreadable"
	run step ""
	echo "$output"
	[ "$status" -eq 0 ]
	local log
	log=$(ls "$XDG_CACHE_HOME"/topomap/netmaps/job*.json.log)
	if grep -q 'pmix_hwloc' "$log"; then
		# Open MPI 5's PMIx reads the node with hwloc too, and MPI_Init
		# fails there: no probe, srun's placement, one line
		grep -q "^srun: topomap: srun's own placement: no netmap: the probe failed " <<<"$output"
		[ "$(quiet_lines <<<"$output" | grep -c '^srun: topomap:')" -eq 1 ]
	else
		grep -qx "srun: topomap: no CPU binding: n8's CPUs were not read (the probe's log says why): the plan places ranks across nodes only" <<<"$output"
		grep -q '^srun: topomap: placed 16 ranks on 8 nodes, predicted gain ' <<<"$output"
		[ "$(quiet_lines <<<"$output" | grep -c '^srun: topomap:')" -eq 2 ]
		grep -q "n8: hwloc: cannot read this node's topology" "$log"
	fi
	not_bound_by_plan
}

@test "a node unlike the others leaves the plan across nodes, in one line" {
	bind_up --hwloc "n8=pack:1 core:2 pu:1"
	run step ""
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "srun: topomap: no CPU binding: n8's CPUs differ from n1's, and one binding serves all nodes: the plan places ranks across nodes only" <<<"$output"
	[ "$(quiet_lines <<<"$output" | grep -c '^srun: topomap:')" -eq 2 ]
	not_bound_by_plan
}
