#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# srun --topo-map never breaks a job: every case it cannot or must not
# place runs with srun's own layout and at most one line saying why, and
# only --topo-map=strict fails the step.

load lib/cluster
load lib/plugin

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	plugin_setup
	printf '#!/bin/sh\nsleep 60\n' >"$SHARE/slow-probe" && chmod 755 "$SHARE/slow-probe"
	# Fails the job's first probe step: its first rank to start records the
	# step, whose ranks all exit 3; later steps run the real probe.
	cat >"$SHARE/flaky-probe" <<EOF && chmod 755 "$SHARE/flaky-probe"
#!/bin/sh
m=$SHARE/flaky.\$SLURM_JOB_ID
mkdir "\$m" 2>/dev/null && echo "\$SLURM_STEP_ID" >"\$m/step"
sleep 1
[ "\$(cat "\$m/step")" = "\$SLURM_STEP_ID" ] && exit 3
exec $SHARE/$MPI_PROBE "\$@"
EOF
	# Notes the plugin's options it finds in its environment, then probes.
	cat >"$SHARE/env-probe" <<EOF && chmod 755 "$SHARE/env-probe"
#!/bin/sh
env | grep _SLURM_SPANK_OPTION_topomap_ >"$SHARE/probe-env.\$SLURM_PROCID"
exec $SHARE/$MPI_PROBE "\$@"
EOF
	# A node that hangs: its rank stops, the others probe.
	cat >"$SHARE/hung-probe" <<EOF && chmod 755 "$SHARE/hung-probe"
#!/bin/sh
[ "\$SLURMD_NODENAME" != n3 ] || kill -STOP \$\$
exec $SHARE/$MPI_PROBE "\$@"
EOF
	# Every rank says why it fails, and fails.
	printf '#!/bin/sh\necho "probe: no route to the switch" >&2\nexit 3\n' >"$SHARE/failing-probe" &&
		chmod 755 "$SHARE/failing-probe"
	echo '{"kind": "topomap-profile", "schema": 1' >"$SHARE/corrupt.json"
	install -m 0644 "$FIXTURES/silent-16.json" "$SHARE/silent16.json"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.f$BATS_TEST_NUMBER
	plugstack
}

BLOCK=$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)

# placed ARGS...: srun --topo-map with the halo profile running hello on
# 8 nodes x 2, in a new allocation; output in $output, status in $status.
placed() {
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $* $SHARE/hello"
	echo "$output"
}

@test "outside an allocation: srun's layout, said only with -v" {
	run srun --mpi=$MPI_TYPE -N2 -n2 --topo-map --topo-profile="$SHARE/halo16.json" "$SHARE/hello"
	[ "$status" -eq 0 ]
	[[ "$output" != *"topomap"* ]]
	run srun -v -N2 -n2 --topo-map true
	[[ "$output" == *"topomap: srun's own placement: srun outside an allocation"* ]]
}

@test "-w/--nodelist and -m given by the user are obeyed" {
	placed -w "n[1-8]"
	[ "$status" -eq 0 ]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
	placed -m cyclic
	[ "$status" -eq 0 ]
	[ "$(hosts_of <<<"$output" | awk '{print $2}' | head -2 | tr '\n' ' ')" = "n1 n2 " ]
}

@test "a SLURM_HOSTFILE set by the user is respected" {
	# Three nodes: Slurm's PMIx ring fence hangs in about half the steps
	# on two nodes other than the allocation's first (topomap-cluster(8)).
	printf 'n8\nn7\nn6\n' >"$SHARE/user-hosts"
	run in_alloc -N8 --ntasks-per-node=2 -- "SLURM_HOSTFILE=$SHARE/user-hosts srun -n3 --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(hosts_of <<<"$output")" = $'0 n8\n1 n7\n2 n6' ]
}

@test "a --multi-prog step keeps srun's placement and says why" {
	printf '0-1 hostname\n' >"$SHARE/multi.conf"
	run in_alloc -N2 --ntasks-per-node=1 -- "srun --topo-map -n2 --multi-prog $SHARE/multi.conf"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep '^srun: topomap:' <<<"$output")" = "srun: topomap: srun's own placement: the step's executable is unknown: a --multi-prog step runs a program per rank" ]
	[ "$(grep -v '^srun: topomap:' <<<"$output" | sort)" = $'n1\nn2' ]
}

