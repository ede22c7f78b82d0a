#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A site's topology.conf without the figures of its levels: the probe
# measures every link of it (--topology) and gives every other pair its
# level's figures, or a slow link's; plugstack topology=auto finds the
# file Slurm's topology/tree reads and has the probe do that.  On 3level-16 (names
# scrambled across the leaves), which topomap-cluster also writes as
# Slurm's topology.conf (--slurm-topology).

load lib/cluster
load lib/probe
load lib/plugin

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/3level-16.topo" --slurm-topology
	plugin_setup
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.f$BATS_TEST_NUMBER
	plugstack
	SITE_CONF=$TOPOMAP_CLUSTER_DIR/etc/topology.conf
}

@test "topomap-cluster --slurm-topology: Slurm's topology/tree reads the switches" {
	grep -qx 'SwitchName=e1 Nodes=n1,n6,n11,n16' "$SITE_CONF"
	grep -qx 'SwitchName=core Switches=agg1,agg2' "$SITE_CONF"
	run scontrol show config
	[[ "$output" == *"TopologyPlugin"*"= topology/tree"* ]]
	run scontrol show topology
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"SwitchName=e1 "* && "$output" == *"SwitchName=core "* ]]
	# refused before anything is touched: the cluster stays up
	printf 'switch core\nswitch s1 parent=core\nnode n[1-2] switch=s1\nnode n[3-4] switch=core\n' \
		>"$BATS_FILE_TMPDIR/mixed.topo"
	run "$CLUSTER" up --topology "$BATS_FILE_TMPDIR/mixed.topo" --slurm-topology
	[ "$status" -eq 1 ]
	[[ "$output" == *"--slurm-topology: switch 'core' has both nodes and switches, which Slurm's topology.conf cannot say"* ]]
	run "$CLUSTER" up --nodes 4 --slurm-topology
	[ "$status" -eq 1 ]
	[[ "$output" == *"--slurm-topology needs --topology FILE"* ]]
	run sinfo -h -o %D
	[ "$output" = 16 ]
}

@test "topomap-probe --topology: the file's tree, every link measured, the levels in order" {
	local want
	want=$(configured_tree)
	run run_probe 16 -v --topology "$SITE_CONF" -o "$SHARE/site.json"
	echo "$output"
	[ "$status" -eq 0 ]
	local said=$output
	# (a pair far below its level's best is measured again: a busy moment)
	[[ "$output" == *"16 hosts, every link of $SITE_CONF, 30 of 120 pairs measured, "*" measured again ("*" in doubt), "*", the site's tree model, "* ]]
	run "$TOPOMAP" netmap show "$SHARE/site.json"
	echo "$output"
	[[ "$output" == *"model: tree (the site's topology.conf), 7 switches, 4 groups"* ]]
	[[ "$output" == *"tree: $want"* ]]
	[[ "$output" == *"pairs: 30 of 120 measured"* ]]
	# 1 Gbit/s, 400 and 100 Mbit/s: each level's bandwidth well below the
	# one beneath it
	local bw
	bw=$(sed -n 's/.*: level [1-3]: latency .* us, bandwidth \(.*\) MB\/s$/\1/p' <<<"$said" | tr '\n' ' ')
	echo "bandwidths by level: $bw"
	awk -v bw="$bw" 'BEGIN { n = split(bw, b, " "); exit !(n == 3 && b[1] > 1.5 * b[2] && b[2] > 1.5 * b[3]) }'
}

@test "topomap-probe --topology: a file that is no tree over the nodes is one line naming it" {
	printf 'SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[2-3]\n' >"$SHARE/bad.conf"
	run srun --overlap --mpi=$MPI_TYPE -w "n[1-3]" -N3 -n3 "$SHARE/$MPI_PROBE" --topology "$SHARE/bad.conf" -o "$SHARE/bad.json"
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$(grep -c "^topomap-probe: $SHARE/bad.conf:2: node 'n2' is under both switch 's1' (line 1) and 's2'" <<<"$output")" -eq 1 ]
	[ ! -e "$SHARE/bad.json" ]
	run run_probe 2 --topology "$SHARE/none.conf" -o "$SHARE/bad.json"
	[ "$status" -ne 0 ]
	[[ "$output" == *"topomap-probe: $SHARE/none.conf: "* ]]
}

@test "topology=auto without figures: the probe measures the links of Slurm's topology.conf, and the plan is applied" {
	plugstack topology=auto
	run in_alloc -N16 -- "srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json -n16 $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: topology=auto: $SITE_CONF: level "*" has no figures; the probe measures its links"* ]]
	[[ "$output" != *"not used"* ]]
	[[ "$output" == *"topomap: placed 16 ranks on 16 nodes"* ]]
	run "$SHARE/topomap" netmap show "$XDG_CACHE_HOME"/topomap/netmaps/job*.json
	echo "$output"
	[[ "$output" == *"model: tree (the site's topology.conf), 7 switches, 4 groups"* ]]
	[[ "$output" == *"pairs: 30 of 120 measured"* ]]
}

@test "srun's layout as this Slurm makes it: the plugin's prediction is srun -l's, with Slurm's topology" {
	# 3level-16 scrambles names across the leaves: where Slurm orders steps
	# by the topology (26.05+) the order is e1's n1,n6,n11,n16 first
	predictions_match "-N16 -n48 -- -n48" "-N16 --ntasks-per-node=2 -- -n20" \
		"-N16 --ntasks-per-node=2 -- -N8 -n16" "-N16 -n40 -- -n40" \
		"-N16 --ntasks-per-node=3 -- --ntasks-per-node=1 -n16"
	if ! slurm_before 26.05; then
		[[ "$(predicted_vs_srun -N16 --ntasks-per-node=2 -- -n32)" == "predicted n1:2,n6:2,n11:2,n16:2,"* ]]
		run in_alloc -N16 --ntasks-per-node=2 -- "srun -v --topo-map --topo-profile=off -n32 true"
		[[ "$output" == *"topomap: step of 32 tasks on 16 nodes (block in topology order (topology/tree)): "* ]]
	fi
}
