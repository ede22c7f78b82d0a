#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated cluster, flat: up, status, MPI across all nodes, idempotence,
# and a down that leaves nothing behind.

load lib/cluster

setup_file() {
	need_cluster
	cluster_up --nodes 4
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

@test "sinfo shows the four nodes idle" {
	run sinfo -h -N -o '%N %t'
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf 'n%d idle\n' 1 2 3 4)" ]
}

@test "status reports the cluster up" {
	run "$CLUSTER" status
	[ "$status" -eq 0 ]
	[[ "$output" == up:* ]]
	[[ "$output" == *"n1 idle 4"* ]]
}

@test "an MPI program runs across all nodes under srun" {
	stage_mpi hello
	run srun --mpi=$MPI_TYPE -N4 -n4 "$SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	quiet "$(grep -v '^rank=' <<<"$output")"
	[ "$(grep '^rank=' <<<"$output" | sort)" = "$(for r in 0 1 2 3; do echo "rank=$r size=4 host=n$((r + 1)) sum=6 local=1 first=$r"; done)" ]
}

@test "slurmd runs with PMIx's hash store where Slurm's mpi/pmix is built for PMIx 5 or 6" {
	local plugindir pid gds
	plugindir=$(scontrol show config | sed -n 's/^PluginDir *= //p')
	[ -d "$plugindir" ]
	pid=$(cat "$TOPOMAP_CLUSTER_DIR/run/slurmd-n1.pid")
	[ "$(cat "/proc/$pid/comm")" = slurmd ]
	gds=$(tr '\0' '\n' <"/proc/$pid/environ" | grep '^PMIX_MCA_gds=' || true)
	if compgen -G "$plugindir/mpi_pmix_v[56].so" >/dev/null; then
		[ "$gds" = PMIX_MCA_gds=hash ]
		# the server offers its tasks that store alone
		run srun --mpi=pmix -N1 -n1 printenv PMIX_GDS_MODULE
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = hash ]
	else
		[ -z "$gds" ]
	fi
}

@test "each node has its own hostname and its own /tmp" {
	run srun -N4 -n4 sh -c 'echo "$(hostname) $(stat -c %i /tmp)"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(awk '{print $1}' <<<"$output" | sort | tr '\n' ' ')" = "n1 n2 n3 n4 " ]
	[ "$(awk '{print $2}' <<<"$output" | sort -u | wc -l)" -eq 4 ]
}

@test "each node's eth0 is numbered in its own namespace, whatever this machine's count" {
	# Open MPI keeps an interface's index in 16 bits (contrib/topomap-cluster's net_up)
	run srun -N4 -n4 cat /sys/class/net/eth0/ifindex
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '2\n%.0s' 1 2 3 4)" ]
}

@test "the plugstack.conf of the cluster names the plugin just built" {
	grep -qx "optional $TOPOMAP_CLUSTER_DIR/lib/topomap.so" "$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf"
	cmp "$TOPOMAP_BUILDDIR/spank/.libs/topomap.so" "$TOPOMAP_CLUSTER_DIR/lib/topomap.so"
	run srun -v -N1 -n1 true
	[ "$status" -eq 0 ]
	[[ "$output" == *"srun: topomap: topomap "*" loaded"* ]]
	run srun -N1 -n1 true
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "up again with the same configuration is a no-op" {
	run "$CLUSTER" up --nodes 4 --plugin "$TOPOMAP_BUILDDIR/spank/.libs/topomap.so"
	[ "$status" -eq 0 ]
	[[ "$output" == *"already up"* ]]
	run sinfo -h -o '%D %t'
	[ "$output" = "4 idle" ]
}

@test "up with another configuration while up is refused" {
	run "$CLUSTER" up --nodes 3
	[ "$status" -eq 1 ]
	[[ "$output" == *"another configuration is up"* ]]
	run sinfo -h -o '%D %t'
	[ "$output" = "4 idle" ]
}

@test "down leaves no process, namespace, link, qdisc or mount behind" {
	srun -N4 -n4 sleep 300 >/dev/null 2>&1 3>&- &
	local job=$!
	for _ in $(seq 50); do
		[ "$(pgrep -c -x sleep -P "$(pgrep -d, -x slurmstepd || echo 1)")" -eq 4 ] 2>/dev/null && break
		sleep 0.2
	done
	run "$CLUSTER" down
	kill "$job" 2>/dev/null || true
	wait "$job" || true
	[ "$status" -eq 0 ]
	run cluster_leftovers
	[ -z "$output" ]
	run "$CLUSTER" status
	[ "$status" -eq 3 ]
	[ "$output" = down ]
}

@test "down when already down succeeds" {
	run "$CLUSTER" down
	[ "$status" -eq 0 ]
	[ -z "$(cluster_leftovers)" ]
}
