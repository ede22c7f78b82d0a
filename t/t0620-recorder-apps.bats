#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A real application under srun --topo-map: Debian's LAMMPS (an Open MPI
# program) on 8 nodes, 2 switches, names interleaved, 16 ranks.  The first
# run records its profile; the recorded matrix must be its decomposition's:
# each rank sends to the six face neighbours of its place in LAMMPS's 3-D
# processor grid and to no one else.  The second run is placed by it.
# Open MPI's own monitoring of a run, imported, is the recorder's matrix.

load lib/cluster
load lib/plugin
load lib/apps

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	need_pmix "Debian's LAMMPS"
	plugin_setup
	install -m 0644 "$FIXTURES/lammps/in.lj" "$SHARE/in.lj"
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.lammps
	W=$SHARE/lammps
	mkdir -p "$W"
}

# lmp_step [SRUN_ARGS...] -- [LMP_ARGS...]: srun LAMMPS's in.lj in $W.
lmp_step() {
	local s=()
	while [ "$1" != -- ]; do
		s+=("$1")
		shift
	done
	shift
	echo "srun --chdir $W --mpi=pmix ${s[*]} lmp -in $SHARE/in.lj -screen none $*"
}

@test "LAMMPS recorded by srun --topo-map: exactly its processor grid's face neighbours" {
	run in_alloc -N8 --ntasks-per-node=2 -- "$(lmp_step -- -var grid 1 -var steps 0 -log none) &&
		$(lmp_step --topo-map -- -log log.record)"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^srun: topomap: recorded the profile of /usr/bin/lmp for 16 tasks: " <<<"$output"
	grep -q '^Loop time of .* on 16 procs for 20 steps' "$W/log.record"
	profile=$(echo "$XDG_CACHE_HOME"/topomap/profiles/build-id-*.n16.json)
	[ -f "$profile" ]
	lammps_pairs "$W/grid.txt" >"$W/pairs"
	# 2 x 2 x 4 (LAMMPS's choice for 16 ranks): two neighbours in the
	# dimension of 4, one in each dimension of 2: 16 x 4 directed pairs
	[ "$(wc -l <"$W/pairs")" -eq 64 ]
	"$SHARE/topomap" profile export --what bytes "$profile" >"$W/bytes.csv"
	decomposition_check "$W/bytes.csv" "$W/pairs"
}

@test "the check fails on a recording that drops a neighbour or adds a stranger" {
	[ -s "$W/bytes.csv" ] && [ -s "$W/pairs" ] || skip "needs the recording of the test before"
	read -r a b < <(head -n 1 "$W/pairs")
	# the pair a -> b dropped
	awk -F, -v OFS=, -v a="$a" -v b="$b" 'NR == a + 1 { $(b + 1) = 0 } 1' "$W/bytes.csv" >"$W/dropped.csv"
	run decomposition_check "$W/dropped.csv" "$W/pairs"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "ranks $a -> $b: 0 bytes, a neighbour pair the recording misses (median "*")" ]]
	# bytes to a rank that is no neighbour of a
	c=$(awk -v a="$a" '$1 == a { n[$2] = 1 } END { for (r = 0; r < 16; r++) if (r != a && !(r in n)) { print r; exit } }' "$W/pairs")
	awk -F, -v OFS=, -v a="$a" -v c="$c" 'NR == a + 1 { $(c + 1) = 8 } 1' "$W/bytes.csv" >"$W/stranger.csv"
	run decomposition_check "$W/stranger.csv" "$W/pairs"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "ranks $a -> $c: 8 bytes, not neighbours in the decomposition" ]
}

@test "the next runs of LAMMPS record the profile's check, then are placed by it and run to the end" {
	run in_alloc -N8 --ntasks-per-node=2 -- "$(lmp_step --topo-map -- -log log.check) && $(lmp_step --topo-map -- -log log.placed)"
	echo "$output"
	[ "$status" -eq 0 ]
	# The same messages between the same ranks at every run.
	grep -q "^srun: topomap: recorded a second profile of /usr/bin/lmp for 16 tasks, to plan from what recurs: 100.0% of the traffic recurs in it: " <<<"$output"
	grep -q "^srun: topomap: placed 16 ranks on 8 nodes, predicted gain " <<<"$output"
	grep -q '^Loop time of .* on 16 procs for 20 steps with 4000 atoms' "$W/log.placed"
	# the same physics wherever the ranks run: the last step's thermo line
	# equals the recorded run's
	last() { sed -n '/^ *Step /,/^Loop time/p' "$1" | grep -E '^ +20 '; }
	[ -n "$(last "$W/log.placed")" ]
	[ "$(last "$W/log.placed")" = "$(last "$W/log.record")" ]
}

@test "Open MPI's monitoring of a LAMMPS run, imported, is the recorder's matrix of the same run within 1 %" {
	[ -s "$W/pairs" ] || skip "needs the decomposition of the first test"
	# two runs of the same deterministic step: the monitoring PML telling
	# the application's messages (E lines) from collectives' (I), and the
	# recorder (with Open MPI 5.0.7 and its UCX PML the two at once
	# crashed: doc/design.md)
	run in_alloc -N8 --ntasks-per-node=2 -- "OMPI_MCA_pml_monitoring_enable=2 OMPI_MCA_pml_monitoring_enable_output=3 \
		OMPI_MCA_pml_monitoring_filename=$W/mon $(lmp_step -- -log none) &&
		LD_PRELOAD=$SHARE/topomap-recorder-openmpi.so TOPOMAP_RECORD=$W/rec.json $(lmp_step -- -log none)"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(ls "$W"/mon.*.prof | wc -l)" -eq 16 ]
	cat "$W"/mon.*.prof >"$W/mon.txt"
	"$SHARE/topomap" profile import --format ompi -o "$W/mon.json" "$W/mon.txt"
	"$SHARE/topomap" profile export --what bytes "$W/mon.json" >"$W/mon.csv"
	"$SHARE/topomap" profile export --what bytes "$W/rec.json" >"$W/rec.csv"
	matrices_within "$W/mon.csv" "$W/rec.csv" 0.01
	# and it is the decomposition's, as recorded
	decomposition_check "$W/mon.csv" "$W/pairs"
}