@test "a step on one node is left alone" {
	run in_alloc -N1 -n2 -- "srun -v --topo-map --topo-profile=$SHARE/halo16.json true 2>&1 | grep 'topomap: srun'"
	echo "$output"
	[[ "$output" == *"the step runs on one node"* ]]
}

@test "a missing probe binary: srun's layout and one line" {
	plugstack $MPI_PROBE_KEY=/nonexistent/topomap-probe
	placed
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: srun's own placement: no netmap: the probe /nonexistent/topomap-probe: No such file or directory"* ]]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
}

@test "a probe that fails once is run again and the plan applied" {
	plugstack $MPI_PROBE_KEY="$SHARE/flaky-probe"
	run in_alloc -N8 --ntasks-per-node=2 -- "srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello 2>&1"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: the probe failed (exit "*"), see "*"; probing again"* ]]
	[[ "$output" == *"topomap: placed 16 ranks on 8 nodes"* ]]
	[ "$(hosts_of <<<"$output")" != "$BLOCK" ]
}

@test "the probe step's srun sees none of the plugin's options" {
	plugstack $MPI_PROBE_KEY="$SHARE/env-probe"
	rm -f "$SHARE"/probe-env.*
	# salloc's --topo-profile reaches every srun of the job through the
	# environment; the probe step must not get it, nor srun's --topo-map.
	run salloc -Q -N8 --ntasks-per-node=2 --topo-profile="$SHARE/halo16.json" \
		bash -c "env | grep -c _SLURM_SPANK_OPTION_topomap_topo_profile; srun --mpi=$MPI_TYPE --topo-map $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -ge 1 ]
	[[ "$output" == *"placed 16 ranks on 8 nodes"* ]]
	[ "$(ls "$SHARE"/probe-env.* | wc -l)" -eq 8 ]
	[ -z "$(cat "$SHARE"/probe-env.*)" ]
}

@test "a probe that outlives probe_timeout is killed and srun goes on" {
	plugstack $MPI_PROBE_KEY="$SHARE/slow-probe" probe_timeout=3
	SECONDS=0
	placed
	[ "$status" -eq 0 ]
	[[ "$output" == *"no netmap: the probe took longer than 3 s (probe_timeout)"* ]]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
	[ "$SECONDS" -lt 30 ]
}

# others: the lines of $output that are not hello's, nor srun's waits for
# the step before to free its resources.
others() {
	grep -v '^rank=' <<<"$output" | step_waits_out
}

@test "a probe node that hangs: srun's layout and exactly one line saying why, after the wait's progress line" {
	plugstack $MPI_PROBE_KEY="$SHARE/hung-probe" probe_timeout=4
	placed
	[ "$status" -eq 0 ]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
	echo "others: $(others)"
	[ "$(others | head -n 1)" = "srun: topomap: probing the network of 8 nodes before the step starts" ]
	[ "$(others | quiet_lines | wc -l)" -eq 1 ]
	[[ "$(others | quiet_lines)" == "srun: topomap: srun's own placement: no netmap: the probe "* ]]
}

@test "a failing probe: one line, and under srun -v the end of its log" {
	plugstack $MPI_PROBE_KEY="$SHARE/failing-probe"
	placed
	[ "$status" -eq 0 ]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
	[ "$(others | quiet_lines | wc -l)" -eq 1 ]
	[[ "$(others | quiet_lines)" == "srun: topomap: srun's own placement: no netmap: the probe failed (exit "*"), see "* ]]
	placed -v
	[ "$status" -eq 0 ]
	grep -q "^srun: topomap: the probe's log .* ends:$" <<<"$output"
	grep -q '^srun: topomap:   .*probe: no route to the switch' <<<"$output"
	# After the probe is done with, before the line that says why.
	[ "$(grep -n "the probe's log" <<<"$output" | cut -d: -f1)" -lt "$(grep -n "srun's own placement" <<<"$output" | cut -d: -f1)" ]
}

@test "a corrupt profile is named, and strict mode fails the step instead" {
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/corrupt.json $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"srun's own placement: $SHARE/corrupt.json"* ]]
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map=strict --topo-profile=$SHARE/corrupt.json $SHARE/hello"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"(--topo-map=strict)"* ]]
	[[ "$output" != *"rank="* ]]
}

