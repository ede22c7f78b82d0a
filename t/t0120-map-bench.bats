#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The mapper on the benchmark's cases (t/bench/map: stencils, rings, NPB
# shapes and random patterns of 256 and 4096 ranks over two-switch,
# three-level and cloud-like netmaps): its plan never costs more than
# block, than Scotch's mapping made to fit (scotch_repaired, the fair
# peer), nor than plain Scotch where plain Scotch fits; with the nodes'
# insides (T+node), nodes and CPUs together never cost more than srun's
# block with block core binding, at most 0.8 of it for stencils.  No Slurm
# needed.

# Tagged once: no cluster, and the same sources on every generation; each
# root's unit tests cover lib/ against its own libraries (t/check-generations).

# bats file_tags=once

setup_file() {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	export TOPOMAP_BUILDDIR
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOPOMAP_BUILDDIR/t" bench/map >&2
}

# above: the BENCH map lines of standard input where topomap's plan
# (cost_vs_block) costs more than block, scotch_repaired, the multisection
# start, or scotch with scotch_overfull=0.
above() {
	awk '$1 == "BENCH" && $2 == "map" {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["cost_vs_block"] + 0
		if (c > 1 + 1e-9 || c > f["scotch_repaired"] * (1 + 1e-9) ||
		    (f["multisection"] != "none" && c > f["multisection"] * (1 + 1e-9)) ||
		    (f["scotch_overfull"] == 0 && c > f["scotch"] * (1 + 1e-9))) print }'
}

@test "on every bench case the plan costs no more than block, repaired Scotch, multisection or fitting Scotch" {
	# Its exit status also holds its time targets, which this machine's
	# load may miss: the costs are what this test checks, by the bench's
	# own messages and by its lines.
	run "$TOPOMAP_BUILDDIR/t/bench/map"
	echo "$output"
	[ "$status" -le 1 ]
	! grep -q ': topomap costs ' <<<"$output" || false
	[ "$(grep -c '^BENCH map .* scotch_repaired=[0-9.]* .* scotch=[0-9.]* scotch_overfull=[0-9]* multisection=\([0-9.]*\|none\)$' <<<"$output")" -eq 42 ]
	[ -z "$(above <<<"$output")" ]
	# a multisection start on the trees, none on the cloud; each plan names its start
	[ "$(grep -c '^BENCH map .* topo=\(2switch\|tree3\) .* multisection=[0-9.]*$' <<<"$output")" -eq 28 ]
	[ "$(grep -c '^BENCH map .* topo=cloud .* multisection=none$' <<<"$output")" -eq 14 ]
	[ "$(grep -c '^BENCH map_best .* best=\(scotch\|greedy\|multisection\|block\|cyclic\) chosen=\(topomap\|block\|cyclic\)$' <<<"$output")" -eq 42 ]
}

@test "the check sees a plan that costs more than repaired Scotch or the multisection start" {
	local line='BENCH map ranks=256 pattern=ring topo=cloud time_s=0.0010 cost_vs_block=0.5000 cyclic=1.0000 random=1.0000 scotch_repaired=0.4000 greedy=0.6000 scotch=0.3000 scotch_overfull=2 multisection=none'
	local fair=${line/scotch_repaired=0.4000/scotch_repaired=0.5000}
	[ -n "$(above <<<"$line")" ]
	[ -z "$(above <<<"$fair")" ]
	[ -n "$(above <<<"${fair/multisection=none/multisection=0.4500}")" ]
	[ -z "$(above <<<"${fair/multisection=none/multisection=0.5000}")" ]
	[ -n "$(above <<<"${line/scotch_overfull=2/scotch_overfull=0}")" ]
}

# above_node: the BENCH map lines of a T+node topology where the plan,
# nodes and CPUs, costs more than block with block core binding, or more
# than 0.8 of it for a stencil.
above_node() {
	awk '$1 == "BENCH" && $2 == "map" && $5 ~ /\+node$/ {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["cost_vs_block"] + 0
		if (c > 1 + 1e-9 || (f["pattern"] ~ /^stencil/ && c > 0.8 + 1e-9)) print }'
}

@test "with the nodes' insides, the plan costs at most block with core binding, 0.8 of it for stencils" {
	run "$TOPOMAP_BUILDDIR/t/bench/map" --topo 2switch+node,tree3+node,cloud+node
	echo "$output"
	[ "$status" -le 1 ]
	! grep -q ': the plan costs ' <<<"$output" || false
	[ "$(grep -c '^BENCH map .* topo=[a-z0-9]*+node .* cost_vs_block=[0-9.]* nodes_only=[0-9.]* inside_vs_block=[0-9.]* slurm_bind=[0-9.]*$' <<<"$output")" -eq 42 ]
	[ -z "$(above_node <<<"$output")" ]
	# the inside pass itself gains where a node's ranks are not in a
	# friendly order (random partners; NPB BT's diagonal neighbours did
	# until the V-cycles gave each node a block of the grid)
	grep -q '^BENCH map ranks=256 pattern=random topo=2switch+node .* inside_vs_block=0\.[0-8]' <<<"$output"
}

@test "the check sees a stencil plan above 0.8 of block with core binding" {
	local line='BENCH map ranks=256 pattern=stencil2d topo=tree3+node time_s=0.0010 inside_s=0.0001 cost_vs_block=0.7795 nodes_only=0.7795 inside_vs_block=1.0000 slurm_bind=1.0300'
	[ -z "$(above_node <<<"$line")" ]
	[ -n "$(above_node <<<"${line/cost_vs_block=0.7795/cost_vs_block=0.8100}")" ]
	# not a stencil: up to 1
	[ -z "$(above_node <<<"$(sed 's/cost_vs_block=0.7795/cost_vs_block=0.9900/;s/stencil2d/ring/' <<<"$line")")" ]
	[ -n "$(above_node <<<"$(sed 's/cost_vs_block=0.7795/cost_vs_block=1.0100/;s/stencil2d/ring/' <<<"$line")")" ]
}
