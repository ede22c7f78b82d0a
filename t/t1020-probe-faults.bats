#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# topomap-probe on bad input and faults: usage errors, an unwritable
# output, a node that dies mid-probe.

load lib/cluster
load lib/probe

setup_file() {
	need_cluster
	cluster_up --nodes 4
	stage "$PROBE" "$TOPOMAP"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
}

# exited CODE: the probe's ranks exited CODE.  srun's own status is CODE,
# or, when the cluster's KillOnBadExit ended some ranks first, theirs; srun
# then names the ranks that exited CODE.
exited() {
	[ "$status" -eq "$1" ] || [[ "$output" == *": Exited with exit code $1"* ]]
}

@test "--help prints usage and exits 0" {
	run run_probe 1 --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Usage: topomap-probe [OPTIONS] -o FILE"* ]]
}

@test "an unknown option exits 2 naming it" {
	run run_probe 2 --frobnicate -o "$SHARE/x.json"
	echo "$output"
	exited 2
	[[ "$output" == *"topomap-probe: unknown option '--frobnicate'"* ]]
}

@test "a bad option value exits 2 naming it" {
	run run_probe 2 --ci 7 -o "$SHARE/x.json"
	exited 2
	[[ "$output" == *"--ci: '7' is not a fraction"* ]]
	run run_probe 2 --lat-size 2 -o "$SHARE/x.json"
	exited 2
	[[ "$output" == *"--lat-size: '2'"* ]]
	run run_probe 2 --bw-enough -1 -o "$SHARE/x.json"
	exited 2
	[[ "$output" == *"--bw-enough: '-1' is not a number of milliseconds"* ]]
	run run_probe 2 --plan some -o "$SHARE/x.json"
	exited 2
	[[ "$output" == *"--plan: 'some' is not auto, all or sampled"* ]]
}

@test "pairs in doubt are measured again, at most one in eight and four; --doubt 0 never" {
	# At --doubt 1 every pair off the minimum spanning tree of either
	# signal is in doubt: 3 of the 4 nodes' 6 pairs at least, capped at 4.
	# The tree the figures give may add its own (no more than all 6).
	run run_probe 4 --doubt 1 -v -o "$SHARE/doubt.json"
	echo "$output"
	[ "$status" -eq 0 ]
	local again doubt
	read -r again doubt < <(sed -n 's/.*, \([0-9]*\) pairs* measured again (\([0-9]*\) in doubt),.*/\1 \2/p' <<<"$output")
	[ "$doubt" -ge 3 ]
	[ "$doubt" -le 4 ]
	[ "$again" -ge "$doubt" ]
	[ "$again" -le 6 ]
	run "$SHARE/topomap" netmap show "$SHARE/doubt.json"
	[[ "$output" == *"pairs: 6 of 6 measured; $again measured again, in doubt"* ]]
	run run_probe 4 --doubt 0 -v -o "$SHARE/doubt.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 pairs measured again (0 in doubt),"* ]]
	run "$SHARE/topomap" netmap show "$SHARE/doubt.json"
	[[ "$output" == *"pairs: 6 of 6 measured"$'\n'* ]]
	run run_probe 2 --doubt 0.5 -o "$SHARE/x.json"
	exited 2
	[[ "$output" == *"--doubt: '0.5' is not 0 or a ratio in [1, 1000]"* ]]
}

@test "--inside on nodes without a GPU: one line says none has one" {
	run run_probe 2 --inside -o "$SHARE/inside.json"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$TOPOMAP" netmap show "$SHARE/inside.json"
	echo "$output"
	# Any two nodes: the job lands where Slurm has two idle.
	[ "$(grep -Ec '^n[0-9]+ inside: ' <<<"$output")" -eq 2 ]
	grep -qx 'slots: no GPU on the 2 hosts read' <<<"$output"
	! grep -q '^n[0-9]* slots:' <<<"$output" || false
}

@test "a missing output exits 2" {
	run run_probe 2
	exited 2
	[[ "$output" == *"no output file"* ]]
}

@test "an unwritable output path fails at once, naming the path" {
	SECONDS=0
	run run_probe 4 -o /nonexistent/dir/net.json
	echo "$output"
	[ "$status" -ne 0 ]
	exited 1
	[[ "$output" == *"/nonexistent/dir/net.json: cannot write: No such file or directory"* ]]
	[ "$SECONDS" -lt 10 ]
}

@test "a node whose probe dies mid-run ends the probe within its budget, writing nothing" {
	rm -f "$SHARE/dead.json"
	# Large streams so that the run lasts long enough to be cut.
	run_probe 4 --bw-size 4194304 --bw-messages 64 --budget 8 -o "$SHARE/dead.json" \
		>"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	local job=$! start
	# The step may wait for the resources of the one before (Slurm 24.11
	# frees them later): up to 30 s for n3's probe to start.
	for _ in $(seq 300); do
		ip netns pids tm-n3 | xargs -r ps -o comm= -p | grep -qx "${MPI_PROBE:0:15}" && break
		sleep 0.1
	done
	# Soon after it starts: on an idle machine the unshaped run takes
	# little more than a second.
	sleep 0.5
	local victim
	victim=$(ip netns pids tm-n3 | xargs -r ps -o pid=,comm= -p | awk -v comm="${MPI_PROBE:0:15}" '$2 == comm {print $1}')
	start=$SECONDS
	[ -n "$victim" ] && kill -9 $victim
	wait "$job" && rc=0 || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	echo "rc=$rc after $((SECONDS - start)) s; killed: ${victim:-nothing, the probe had ended}"
	[ -n "$victim" ]
	[ "$rc" -ne 0 ]
	[ $((SECONDS - start)) -le 15 ]
	[ ! -e "$SHARE/dead.json" ]
	[ -z "$(ls "$SHARE" | grep dead.json)" ]
}
