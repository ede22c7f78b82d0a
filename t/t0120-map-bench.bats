#!/usr/bin/env bats
# The mapper on the benchmark's cases (t/bench/map: stencils, rings, NPB
# shapes and random patterns of 256 and 4096 ranks over two-switch,
# three-level and cloud-like netmaps): its plan never costs more than
# block, than Scotch's mapping made to fit (scotch_repaired, the fair
# peer), nor than plain Scotch where plain Scotch fits.  No Slurm needed.

setup_file() {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	export TOPOMAP_BUILDDIR
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOPOMAP_BUILDDIR/t" bench/map >&2
}

# above: the BENCH map lines of standard input where topomap's plan
# (cost_vs_block) costs more than block, scotch_repaired, or scotch with
# scotch_overfull=0.
above() {
	awk '$1 == "BENCH" && $2 == "map" {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["cost_vs_block"] + 0
		if (c > 1 + 1e-9 || c > f["scotch_repaired"] * (1 + 1e-9) ||
		    (f["scotch_overfull"] == 0 && c > f["scotch"] * (1 + 1e-9))) print }'
}

@test "on every bench case the plan costs no more than block, repaired Scotch or fitting Scotch" {
	# Its exit status also holds its time targets, which this machine's
	# load may miss: the costs are what this test checks, by the bench's
	# own messages and by its lines.
	run "$TOPOMAP_BUILDDIR/t/bench/map"
	echo "$output"
	[ "$status" -le 1 ]
	! grep -q ': topomap costs ' <<<"$output"
	[ "$(grep -c '^BENCH map .* scotch_repaired=[0-9.]* .* scotch=[0-9.]* scotch_overfull=[0-9]*$' <<<"$output")" -eq 42 ]
	[ -z "$(above <<<"$output")" ]
}

@test "the check sees a plan that costs more than repaired Scotch" {
	local line='BENCH map ranks=256 pattern=ring topo=cloud time_s=0.0010 cost_vs_block=0.5000 cyclic=1.0000 random=1.0000 scotch_repaired=0.4000 greedy=0.6000 scotch=0.3000 scotch_overfull=2'
	[ -n "$(above <<<"$line")" ]
	[ -z "$(above <<<"${line/scotch_repaired=0.4000/scotch_repaired=0.5000}")" ]
	[ -n "$(above <<<"${line/scotch_overfull=2/scotch_overfull=0}")" ]
}