@test "a mapper error: srun's layout and one line naming it" {
	# A valid profile with no point-to-point traffic: nothing to place by.
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/silent16.json $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep topomap <<<"$output" | quiet_lines | sort -u | wc -l)" -eq 1 ]
	[[ "$output" == *"srun: topomap: srun's own placement: the mapper: profile: empty, no point-to-point traffic between its 16 ranks"* ]]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
}

@test "a profile whose check shares no pair with its recording: srun's layout, said with -v" {
	# The halo with, as its check, a ring from each rank to the rank three
	# on, none of them a halo pair: nothing recurs to plan from.
	awk 'BEGIN { for (i = 0; i < 16; i++) { line = ""
		for (j = 0; j < 16; j++) line = line (j ? "," : "") (j == (i + 3) % 16 ? 1048576 : 0); print line } }' \
		>"$SHARE/apart.$BATS_TEST_NUMBER.csv"
	"$TOPOMAP" profile import --format csv -o "$SHARE/apart.$BATS_TEST_NUMBER.json" "$SHARE/apart.$BATS_TEST_NUMBER.csv"
	{
		sed -e '$d' -e 's/^  "schema":1,$/  "schema":2,/' "$SHARE/halo16.json"
		echo ',"check":{'
		sed -n '/^  "record_s":/,$p' "$SHARE/apart.$BATS_TEST_NUMBER.json" | sed '$d'
		echo '}}'
	} >"$SHARE/checked.$BATS_TEST_NUMBER.json"
	"$TOPOMAP" profile show "$SHARE/checked.$BATS_TEST_NUMBER.json" | grep -q '^  recurring     0.0% of the traffic'
	# A decision, not a fault (as below min_gain): no line without -v.
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/checked.$BATS_TEST_NUMBER.json $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q topomap <<<"$output" || false
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
	run in_alloc -N8 --ntasks-per-node=2 -- "srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/checked.$BATS_TEST_NUMBER.json true"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "srun: topomap: srun's own placement: none of the traffic of the profile's recording recurs in its check" <<<"$output"
	# Decided before the netmap: no probe.
	! grep -q "probing" <<<"$output" || false
}

@test "a heterogeneous step is left alone" {
	run in_alloc -N8 --ntasks-per-node=2 -- "srun -v --topo-map --topo-profile=$SHARE/halo16.json -N2 -n2 hostname : -N2 -n4 hostname"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: srun's own placement: a heterogeneous step"* ]]
	[ "$(grep -c '^n[0-9]$' <<<"$output")" -eq 6 ]
}

@test "--async and --segment (Slurm 26.05, 25.05): srun's layout, one line" {
	if slurm_before 26.05; then
		# not srun options before: srun refuses them, topomap says nothing
		run in_alloc -N8 --ntasks-per-node=2 -- "srun --async --topo-map --topo-profile=$SHARE/halo16.json true"
		echo "$output"
		[ "$status" -ne 0 ]
		! grep -q topomap <<<"$output" || false
		return
	fi
	local opt
	for opt in --async --segment=2; do
		run in_alloc -N8 --ntasks-per-node=2 -- "srun -v $opt --topo-map --topo-profile=$SHARE/halo16.json true; sleep 1"
		echo "$output"
		grep -qx "srun: topomap: srun's own placement: ${opt%%=*} given" <<<"$output"
		! grep -q "probing" <<<"$output" || false
	done
}

# The site's topology.conf of 2sw-interleaved, with the figures of its
# levels (or without those of level 2), for plugstack topology=.
site_topology() {
	{
		echo "SwitchName=s1 Nodes=n[1,3,5,7]"
		echo "SwitchName=s2 Nodes=n[2,4,6,8]"
		echo "SwitchName=core Switches=s[1-2]"
		echo "#topomap level=1 latency_us=20 bandwidth_MBps=110"
		[ "${1:-}" = partial ] || echo "#topomap level=2 latency_us=40 bandwidth_MBps=11"
	} >"$SHARE/topology.conf"
}

@test "topology=FILE with each level's figures: placed with no probe at all, said with -v" {
	site_topology
	plugstack topology="$SHARE/topology.conf"
	placed -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: netmap of the site's topology.conf (topology=$SHARE/topology.conf): 3 switches over 8 nodes, no probe"* ]]
	[[ "$output" != *"topomap: probing"* ]]
	[[ "$output" == *"topomap: placed 16 ranks on 8 nodes"* ]]
}

