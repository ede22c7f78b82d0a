#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The network model's simulator (t/sim/model): netmaps of two- and
# three-level fat trees (full and tapered), a dragonfly and a cloud, with
# +-20 % jitter, outliers and token-bucket bursts, fed to the inference the
# probe runs (every pair) and to its sampling plan (lib/sample.h).  Every
# tree comes back exactly; the cloud's racks come back as its groups.  No
# Slurm needed.

# Tagged once: no cluster, and the same sources on every generation; each
# root's unit tests cover lib/ against its own libraries (t/check-generations).

# bats file_tags=once

setup_file() {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	export TOPOMAP_BUILDDIR
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOPOMAP_BUILDDIR/t" sim/model >&2
}

# field KEY: the value of KEY= in each BENCH line of standard input
field() {
	sed -n "s/^BENCH model .* $1=\([^ ]*\).*/\1/p"
}

@test "every fat tree and the dragonfly come back exactly at 64 and 512 nodes, both plans, three seeds, and plan within 2 % of the truth" {
	for seed in 1 2 3; do
		run "$TOPOMAP_BUILDDIR/t/sim/model" --nodes 64,512 --seed "$seed"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$(grep -c '^BENCH model .* plan=all ' <<<"$output")" -eq 12 ]
		[ "$(grep -c '^BENCH model .* plan=sampled ' <<<"$output")" -eq 12 ]
		[ "$(grep -v 'topo=cloud' <<<"$output" | field tree_exact | sort -u)" = 1 ]
		[ "$(grep -v 'topo=cloud' <<<"$output" | field ari | sort -u)" = 1.0000 ]
		# planned on the tree's figures (lib/netmap.h), within 2 % of the
		# plan made on the true netmap
		for c in $(grep -v 'topo=cloud' <<<"$output" | field plan_cost_vs_true); do
			awk -v c="$c" 'BEGIN { exit !(c > 0 && c <= 1.02) }'
		done
	done
}

@test "the sampling plan measures at most 8 N log2 N pairs of a tree at 512 nodes, a ninth of them or less" {
	run "$TOPOMAP_BUILDDIR/t/sim/model" --nodes 512 --plan sampled \
		--topo ft2-full,ft2-taper,ft3-full,ft3-taper,dragonfly
	echo "$output"
	[ "$status" -eq 0 ]
	for p in $(field pairs_measured <<<"$output"); do
		((p <= 8 * 512 * 9 && p * 9 <= 130816))
	done
}

@test "a cloud has no tree to sample: every pair is measured" {
	run "$TOPOMAP_BUILDDIR/t/sim/model" --nodes 512 --plan sampled --topo cloud
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field pairs_measured <<<"$output")" = 130816 ]
}

@test "a cloud's plan needs every pair: on its groups' medians it costs over 10 % more, pair by pair within 3 %" {
	run "$TOPOMAP_BUILDDIR/t/sim/model" --nodes 64,512 --topo cloud --plan all,medians
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' plan=all ' <<<"$output")" -eq 2 ]
	for c in $(grep ' plan=all ' <<<"$output" | field plan_cost_vs_true); do
		awk -v c="$c" 'BEGIN { exit !(c > 0 && c <= 1.03) }'
	done
	[ "$(grep -c ' plan=medians ' <<<"$output")" -eq 2 ]
	for c in $(grep ' plan=medians ' <<<"$output" | field plan_cost_vs_true); do
		awk -v c="$c" 'BEGIN { exit !(c > 1.10) }'
	done
}

@test "the cloud's racks are its groups" {
	run "$TOPOMAP_BUILDDIR/t/sim/model" --nodes 64,512 --topo cloud
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field ari <<<"$output" | sort -u)" = 1.0000 ]
}

@test "a tree lost in noise is reported and fails the run" {
	# At +-60 % jitter the dragonfly's 1.0 and 1.4 us levels overlap.
	run "$TOPOMAP_BUILDDIR/t/sim/model" --nodes 128 --topo dragonfly --plan all --noise 0.6
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"tree_exact=0"* ]]
	[[ "$output" == *"model: dragonfly at 128 nodes, plan all: the tree did not come back"* ]]
}
