#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# topomap-probe under valgrind, on the emulated cluster: no memory error
# and no leak of its own on any rank, on a run that measures and writes a
# netmap (with each node's inside and GPU slots read from an lstopo
# export), on a run that fails on bad input, on a run of the sampling plan
# (8 nodes: the skeleton and hosts placed in its tree), and on runs over a
# topology.conf's levels (--topology: read, or refused).  The probe is
# MPI_FAMILY's (lib/mpi.sh).  Errors inside Open MPI are suppressed (Open MPI's own file
# and t/valgrind-openmpi.supp), or inside MPICH's MPI_Init
# (t/valgrind-mpich.supp); each file says what that leaves unchecked.

load lib/cluster
load lib/probe

setup_file() {
	need_cluster
	command -v valgrind >/dev/null || skip "valgrind not installed"
	cluster_up --nodes 3
	stage "$PROBE" "$TOPOMAP"
	# The nodes do not see /tmp, where a clone may be.
	install -m 0644 "$TOPOMAP_SRCDIR/t/valgrind-$MPI_FAMILY.supp" \
		"$TOPOMAP_SRCDIR/t/fixtures/hwloc/dgx-h100-like.xml" "$SHARE/" || return 1
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

# vg_probe NODES [ARGS...]: the probe under valgrind, a log per rank in
# $SHARE/vg.<pid>.log; exit status 99 on any reported error.
vg_probe() {
	local n=$1 supp=()
	shift
	[ "$MPI_FAMILY" = mpich ] || supp=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
	rm -f "$SHARE"/vg.*.log
	srun --overlap --mpi=$MPI_TYPE -N"$n" -n"$n" --ntasks-per-node=1 \
		valgrind -q --num-callers=40 --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible \
		"${supp[@]}" --suppressions="$SHARE/valgrind-$MPI_FAMILY.supp" \
		--log-file="$SHARE/vg.%p.log" "$SHARE/$MPI_PROBE" -j 1 "$@"
}

@test "a 3-node probe is valgrind clean on every rank, reading each node's GPU slots" {
	# each node described by a DGX-H100-like lstopo export (hwloc's own
	# variable): --inside reads its CPUs and its GPU slots
	HWLOC_XMLFILE=$SHARE/dgx-h100-like.xml run vg_probe 3 --inside -o "$SHARE/vg.json"
	cat "$SHARE"/vg.*.log
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$SHARE"/vg.*.log | wc -l)" -eq 3 ]
	[ -z "$(cat "$SHARE"/vg.*.log)" ]
	run "$SHARE/topomap" netmap show "$SHARE/vg.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^n[1-3] slots: cuda0 mlx5_0 (switch, CPUs 0-1); cuda1 mlx5_1 (switch, CPUs 2-3);.*; cuda7 mlx5_7 (switch, CPUs 14-15). eno1 (0000:f0:00.0) left out: a 0.25 GB/s PCIe link against 63$' <<<"$output")" -eq 3 ]
}

@test "a probe that fails on an unwritable output is valgrind clean" {
	run vg_probe 2 -o /nonexistent/dir/vg.json
	cat "$SHARE"/vg.*.log
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$status" -ne 99 ]
	[[ "$output" == *"/nonexistent/dir/vg.json"* ]]
	[ -z "$(cat "$SHARE"/vg.*.log)" ]
}

@test "an 8-node probe under its sampling plan is valgrind clean on every rank" {
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	stage "$PROBE" "$TOPOMAP"
	install -m 0644 "$TOPOMAP_SRCDIR/t/valgrind-$MPI_FAMILY.supp" "$SHARE/"
	run vg_probe 8 --plan sampled -t 300 -v -o "$SHARE/vg8.json"
	cat "$SHARE"/vg.*.log
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" of the sampling plan"* ]]
	[ "$(ls "$SHARE"/vg.*.log | wc -l)" -eq 8 ]
	[ -z "$(cat "$SHARE"/vg.*.log)" ]
}

@test "a probe of a topology.conf's levels is valgrind clean, and so is one refusing the file" {
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	stage "$PROBE" "$TOPOMAP"
	install -m 0644 "$TOPOMAP_SRCDIR/t/valgrind-$MPI_FAMILY.supp" "$SHARE/"
	# Four nodes, two a switch: one pair of the six is given its level's
	# figures, as the probe gives most pairs on a larger job.
	printf 'SwitchName=s1 Nodes=n[1,3]\nSwitchName=s2 Nodes=n[2,4]\nSwitchName=c Switches=s[1-2]\n' >"$SHARE/vg.conf"
	run vg_probe 4 --topology "$SHARE/vg.conf" -t 300 -v -o "$SHARE/vg4.json"
	cat "$SHARE"/vg.*.log
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"every link of $SHARE/vg.conf, 5 of 6 pairs measured"* ]]
	[ "$(ls "$SHARE"/vg.*.log | wc -l)" -eq 4 ]
	[ -z "$(cat "$SHARE"/vg.*.log)" ]
	printf 'SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[2]\n' >"$SHARE/vg.conf"
	run vg_probe 2 --topology "$SHARE/vg.conf" -t 300 -o "$SHARE/vg2.json"
	cat "$SHARE"/vg.*.log
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$status" -ne 99 ]
	[[ "$output" == *"$SHARE/vg.conf:2: node 'n2' is under both switch"* ]]
	[ -z "$(cat "$SHARE"/vg.*.log)" ]
}