@test "a topology.conf that is no tree: one line naming the file and the fault, then the probe; one without a level's figures: its levels measured" {
	printf 'SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[4-8]\nSwitchName=c Switches=s[1-2]\n' >"$SHARE/topology.conf"
	plugstack topology="$SHARE/topology.conf"
	placed
	[ "$status" -eq 0 ]
	[ "$(grep -c 'topomap: topology=' <<<"$output")" -eq 1 ]
	[[ "$output" == *"topomap: topology=$SHARE/topology.conf not used: $SHARE/topology.conf:2: node 'n4' is under both switch 's1' (line 1) and 's2'; probing every pair"* ]]
	[[ "$output" == *"topomap: placed 16 ranks on 8 nodes"* ]]
	site_topology partial
	placed
	[ "$status" -eq 0 ]
	[[ "$output" != *"topomap: topology="* ]]
	placed -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: topology=$SHARE/topology.conf: $SHARE/topology.conf: level 2 ("*") has no figures; the probe measures its links"* ]]
	[[ "$output" != *"not used"* ]]
	[[ "$output" == *"topomap: placed 16 ranks on 8 nodes"* ]]
	plugstack topology=auto
	placed
	[ "$status" -eq 0 ]
	# no topology.conf beside slurm.conf: slurmctld's topology, which is none
	[[ "$output" == *"topomap: topology=auto not used: Slurm has no topology of switches or blocks (TopologyPlugin "*"); probing every pair"* ]]
	[[ "$output" == *"topomap: placed 16 ranks on 8 nodes"* ]]
}

@test "a profile for another task count is not applied" {
	run in_alloc -N8 --ntasks-per-node=1 -- "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"the profile was recorded for 16 tasks, this step has 8"* ]]
}

@test "an unwritable cache: no recording, the job runs" {
	export XDG_CACHE_HOME=/proc/topomap-nowhere
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"srun's own placement: the profile cache /proc/topomap-nowhere/topomap/profiles: cannot create topomap-nowhere: "* ]]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
}

@test "--topo-map=off and a bad mode leave srun alone" {
	placed
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map=off --topo-profile=$SHARE/halo16.json $SHARE/hello"
	[ "$status" -eq 0 ]
	[[ "$output" != *"topomap"* ]]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map=fast $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: srun's own placement: "*"fast"* ]]
}

@test "a bad plugstack.conf argument disables the plugin, srun still runs" {
	plugstack cahce=/tmp
	run in_alloc -N2 -n2 -- "srun hostname"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: plugstack.conf: unknown argument 'cahce=/tmp'"*"plugin disabled"* ]]
	# two tasks ran, on two nodes (whichever Slurm gave: n1 and n2 may
	# still be completing the job before)
	[ "$(grep -E '^n[0-9]+$' <<<"$output" | sort -u | wc -l)" -eq 2 ]
}

@test "TOPOMAP_REEXEC removes nothing it did not make, and without --topo-map is ignored" {
	echo keep >"$SHARE/victim"
	run in_alloc -N2 -- "TOPOMAP_REEXEC=$SHARE/victim srun -N2 -n2 true &&
		TOPOMAP_REEXEC=$SHARE/victim srun -N2 -n2 --topo-map true"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$SHARE/victim")" = keep ]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[[ "$output" == *"topomap: TOPOMAP_REEXEC=$SHARE/victim: not a plan of this job's, not removed"* ]]
}

@test "values the user set are logged with control characters escaped" {
	run env TOPOMAP_RECORDER=$'lib\e[31m\rx' srun -N1 -n1 true
	echo "$output"
	[[ "$output" == *'topomap: TOPOMAP_RECORDER=lib\x1b[31m\x0dx: not a library path, not recording'* ]]
	[[ "$output" != *$'\e'* ]]
	[[ "$output" != *$'\r'* ]]
	run in_alloc -N2 -- "srun -N2 -n2 --topo-map --topo-profile=$SHARE/$'no\e]0;x\a'.json true"
	echo "$output"
	[[ "$output" == *'no\x1b]0;x\x07.json'* ]]
	[[ "$output" != *$'\e'* ]]
}
