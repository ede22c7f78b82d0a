#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The PMPI recorder in MPICH programs under srun --mpi=pmi2, on 4 nodes with
# 2 ranks each: what it records equals what each program sends.

load lib/cluster
load lib/recorder

setup_file() {
	need_cluster
	cluster_up --nodes 4
	stage_recorders
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	[ -x "$SHARE/ring.mpich" ] || skip "MPICH not found by configure"
	W=$SHARE/rec.$BATS_TEST_NUMBER
}

check() {
	run record mpich 4 8 "$W.json" "$SHARE/$1.mpich" "$W.expect"
	echo "$output"
	[ "$status" -eq 0 ]
	same_matrix "$W.json" bytes "$W.expect.bytes.csv"
	same_matrix "$W.json" msgs "$W.expect.msgs.csv"
}

@test "MPICH: a ring of every kind of send is recorded exactly" {
	check ring
}

@test "MPICH: a 2-D halo exchange with persistent requests is recorded exactly" {
	check halo2d
}

@test "MPICH: an all-to-all is recorded exactly" {
	check alltoall
}

@test "MPICH: ranks of other communicators become world ranks" {
	check split
}

@test "MPICH: the profile says MPICH recorded it" {
	record mpich 2 4 "$W.json" "$SHARE/ring.mpich"
	run "$SHARE/topomap" profile show "$W.json"
	echo "$output"
	[[ "$output" == *"MPICH"* ]]
}

@test "topomap recorder picks the MPICH recorder for an MPICH program" {
	run "$SHARE/topomap" recorder --libdir "$SHARE" "$SHARE/ring.mpich"
	[ "$status" -eq 0 ]
	[ "$output" = "$SHARE/topomap-recorder-mpich.so" ]
}
