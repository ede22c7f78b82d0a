#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The guard that learns (topomap.so(8), THE RUNS): a site topology.conf
# that lies makes the model wrong on purpose.  The cluster's two switches
# hold n1-n4 and n5-n8, 10:1 within to across; the file says n1, n3, n5,
# n7 and n2, n4, n6, n8.  A ring of eight ranks laid out by block crosses
# the uplinks twice; the plan the file's model makes crosses them four
# times, and runs slower.  Within a bounded number of runs (two placed,
# two controls under srun's layout) the plugin keeps srun's layout,
# quoting the runs' figures.

load lib/cluster
load lib/plugin

setup_file() {
	need_cluster
	{
		echo "switch core"
		echo "switch s1 parent=core rate=100mbit"
		echo "switch s2 parent=core rate=100mbit"
		echo "node n[1-4] switch=s1 rate=1gbit"
		echo "node n[5-8] switch=s2 rate=1gbit"
	} >"$BATS_FILE_TMPDIR/2sw-ordered.topo"
	cluster_up --topology "$BATS_FILE_TMPDIR/2sw-ordered.topo"
	plugin_setup
	{
		echo "SwitchName=s1 Nodes=n[1,3,5,7]"
		echo "SwitchName=s2 Nodes=n[2,4,6,8]"
		echo "SwitchName=core Switches=s[1-2]"
		echo "#topomap level=1 latency_us=20 bandwidth_MBps=110"
		echo "#topomap level=2 latency_us=40 bandwidth_MBps=11"
	} >"$SHARE/lying-topology.conf"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	plugstack topology="$SHARE/lying-topology.conf"
}

@test "placed runs slower than srun's layout: within two placed runs and two controls, srun's layout is kept, quoting the figures" {
	local ring="srun -v --mpi=$MPI_TYPE --topo-map $SHARE/miniapp -p ring -n 30"
	run in_alloc -N8 --ntasks-per-node=1 -- "for i in 1 2 3 4 5 6 7; do $ring 2>&1 | grep -E '^srun: topomap: (recorded|placed|srun.s own placement|runs of this step)|^miniapp'; done"
	echo "$output"
	[ "$status" -eq 0 ]
	mapfile -t said < <(grep -E '^srun: topomap: (placed|srun.s own placement)' <<<"$output")
	# Runs 1 and 2 record; the recorder slows them, so they are not
	# compared.  Runs 3 and 5 are placed by the lie, 4 and 6 are controls
	# under srun's layout.
	[[ "${said[0]}" == "srun: topomap: placed 8 ranks on 8 nodes, predicted gain "* ]]
	[[ "${said[1]}" == "srun: topomap: srun's own placement: a control run, to time srun's layout against the plan's (gain "*"): 1 placed and 0 under srun's layout so far" ]]
	[[ "${said[2]}" == "srun: topomap: placed 8 ranks on 8 nodes, predicted gain "* ]]
	[[ "${said[3]}" == "srun: topomap: srun's own placement: a control run, to time srun's layout against the plan's (gain "*"): 2 placed and 1 under srun's layout so far" ]]
	# Run 7: the runs say otherwise.
	[[ "${said[4]}" =~ ^srun:\ topomap:\ srun\'s\ own\ placement:\ placed\ runs\ ([0-9.]+)\ s\ against\ srun\'s\ ([0-9.]+)\ s\ \(2\ and\ 2\ runs\):\ keeping\ srun\'s\ layout,\ the\ plan\ tried\ again\ after\ 7\ more\ runs\ under\ it$ ]]
	placed=${BASH_REMATCH[1]} srun=${BASH_REMATCH[2]}
	echo "placed $placed s, srun's layout $srun s"
	awk -v p="$placed" -v s="$srun" 'BEGIN { exit !(p > s) }'
	grep -q "^srun: topomap: runs of this step, placed $placed s against srun's layout $srun s (medians of 2 and 2, spread [0-9.]* s): keeping srun's layout$" <<<"$output"
	# The profile's runs: seven kept, as topomap profile show says.
	run "$SHARE/topomap" profile show "$XDG_CACHE_HOME"/topomap/profiles/*.n8.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"runs: 7 kept, 2 recorded, 3 under srun's layout, 2 placed"* ]]
	[[ "$output" == *"like the latest: placed $placed s against srun's layout "*", srun's layout kept"* ]]
}

@test "runs with other arguments are judged apart, and profile rm removes the runs with the profile" {
	local ring="srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp -p ring"
	run in_alloc -N8 --ntasks-per-node=1 -- "$ring -n 10 && $ring -n 10 && $ring -n 11"
	echo "$output"
	[ "$status" -eq 0 ]
	# Two recordings, then a run of other arguments: placed, not judged.
	[[ "$(grep '^srun: topomap:' <<<"$output" | tail -n 1)" == "srun: topomap: placed 8 ranks on 8 nodes, predicted gain "* ]]
	ls "$XDG_CACHE_HOME"/topomap/profiles/*.n8.runs
	"$SHARE/topomap" profile rm --cache "$XDG_CACHE_HOME/topomap/profiles" "$SHARE/miniapp"
	run ls "$XDG_CACHE_HOME/topomap/profiles"
	[ -z "$output" ]
}
