#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The PMPI recorder in programs of MPI_FAMILY (lib/cluster: Open MPI under
# srun --mpi=$MPI_TYPE, or MPICH under --mpi=pmi2 where Slurm has no PMIx), on 4
# nodes with 2 ranks each: what it records equals what each program sends.

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
	W=$SHARE/rec.$BATS_TEST_NUMBER
}

# check PROGRAM: record it on 8 ranks and compare both matrices.
check() {
	run record $MPI_FAMILY 4 8 "$W.json" "$SHARE/$1" "$W.expect"
	echo "$output"
	[ "$status" -eq 0 ]
	quiet
	same_matrix "$W.json" bytes "$W.expect.bytes.csv"
	same_matrix "$W.json" msgs "$W.expect.msgs.csv"
}

@test "a ring of every kind of send is recorded exactly" {
	check ring
}

@test "a 2-D halo exchange with persistent requests is recorded exactly" {
	check halo2d
}

@test "an all-to-all is recorded exactly, collectives left out" {
	check alltoall
}

@test "ranks of split, duplicated and inter-communicators become world ranks" {
	check split
}

@test "with TOPOMAP_RECORD_COLLECTIVES=1, collectives count after the model" {
	export TOPOMAP_RECORD_COLLECTIVES=1
	check alltoall
	grep -q '"collectives":true' "$W.json"
}

@test "the profile names the program, its MPI, the task count and the job" {
	record $MPI_FAMILY 2 4 "$W.json" "$SHARE/ring"
	run "$SHARE/topomap" profile show "$W.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ntasks        4"* ]]
	[[ "$output" == *"$SHARE/ring"* ]]
	[[ "$output" == *"$MPI_NAME"* ]]
	[[ "$output" == *"build-id:"* ]]
	[ "$(stat -c %a "$W.json")" = 600 ]
}

@test "without TOPOMAP_RECORD the recorder records nothing" {
	run env LD_PRELOAD="$SHARE/topomap-recorder-$MPI_FAMILY.so" \
		srun --overlap --mpi=$MPI_TYPE -N2 -n4 "$SHARE/ring" "$W.expect"
	[ "$status" -eq 0 ]
	quiet
	[ -e "$W.expect.bytes.csv" ]
	[ -z "$(find "$SHARE" -name "rec.$BATS_TEST_NUMBER.json*")" ]
}

@test "a job that dies before MPI_Finalize writes nothing" {
	record $MPI_FAMILY 2 4 "$W.json" "$SHARE/msgrate" 100000000 3>&- &
	local pid=$! status=0
	sleep 3
	kill -0 "$pid"
	pkill -KILL -f "^$SHARE/msgrate 100000000"
	wait "$pid" || status=$?
	[ "$status" -ne 0 ]
	[ -z "$(find "$SHARE" -name "rec.$BATS_TEST_NUMBER.json*")" ]
}

@test "two recordings racing on one file leave one valid profile" {
	# Wait for the two jobs by pid: a bare wait would also wait for the
	# sleep that bats runs to time the test out.
	record $MPI_FAMILY 2 4 "$W.json" "$SHARE/ring" 3>&- &
	local a=$! b ra=0 rb=0
	record $MPI_FAMILY 2 4 "$W.json" "$SHARE/halo2d" 3>&- &
	b=$!
	wait "$a" || ra=$?
	wait "$b" || rb=$?
	[ "$ra" -eq 0 ]
	[ "$rb" -eq 0 ]
	run "$SHARE/topomap" profile show "$W.json"
	[ "$status" -eq 0 ]
	[ -z "$(find "$SHARE" -name "rec.$BATS_TEST_NUMBER.json.*")" ]
}

@test "an unwritable destination costs the job nothing but a warning" {
	run record $MPI_FAMILY 2 4 /nonexistent/dir/p.json "$SHARE/ring"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap-recorder: rank 0: /nonexistent/dir/p.json: cannot create"* ]]
}

@test "topomap recorder picks the recorder of the program's MPI" {
	run "$SHARE/topomap" recorder --libdir "$SHARE" "$SHARE/ring"
	[ "$status" -eq 0 ]
	[ "$output" = "$SHARE/topomap-recorder-$MPI_FAMILY.so" ]
	run "$SHARE/topomap" recorder --libdir "$SHARE" /bin/true
	[ "$status" -eq 1 ]
	[[ "$output" == *"/bin/true: links no MPI library"* ]]
}
