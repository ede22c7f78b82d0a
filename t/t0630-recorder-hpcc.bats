#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A second real application under srun --topo-map: Debian's HPCC (an Open
# MPI program) on 8 nodes, 2 switches, names interleaved, 16 ranks on its
# 4 x 4 process grid.  HPCC's b_eff sends fixed 2 MB messages around eleven
# rings, about seven minutes on the emulated 100 Mbit/s uplinks, so the
# rates here are a hundred times 2sw-interleaved's (same shape; b_eff's
# rings take 7 s, not 34 s as at ten times, and the links barely throttle:
# what is checked is the bytes recorded, not the rates).  The
# run records its profile; the recorded matrix must be what HPCC's
# decomposition implies (hpcc_check): bytes between every two ranks
# (RandomAccess), and at least b_eff's natural ring's 32 MB between each
# rank and the next.

load lib/cluster
load lib/plugin
load lib/apps

setup_file() {
	need_cluster
	cluster_up --topology "$(topology_file "$TOPOLOGIES" 2sw-interleaved-x100 "$BATS_FILE_TMPDIR")"
	need_pmix "Debian's HPCC"
	plugin_setup
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.hpcc
	H=$SHARE/hpcc
	mkdir -p "$H"
}

@test "HPCC recorded by srun --topo-map: every pair of ranks, b_eff's natural ring heavy" {
	hpcc_input 400 20 16 >"$H/hpccinf.txt"
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --chdir $H --mpi=pmix --topo-map hpcc"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'Success=1' "$H/hpccoutf.txt"
	grep -qx 'HPL_nprow=4' "$H/hpccoutf.txt"
	grep -qx 'HPL_npcol=4' "$H/hpccoutf.txt"
	grep -q 'The ring communication was done in both directions on 16 processes' "$H/hpccoutf.txt"
	profile=$(sed -n 's|^srun: topomap: recorded the profile of /usr/bin/hpcc for 16 tasks: \(/.*\.json\).*|\1|p' <<<"$output")
	[ -f "$profile" ]
	"$SHARE/topomap" profile export --what bytes "$profile" >"$H/bytes.csv"
	hpcc_check "$H/bytes.csv"
}

@test "the HPCC check fails on a recording that drops a pair or thins a ring neighbour" {
	[ -s "$H/bytes.csv" ] || skip "needs the recording of the test before"
	# ranks 5 -> 6 dropped: next on the natural ring
	awk -F, -v OFS=, 'NR == 6 { $7 = 0 } 1' "$H/bytes.csv" >"$H/dropped.csv"
	run hpcc_check "$H/dropped.csv"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "ranks 5 -> 6: 0 bytes, a pair RandomAccess sends between
ranks 5 -> 6: 0 bytes, b_eff's natural ring neighbours below 32 MB" ]
	# ranks 9 -> 2 dropped: no ring's for sure, RandomAccess's
	awk -F, -v OFS=, 'NR == 10 { $3 = 0 } 1' "$H/bytes.csv" >"$H/dropped2.csv"
	run hpcc_check "$H/dropped2.csv"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "ranks 9 -> 2: 0 bytes, a pair RandomAccess sends between" ]
	# ranks 5 -> 4 left with 1 MB
	awk -F, -v OFS=, 'NR == 6 { $5 = 1000000 } 1' "$H/bytes.csv" >"$H/thin.csv"
	run hpcc_check "$H/thin.csv"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "ranks 5 -> 4: 1000000 bytes, b_eff's natural ring neighbours below 32 MB" ]
}
