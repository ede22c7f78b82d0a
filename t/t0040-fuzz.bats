#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The libFuzzer harnesses (fuzz/): each reader of input a user controls
# runs TOPOMAP_FUZZ_SECONDS (default 10; 0: its seeds and corpus once) from
# its corpus without a crash, leak, undefined behaviour or slow input.  `make fuzz FUZZ_SECONDS=N`
# runs them longer.

setup_file() {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	export TOPOMAP_BUILDDIR
	export FUZZ_MAKE="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C $TOPOMAP_BUILDDIR/fuzz"
	run $FUZZ_MAKE fuzz-programs
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
}

# fuzz NAME: run harness NAME; its FUZZ line and, on failure, the report.
fuzz() {
	run $FUZZ_MAKE fuzz HARNESSES="$1" FUZZ_SECONDS="${TOPOMAP_FUZZ_SECONDS:-10}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"FUZZ $1 "*" status=ok"* ]]
}

@test "fuzz: the netmap reader" {
	fuzz netmap
}

@test "fuzz: the profile reader" {
	fuzz profile
}

@test "fuzz: every profile import format" {
	fuzz import
}

@test "fuzz: the plugstack.conf arguments and option values" {
	fuzz conf
}

@test "fuzz: slurmstepd's PMI mapping and tasks per node" {
	fuzz stepenv
}

@test "fuzz: srun's command line" {
	fuzz srunargs
}

@test "fuzz: Slurm's topology.conf, read, written and read back" {
	fuzz topoconf
}

@test "fuzz: Slurm's topology.yaml, read as a tree and its netmap" {
	fuzz topoyaml
}

@test "fuzz: slurmctld's topology, as the plugin ranks nodes by it and makes a topology.conf of it" {
	fuzz slurmtopo
}

@test "fuzz: a hostfile, as topomap plan --price reads it" {
	fuzz hostfile
}

@test "fuzz: a harness that fails is reported with its input" {
	# A stand-in for a harness that finds a crash, as libFuzzer reports
	# one: the run must fail, say FAILED and name the input it kept.
	cd "$BATS_TEST_TMPDIR"
	mkdir -p seeds/planted
	cat >fuzz-planted <<'SH'
#!/bin/sh
for a; do case $a in -artifact_prefix=*) prefix=${a#*=} ;; esac; done
echo "==1== ERROR: AddressSanitizer: heap-buffer-overflow"
echo "SUMMARY: AddressSanitizer: heap-buffer-overflow"
echo "stat::number_of_executed_units: 7"
echo x >"${prefix}crash-0123"
exit 1
SH
	chmod +x fuzz-planted
	run "$BATS_TEST_DIRNAME/../fuzz/run" 1 . planted
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FUZZ planted seconds=1 execs=7 "*"status=FAILED"* ]]
	[[ "$output" == *"SUMMARY: AddressSanitizer: heap-buffer-overflow"* ]]
	[[ "$output" == *"input: fuzz/artifacts/planted-crash-0123"* ]]
}
