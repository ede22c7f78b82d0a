#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Slurm's topology as slurmctld holds it, whichever file it read: plugstack
# topology=auto asks slurmctld where no topology.conf lies beside
# slurm.conf (topology.yaml, configless sites, topology/block), and srun's
# own layout follows that topology's order where Slurm lays steps out by
# it (26.05).  On 3level-16 (names scrambled across the leaves), given to
# Slurm as topology/block's blocks in topology.yaml where it reads one
# (25.05+), else in topology.conf where it has that plugin (23.11+), else as
# topology.conf, moved away once slurmctld has read it (as a node of a
# configless site has none).  From Slurm 23.11 on the cluster is configless
# (topomap-cluster --configless): a job's srun on a node reads the
# configuration its slurmd fetched from slurmctld.

load lib/cluster
load lib/plugin

setup_file() {
	need_cluster
	local kind=tree
	if ! slurm_before 25.05; then
		kind=yaml-block
	elif [ -e "$(dirname "$(find /usr/lib -name topology_tree.so -path '*slurm*' | head -n 1)")/topology_block.so" ]; then
		kind=block
	fi
	export KIND=$kind CONFIGLESS=""
	slurm_before 23.11 || CONFIGLESS=--configless
	cluster_up --topology "$TOPOLOGIES/3level-16.topo" --slurm-topology=$kind $CONFIGLESS
	plugin_setup
	# a node of a configless site has no topology.conf; slurmctld read it
	[ "$kind" != tree ] || mv "$TOPOMAP_CLUSTER_DIR/etc/topology.conf" "$TOPOMAP_CLUSTER_DIR/etc/topology.conf.read"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.g$BATS_TEST_NUMBER
	plugstack
}

@test "topology=auto without a topology.conf on the node: slurmctld's topology, its links probed, placed" {
	echo "Slurm's topology given as: $KIND"
	[ ! -e "$TOPOMAP_CLUSTER_DIR/etc/topology.conf" ] || [ "$KIND" = block ]
	run scontrol show topology
	echo "$output"
	plugstack topology=auto
	run in_alloc -N16 -- "srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json -n16 $SHARE/hello"
	echo "$output" | grep topomap
	[ "$status" -eq 0 ]
	grep -q "^srun: topomap: topology=auto: Slurm's topology: level [1-3] (.*) has no figures; the probe measures its links$" <<<"$output"
	grep -q '^srun: topomap: placed 16 ranks on 16 nodes' <<<"$output"
	! grep -q 'not used' <<<"$output" || false
	run "$SHARE/topomap" netmap show "$XDG_CACHE_HOME"/topomap/netmaps/job*.json
	echo "$output"
	[[ "$output" == *"model: tree (the site's topology.conf), 7 switches, 4 groups"* ]]
	[[ "$output" == *"pairs: 30 of 120 measured"* ]]
	# the topology the probe read is gone with the probe
	[ -z "$(ls "$XDG_CACHE_HOME"/topomap/netmaps/ | grep topology.conf)" ]
}

@test "topology=auto with topology_levels=: slurmctld's topology and the plugstack's figures, no probe step" {
	plugstack topology=auto topology_levels=1:10:110,2:30:45,3:45:11
	run in_alloc -N16 -- "srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json -n16 $SHARE/hello"
	echo "$output" | grep topomap
	[ "$status" -eq 0 ]
	grep -qx "srun: topomap: netmap of Slurm's topology (topology=auto): 7 switches over 16 nodes, no probe" <<<"$output"
	! grep -q 'probing' <<<"$output" || false
	grep -q '^srun: topomap: placed 16 ranks on 16 nodes' <<<"$output"
	# nothing probed, so no netmap of the job's is kept
	[ -z "$(ls "$XDG_CACHE_HOME"/topomap/netmaps/ 2>/dev/null | grep -E '^job.*\.json$')" ]
}

@test "topology=FILE.yaml: Slurm's topology.yaml read with libyaml, its levels' figures given, no probe step; a bad one named by its line" {
	local yaml=$SHARE/topology.$BATS_TEST_NUMBER.yaml
	install -m 0644 "$FIXTURES/3level-16.yaml" "$yaml"
	plugstack "topology=$yaml" topology_levels=1:10:110,2:30:45,3:45:11
	run in_alloc -N16 -- "srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json -n16 $SHARE/hello"
	echo "$output" | grep topomap
	[ "$status" -eq 0 ]
	grep -qx "srun: topomap: netmap of the site's topology.yaml (topology=$yaml): 7 switches over 16 nodes, no probe" <<<"$output"
	! grep -q 'probing' <<<"$output" || false
	grep -q '^srun: topomap: placed 16 ranks on 16 nodes' <<<"$output"
	# n6 in two switches: one line naming the file's line, then the probe.
	sed -i 's/nodes: n2,n7,n12,n13/nodes: n2,n6,n12,n13/' "$yaml"
	plugstack "topology=$yaml"
	run in_alloc -N16 -- "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json -n16 $SHARE/hello"
	echo "$output" | grep topomap
	[ "$status" -eq 0 ]
	grep -q "^srun: topomap: topology=$yaml not used: $yaml:17: node 'n6' is under both switch 'e1' (line 15) and 'e2'; probing every pair" <<<"$output"
	[ "$(grep -c '^rank=' <<<"$output")" -eq 16 ]
}

@test "a configless node: a job's srun reads the configuration its slurmd fetched, Slurm's topology from it or slurmctld, no probe step" {
	if [ -z "$CONFIGLESS" ]; then
		# Before 23.11 the emulated cluster cannot run configless: it says why.
		run "$CLUSTER" up --topology "$TOPOLOGIES/3level-16.topo" --configless
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" == "topomap-cluster: --configless: Slurm "*"'s configless nodes get no mpi.conf (23.11 and later do)" ]]
		return 0
	fi
	plugstack topology=auto topology_levels=1:10:110,2:30:45,3:45:11
	local out=$SHARE/configless.$BATS_TEST_NUMBER.out
	rm -f "$out"
	run sbatch_wait -N16 -o "$out" --wrap "echo SLURM_CONF=\$SLURM_CONF; echo cache: \$(ls \$(dirname \$SLURM_CONF)); srun -v --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json -n16 $SHARE/hello"
	echo "$output"
	cat "$out"
	[ "$status" -eq 0 ]
	grep -Eqx "SLURM_CONF=$TOPOMAP_CLUSTER_DIR/spool/n[0-9]+/conf-cache/slurm.conf" "$out"
	grep -Eq "^cache: .*topology\.(conf|yaml)" "$out"
	grep -qx "srun: topomap: netmap of Slurm's topology (topology=auto): 7 switches over 16 nodes, no probe" "$out"
	! grep -q 'probing' "$out" || false
	grep -q '^srun: topomap: placed 16 ranks on 16 nodes' "$out"
	[ "$(grep -c '^rank=' "$out")" -eq 16 ]
}

@test "srun's layout with Slurm's topology of this kind: the plugin's prediction is srun -l's" {
	predictions_match "-N16 -n48 -- -n48" "-N16 --ntasks-per-node=2 -- -n20" \
		"-N16 --ntasks-per-node=2 -- -N8 -n16"
	if ! slurm_before 26.05; then
		run in_alloc -N16 --ntasks-per-node=2 -- "srun -v --topo-map --topo-profile=off -n32 true"
		[[ "$output" == *"topomap: step of 32 tasks on 16 nodes (block in topology order (topology/block)): n1:2,n6:2,n11:2,n16:2,"* ]]
	fi
}
