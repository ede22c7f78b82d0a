#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The libFuzzer harnesses (fuzz/): each reader of input a user controls
# runs TOPOMAP_FUZZ_SECONDS (default 10; 0: its seeds and corpus once) from
# its corpus without a crash, leak, undefined behaviour or slow input.  `make fuzz FUZZ_SECONDS=N`
# runs them longer.  They run side by side, one a core, in setup_file;
# each test reads its harness's report.

# Tagged once: no cluster, and the same sources on every generation; each
# root's unit tests cover lib/ against its own libraries (t/check-generations).

# bats file_tags=once

setup_file() {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	local jobs
	jobs=$(nproc) || jobs=1
	FUZZ_MAKE="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j$jobs -C $TOPOMAP_BUILDDIR/fuzz"
	run $FUZZ_MAKE fuzz-programs
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	# Its exit status says that some harness failed; the tests say which.
	$FUZZ_MAKE fuzz FUZZ_SECONDS="${TOPOMAP_FUZZ_SECONDS:-10}" FUZZ_JOBS="$jobs" \
		>"$BATS_FILE_TMPDIR/fuzz.out" 2>&1 || true
}

# fuzz NAME: harness NAME's FUZZ line and, on failure, its report.
fuzz() {
	run awk -v name="$1" '$1 == "FUZZ" { on = ($2 == name) } on' "$BATS_FILE_TMPDIR/fuzz.out"
	echo "$output"
	[[ "$output" == "FUZZ $1 "*" status=ok" ]]
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

@test "fuzz: a harness that fails is reported with its input, in its place among those run side by side" {
	# Stand-ins for harnesses as libFuzzer reports them: "planted" finds a
	# crash, "slow" finds nothing after a while.  The run must fail, say
	# FAILED and name the input kept, and report both in the order given
	# though slow ends last.
	cd "$BATS_TEST_TMPDIR"
	mkdir -p seeds/planted seeds/slow
	cat >fuzz-planted <<'SH'
#!/bin/sh
for a; do case $a in -artifact_prefix=*) prefix=${a#*=} ;; esac; done
echo "==1== ERROR: AddressSanitizer: heap-buffer-overflow"
echo "SUMMARY: AddressSanitizer: heap-buffer-overflow"
echo "stat::number_of_executed_units: 7"
echo x >"${prefix}crash-0123"
exit 1
SH
	cat >fuzz-slow <<'SH'
#!/bin/sh
sleep 1
echo "stat::number_of_executed_units: 9"
SH
	chmod +x fuzz-planted fuzz-slow
	for jobs in 1 2; do
		run env FUZZ_JOBS=$jobs "$BATS_TEST_DIRNAME/../fuzz/run" 1 . slow planted
		echo "$output"
		[ "$status" -eq 1 ]
		[ "$(grep -c '^FUZZ ' <<<"$output")" -eq 2 ]
		[[ "$(head -n 1 <<<"$output")" == "FUZZ slow seconds=1 execs=9 "*"status=ok" ]]
		[[ "$output" == *"FUZZ planted seconds=1 execs=7 "*"status=FAILED"* ]]
		[[ "$output" == *"SUMMARY: AddressSanitizer: heap-buffer-overflow"* ]]
		[[ "$output" == *"input: fuzz/artifacts/planted-crash-0123"* ]]
	done
	run env FUZZ_JOBS=0 "$BATS_TEST_DIRNAME/../fuzz/run" 1 . slow
	[ "$status" -eq 2 ]
	[[ "$output" == *"FUZZ_JOBS=0: expected a count of at least 1"* ]]
}
