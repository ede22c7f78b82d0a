#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# srun --topo-map where Slurm has no PMIx plugin, only mpi_pmi2 (Debian's
# Slurm 26.05, and sites with MPICH-family MPIs only): the plugin probes
# with the MPICH probe over pmi2 and places; a probe that cannot run says
# so in one line.  8 nodes of 16 CPUs, 2 switches, names interleaved.

load lib/cluster
load lib/plugin

setup_file() {
	need_cluster
	[ -x "$TOPOMAP_BUILDDIR/probe/mpich/topomap-probe-mpich" ] || skip "MPICH not found by configure"
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo" --mpi pmi2 --cpus 16
	plugin_setup
	install -m 0644 "$FIXTURES/pairs-128.json" "$SHARE/pairs128.json"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	[ -x "$SHARE/topomap-probe-mpich" ] || skip "MPICH not found by configure"
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	PROBE_MPICH=$SHARE/topomap-probe-mpich
	plugstack
}

BLOCK=$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)

@test "the cluster's Slurm offers pmi2 and no pmix" {
	run srun --mpi=list
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *pmi2* ]]
	[[ "$output" != *pmix* ]]
}

# A predicted gain with its interval over the netmaps drawn (place.c).
gain="-\?[0-9.]*%\( (-\?[0-9.]*% to -\?[0-9.]*%)\)\?"

@test "srun --mpi=pmi2 --topo-map probes with the MPICH probe and places" {
	local out=$SHARE/out.$BATS_TEST_NUMBER
	# srun's lines (-v) in $output, hello's in $out.
	run in_alloc -N8 --ntasks-per-node=2 -- \
		"$(viewed_step "$MPICH_VIEW" "$out" "srun -v --mpi=pmi2 --topo-map --topo-profile=$SHARE/halo16.json" "$SHARE/hello.mpich")"
	echo "$output" | grep -v '^srun: \(debug\|jobid\|launch\|.*task\)'
	cat "$out"
	[ "$status" -eq 0 ]
	grep -qxF "srun: topomap: probing 8 nodes with $PROBE_MPICH over --mpi=pmi2" <<<"$output"
	got=$(hosts_of <"$out")
	[ "$(wc -l <<<"$got")" -eq 16 ]
	[ "$(grep -c '^rank=.* sum=120 ' "$out")" -eq 16 ]
	if nodes_share_ipc; then
		# Its figures are shared memory's noise (below): a plan chasing
		# the pairs that measured fast is not significant across the
		# spread of pairs alike, and srun's layout stays.
		grep -q "^srun: topomap: srun's own placement: the plan's predicted gain, $gain, $gain at the busiest link, is not significant: min_gain in [0-9]* of 200 netmaps drawn from the spread of pairs alike, 190 needed$" <<<"$output"
		[ "$got" = "$BLOCK" ]
	else
		grep -q '^srun: topomap: placed 16 ranks on 8 nodes' <<<"$output"
		[ "$got" != "$BLOCK" ]
		node_view "$MPICH_VIEW" "$out"
	fi
	# The MPICH probe's netmap groups the nodes by their configured
	# switches, as t1000 asks of the Open MPI probe (the exact tree of a
	# three-level network is t1010's).  Not where the emulated
	# nodes share one IPC namespace (MPICH before 4.2, Debian 12): MPICH's
	# ranks meet by shared memory there, and with a namespace a node its
	# MPI_Finalize hangs over TCP (pmodels/mpich#6596, fixed in 4.2.0;
	# topomap-cluster(8)), so the netmap measures shared memory and its
	# groups are noise.
	run "$SHARE/topomap" netmap show "$XDG_CACHE_HOME"/topomap/netmaps/job*.json
	echo "$output" | head -5
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *": 8 hosts, job "* ]]
	nodes_share_ipc || [[ "$output" == *"[n1 n3 n5 n7] [n2 n4 n6 n8]"* ]]
}

@test "128 MPICH ranks whose plan's PMI-2 mapping is too long: placed with each node's ranks consecutive" {
	local out=$SHARE/out.$BATS_TEST_NUMBER
	# pairs-128: blocks of 16 ranks talk in pairs, each rank to a
	# scrambled partner in the next block; the free plan puts partners
	# together, scattered over the nodes, which no 673-byte mapping says.
	# The netmap is the site's tree with its figures, not a probe's: where
	# the emulated nodes share their IPC namespace (MPICH 4.0, Debian 12)
	# the MPICH probe measures shared memory, whose noise no node order
	# reliably beats.
	printf '%s\n' "SwitchName=s1 Nodes=n[1,3,5,7]" "SwitchName=s2 Nodes=n[2,4,6,8]" \
		"SwitchName=core Switches=s[1-2]" "#topomap level=1 latency_us=20 bandwidth_MBps=110" \
		"#topomap level=2 latency_us=40 bandwidth_MBps=11" >"$SHARE/pairs-topology.conf"
	plugstack topology="$SHARE/pairs-topology.conf"
	run in_alloc -N8 --ntasks-per-node=16 -- \
		"$(viewed_step "$MPICH_VIEW" "$out" "srun -v --mpi=pmi2 --topo-map --topo-profile=$SHARE/pairs128.json" "$SHARE/hello.mpich")"
	# The plugin's lines, srun's errors and the step's own; not srun -v's.
	grep -v '^srun: ' <<<"$output" | head -40 || true
	grep '^srun: \(topomap\|error\)' <<<"$output" || true
	[ "$status" -eq 0 ]
	grep -q "^srun: topomap: --mpi=pmi2 could not tell the ranks which of them share a node: .*; the best plan of consecutive ranks a node, whose mapping fits, gains " <<<"$output"
	grep -q '^srun: topomap: placed 128 ranks on 8 nodes' <<<"$output"
	got=$(hosts_of <"$out")
	[ "$(wc -l <<<"$got")" -eq 128 ]
	# 16 consecutive ranks a node, not srun's order
	awk '$2 != last { runs++; last = $2 } END { exit runs != 8 }' <<<"$got"
	[ "$(awk '{ print $2 }' <<<"$got" | uniq -c | awk '$1 != 16' | wc -l)" -eq 0 ]
	[ "$(awk '{ print $2 }' <<<"$got" | uniq | tr '\n' ' ')" != "n1 n2 n3 n4 n5 n6 n7 n8 " ]
	node_view "$MPICH_VIEW" "$out"
}

@test "a step without --mpi is probed over pmi2, the one MPI plugin there is" {
	run in_alloc -N8 --ntasks-per-node=2 -- "srun -v --topo-map=dry-run --topo-profile=$SHARE/halo16.json true 2>&1"
	echo "$output" | grep topomap
	[ "$status" -eq 0 ]
	grep -qxF "srun: topomap: probing 8 nodes with $PROBE_MPICH over --mpi=pmi2" <<<"$output"
	grep -q '^srun: topomap: dry run: the topomap plan would gain ' <<<"$output"
}

@test "plugstack mpi=pmix without Slurm's mpi_pmix: srun's placement, one line naming it" {
	plugstack mpi=pmix
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=pmi2 --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello.mpich"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[[ "$output" == *"srun's own placement: "*"Slurm has no mpi_pmix plugin in "*" (--mpi=pmix from plugstack mpi=)"* ]]
	[ "$(hosts_of <<<"$output")" = "$BLOCK" ]
	# --topo-map=strict makes it the step's failure.
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=pmi2 --topo-map=strict --topo-profile=$SHARE/halo16.json $SHARE/hello.mpich"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Slurm has no mpi_pmix plugin in "* ]]
	[ -z "$(hosts_of <<<"$output")" ]
}
