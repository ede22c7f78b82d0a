#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# srun --topo-map on 8 nodes, 2 switches, names interleaved: the first run
# records a profile, later runs place the ranks by the plan, and the tasks,
# exit codes and signals see nothing else change.

load lib/cluster
load lib/plugin

# A predicted gain as the plugin's lines give it: with its interval over
# the netmaps drawn from the spread of pairs alike, where it drew any.
gain="-\?[0-9.]*%\( (-\?[0-9.]*% to -\?[0-9.]*%)\)\?"

setup_file() {
	need_cluster
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	plugin_setup
}

teardown_file() {
	cluster_down
}

setup() {
	need_cluster
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER
	plugstack
}

@test "the first run records a profile, the second records its check, the third places the ranks by it" {
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp && srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp && srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp"
	echo "$output"
	[ "$status" -eq 0 ]
	# The plugin's lines.
	mapfile -t said < <(grep '^srun: topomap:' <<<"$output" | quiet_lines | sed 's/ ([0-9.]* s)$//')
	[[ "${said[0]}" == "srun: topomap: no profile of $SHARE/miniapp for 16 tasks yet: recording one" ]]
	[[ "${said[1]}" == "srun: topomap: recorded the profile of $SHARE/miniapp for 16 tasks: $XDG_CACHE_HOME/topomap/profiles/build-id-"*".n16.json" ]]
	[[ "${said[2]}" == "srun: topomap: the profile of $SHARE/miniapp for 16 tasks has one recording: recording a second, so that only traffic that recurs places ranks" ]]
	# The halo exchange sends the same every run.
	[[ "${said[3]}" == "srun: topomap: recorded a second profile of $SHARE/miniapp for 16 tasks, to plan from what recurs: 100.0% of the traffic recurs in it: $XDG_CACHE_HOME/topomap/profiles/build-id-"*".n16.json" ]]
	[[ "${said[4]}" == "srun: topomap: placed 16 ranks on 8 nodes, predicted gain "* ]]
	[ "${#said[@]}" -eq 5 ]
	# Besides those, only miniapp's own lines.
	[ "$(grep -v '^srun: topomap:' <<<"$output" | step_waits_out | grep -vc '^miniapp pattern=halo2d ranks=16 ')" -eq 0 ]
	run "$SHARE/topomap" profile show "$XDG_CACHE_HOME"/topomap/profiles/build-id-*.n16.json
	echo "$output"
	grep -q "^  checked at    .*, job [0-9]*, run of " <<<"$output"
	grep -q "^  recurring     100.0% of the traffic" <<<"$output"
}

@test "a program whose pairs change from run to run is left in srun's layout, its check saying so" {
	# A ring through the ranks in an order drawn anew at each run (here
	# from the seed), as HPCC's random rings: the plan is made from the
	# few pairs the two recordings share, and gains on neither.
	run in_alloc -N8 --ntasks-per-node=2 -- "
		srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp -p ring -r 1 -n 5 &&
		srun --mpi=$MPI_TYPE --topo-map=dry-run $SHARE/miniapp -p ring -r 1 -n 5 &&
		srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp -p ring -r 2 -n 5 &&
		srun -v --mpi=$MPI_TYPE --topo-map $SHARE/miniapp -p ring -r 3 -n 5 &&
		srun --mpi=$MPI_TYPE --topo-map=dry-run $SHARE/miniapp -p ring -r 4 -n 5"
	echo "$output"
	[ "$status" -eq 0 ]
	# A dry run plans from the one recording, records nothing, and says so.
	grep -q "^srun: topomap: dry run: the topomap plan would gain $gain over srun's layout, $gain at the busiest link by the profile's one recording (the next run records its check) (would be applied)$" <<<"$output"
	grep -q "^srun: topomap: recorded a second profile of $SHARE/miniapp for 16 tasks, to plan from what recurs: [0-9.]*% of the traffic recurs in it: " <<<"$output"
	share=$(sed -n "s/.*to plan from what recurs: \([0-9.]*\)% of the traffic recurs.*/\1/p" <<<"$output")
	echo "recurring: $share %"
	awk -v s="$share" 'BEGIN { exit !(s < 50) }'
	# -v shows what the plan is made from and its prices on both
	# recordings; the one line says why the layout stays.
	grep -q "^srun: topomap: planned in [0-9.]* s from the traffic both recordings of the profile share: predicted " <<<"$output"
	grep -q "^srun: topomap: the plan priced on the profile's recording and on its check (job [0-9]*, [0-9.]*% of the traffic recurring): gain -\?[0-9.]*% and -\?[0-9.]*%, -\?[0-9.]*% and -\?[0-9.]*% at the busiest link$" <<<"$output"
	grep -q "^srun: topomap: srun's own placement: the plan's predicted gain, the lesser on the profile's recording and on its check, -\?[0-9.]*%, -\?[0-9.]*% at the busiest link, is below min_gain (5.0%)$" <<<"$output"
	grep -q "^srun: topomap: dry run: the [a-z]* plan would gain $gain over srun's layout, $gain at the busiest link, the lesser on the profile's recording and on its check (below min_gain)" <<<"$output"
	# The one recording's plan would have been applied (the dry run
	# above): the second recording is what stops it.
	[ "$(grep -c "placed 16 ranks" <<<"$output")" -eq 0 ]
}

@test "the step's command is found however srun's own arguments are written" {
	# A job name like the command, values apart, "--" with --chdir and a
	# relative command, a command found along PATH: each is recorded
	# under the executable srun runs (srun's own option table, compat.c).
	run in_alloc -N2 --ntasks-per-node=1 -- "
		cd $SHARE &&
		srun --mpi=$MPI_TYPE --topo-map --topo-profile record -n 2 -J ./hello ./hello >/dev/null &&
		cd / &&
		srun --chdir $SHARE --mpi $MPI_TYPE --topo-map --topo-profile=record --ntasks 2 -- ./hello >/dev/null &&
		PATH=$SHARE:\$PATH srun -l --mpi=$MPI_TYPE --topo-map=auto --topo-profile=record -n2 hello >/dev/null"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "^srun: topomap: recorded the profile of $SHARE/hello for 2 tasks: " <<<"$output")" -eq 3 ]
	! grep -q 'executable is unknown' <<<"$output" || false
}

@test "every rank runs where the plan puts it, each node keeping srun's count" {
	run in_alloc -N8 --ntasks-per-node=2 -- "
		$(viewed_step "$HELLO_VIEW" "$SHARE/out.$BATS_TEST_NUMBER" "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json" "$SHARE/hello") &&
		$SHARE/topomap plan --profile $SHARE/halo16.json --netmap $XDG_CACHE_HOME/topomap/netmaps/job\$SLURM_JOB_ID.json \
			--slots n1:2,n2:2,n3:2,n4:2,n5:2,n6:2,n7:2,n8:2 -o $SHARE/plan.$BATS_TEST_NUMBER"
	echo "$output"
	[ "$status" -eq 0 ]
	got=$(hosts_of <"$SHARE/out.$BATS_TEST_NUMBER")
	want=$(awk '{print NR - 1, $1}' "$SHARE/plan.$BATS_TEST_NUMBER")
	echo "got: $got"
	[ "$got" = "$want" ]
	[ "$(awk '{print $2}' <<<"$got" | sort | uniq -c | awk '{print $1}' | sort -u)" = 2 ]
	# srun's own layout would be block: n1 n1 n2 n2 ...
	[ "$got" != "$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)" ]
	node_view "$HELLO_VIEW" "$SHARE/out.$BATS_TEST_NUMBER"
}

@test "MPICH over --mpi=pmi2 sees which placed ranks share a node" {
	[ -x "$SHARE/hello.mpich" ] || skip "MPICH not found by configure"
	local out=$SHARE/out.$BATS_TEST_NUMBER hf=$SHARE/hf.$BATS_TEST_NUMBER
	# Where the emulated nodes share their IPC namespace (MPICH before
	# 4.2: Debian 12), MPICH's UCX meets by shared memory across nodes and
	# the MPICH probe would measure that: the Open MPI probe measures the
	# network (topomap-cluster(8)).
	if nodes_share_ipc; then plugstack mpi=pmix; fi
	run in_alloc -N8 --ntasks-per-node=2 -- \
		"$(viewed_step "$MPICH_VIEW" "$out" "srun --mpi=pmi2 --topo-map --topo-profile=$SHARE/halo16.json" "$SHARE/hello.mpich")"
	echo "$output"
	cat "$out"
	[ "$status" -eq 0 ]
	grep -q '^srun: topomap: placed 16 ranks on 8 nodes' <<<"$output"
	got=$(hosts_of <"$out")
	[ "$got" != "$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)" ]
	[ "$(grep -c "^rank=.* sum=120 local=" "$out")" -eq 16 ]
	node_view "$MPICH_VIEW" "$out"
	# The same layout by SLURM_HOSTFILE alone: before Slurm 24.05 the pmi2
	# plugin says "every rank on a node of its own", and MPICH believes it;
	# since 24.05 (Slurm bug 18816) it maps a hostfile's layout itself.
	awk '{print $2}' <<<"$got" >"$hf"
	run in_alloc -N8 --ntasks-per-node=2 -- \
		"$(viewed_step "$MPICH_VIEW" "$out" "SLURM_HOSTFILE=$hf srun --mpi=pmi2 -m arbitrary" "$SHARE/hello.mpich")"
	echo "$output"
	cat "$out"
	[ "$status" -eq 0 ]
	[ "$(hosts_of <"$out")" = "$got" ]
	if slurm_before 24.05; then
		[ "$(grep -c ' local=1 ' "$(view_of "$MPICH_VIEW" "$out")")" -eq 16 ]
	else
		node_view "$MPICH_VIEW" "$out"
	fi
}

@test "a PMI mapping reaches neither tasks nor steps the plugin did not place" {
	[ -x "$SHARE/hello.mpich" ] || skip "MPICH not found by configure"
	local log=$TOPOMAP_CLUSTER_DIR/log/slurmd-n1.log seen f
	local hf=$SHARE/hf.$BATS_TEST_NUMBER left=$SHARE/left.$BATS_TEST_NUMBER forged=$SHARE/forged.$BATS_TEST_NUMBER
	seen=$(wc -l <"$log")
	for r in $(seq 0 15); do echo "n$((r % 8 + 1))"; done >"$hf"
	# Where MPICH's ranks meet by shared memory (Debian 12), its probe
	# measures noise and no plan is significant: the job's netmap comes
	# from the Open MPI probe of a first step instead.
	local first=true
	! nodes_share_ipc || first="srun --mpi=pmix --topo-map --topo-profile=$SHARE/halo16.json true 2>/dev/null"
	# On a SLURM_HOSTFILE layout (Slurm's mapping: every rank alone): a
	# value left in srun's environment, which would fit it; one forged past
	# srun (--export), which does not fit; and a placed step's, which its
	# tasks do not see.
	run in_alloc -N8 --ntasks-per-node=2 -- "
		$(viewed_step "$MPICH_VIEW" "$left" \
			"SLURM_HOSTFILE=$hf TOPOMAP_PMI_MAPPING='(vector,(0,8,1),(0,8,1))' srun --mpi=pmi2 -m arbitrary" "$SHARE/hello.mpich") &&
		$(viewed_step "$MPICH_VIEW" "$forged" \
			"SLURM_HOSTFILE=$hf srun --mpi=pmi2 -m arbitrary --export='ALL,\"TOPOMAP_PMI_MAPPING=(vector,(0,4,4))\"'" "$SHARE/hello.mpich") &&
		$first && srun --mpi=pmi2 --topo-map --topo-profile=$SHARE/halo16.json bash -c 'echo \${TOPOMAP_PMI_MAPPING:-unset}' | sort -u"
	echo "$output"
	[ "$status" -eq 0 ]
	cat "$left" "$forged"
	if slurm_before 24.05; then
		for f in "$left" "$forged"; do
			[ "$(grep -c ' local=1 ' "$(view_of "$MPICH_VIEW" "$f")")" -eq 16 ]
		done
		tail -n +"$((seen + 1))" "$log" |
			grep -q "topomap: TOPOMAP_PMI_MAPPING: node 0 gets 4 ranks, srun's layout gives it 2: ranks see no node shared"
	else
		# Slurm's own mapping of the hostfile stands; the forged one
		# would put four ranks on a node.
		node_view "$MPICH_VIEW" "$left"
		node_view "$MPICH_VIEW" "$forged"
	fi
	grep -q '^srun: topomap: placed 16 ranks' <<<"$output"
	[ "$(grep -v '^srun: topomap:' <<<"$output" | step_waits_out)" = unset ]
}

@test "srun --export=NONE still passes the plugin's variables, and no others" {
	# srun passes the tasks only SLURM_* and what --export names; the
	# recorder, the plan's PMI mapping and TOPOMAP_MODE must get through,
	# with no ALL srun does not see.  The Open MPI steps keep HOME, a list
	# without ALL all the same: Open MPI 5's MPI_Init fails without it
	# (open-mpi/ompi#10732); and what the emulated nodes need
	# (lib/cluster.bash), without which each step takes three times as long.
	local keep=HOME,OMPI_MCA_mpi_yield_when_idle,OMPI_MCA_pml,UCX_MEM_EVENTS
	run in_alloc -N8 --ntasks-per-node=2 -- "export LEFT=behind
		srun --export=$keep --mpi=$MPI_TYPE --topo-map $SHARE/miniapp >/dev/null &&
		srun --export=$keep --mpi=$MPI_TYPE --topo-map $SHARE/miniapp >/dev/null &&
		srun --export=$keep --mpi=$MPI_TYPE --topo-map $SHARE/miniapp >/dev/null &&
		srun --export=NONE --topo-map --topo-profile=$SHARE/halo16.json /bin/bash -c 'echo \$TOPOMAP_MODE \${LEFT:-unset}' | sort -u &&
		srun --export='\"LEFT=x,ALL\"' --topo-map --topo-profile=$SHARE/halo16.json /bin/bash -c 'echo \$TOPOMAP_MODE \$LEFT' | sort -u &&
		TOPOMAP_MODE=inherited srun --export=NONE /bin/bash -c 'echo \${TOPOMAP_MODE:-unset}' | sort -u &&
		if [ -x $SHARE/hello.mpich ]; then
			$(viewed_step "$MPICH_VIEW" "$SHARE/hello.$BATS_TEST_NUMBER" \
				"srun --export=NONE --mpi=pmi2 --topo-map --topo-profile=$SHARE/halo16.json" "$SHARE/hello.mpich")
		fi"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^srun: topomap: recorded the profile of ' <<<"$output"
	grep -q '^srun: topomap: recorded a second profile of ' <<<"$output"
	# Three steps, and MPICH's, and its pmimap step where PMI says which
	# ranks share a node.
	local placed=3
	[ ! -x "$SHARE/hello.mpich" ] || placed=$((placed + 1))
	[ ! -x "$SHARE/hello.mpich" ] || [ "$MPICH_VIEW" != pmi ] || placed=$((placed + 1))
	[ "$(grep -c '^srun: topomap: placed 16 ranks' <<<"$output")" -eq "$placed" ]
	# An ALL inside a quoted value is no ALL; a variable this srun did not
	# set stays behind.
	[ "$(grep -v '^srun: topomap:' <<<"$output" | step_waits_out)" = "$(printf 'applied unset\napplied x,ALL\nunset')" ]
	[ ! -x "$SHARE/hello.mpich" ] || node_view "$MPICH_VIEW" "$SHARE/hello.$BATS_TEST_NUMBER"
}

@test "--topo-map=latency, bandwidth and strict place as topomap plan does with that metric" {
	local mode metric got want block
	block=$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)
	# Any plan that is not srun's own is applied, however small its gain,
	# when it holds across the netmaps drawn from the pairs' spread.  The
	# topology delays no link, so a latency plan may be noise: then, and
	# only then, srun's layout is kept, saying so under -v.
	plugstack min_gain=0
	for mode in latency:latency bandwidth:bandwidth strict:combined; do
		metric=${mode#*:} mode=${mode%:*}
		run in_alloc -N8 --ntasks-per-node=2 -- "
			srun -v --mpi=$MPI_TYPE --topo-map=$mode --topo-profile=$SHARE/halo16.json $SHARE/hello > $SHARE/out.$BATS_TEST_NUMBER.$mode &&
			$SHARE/topomap plan --metric $metric --profile $SHARE/halo16.json \
				--netmap $XDG_CACHE_HOME/topomap/netmaps/job\$SLURM_JOB_ID.json \
				--slots n1:2,n2:2,n3:2,n4:2,n5:2,n6:2,n7:2,n8:2 -o $SHARE/plan.$BATS_TEST_NUMBER.$mode"
		echo "$mode: $output"
		[ "$status" -eq 0 ]
		got=$(hosts_of <"$SHARE/out.$BATS_TEST_NUMBER.$mode")
		want=$(awk '{print NR - 1, $1}' "$SHARE/plan.$BATS_TEST_NUMBER.$mode")
		if [ "$mode" = latency ] && [ "$got" = "$block" ] && [[ "$output" == *"srun: topomap: "*"is not significant"* ]]; then
			continue
		fi
		[ "$got" = "$want" ]
		[ "$want" = "$block" ] || [[ "$output" == *"placed 16 ranks on 8 nodes"* ]]
	done
}

@test "tasks see the mode, the plan and the gain, never the plugin's SLURM_HOSTFILE" {
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --topo-map --topo-profile=$SHARE/halo16.json -n1 -N1 true;
		srun --topo-map --topo-profile=$SHARE/halo16.json bash -c 'echo \$TOPOMAP_MODE \${SLURM_HOSTFILE:-unset} \${TOPOMAP_PLAN:+plan} \$TOPOMAP_GAIN' | sort -u"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^applied\ unset\ plan\ 0\.[0-9]+$ ]]
}

@test "the job's steps share one probe of the network" {
	run in_alloc -N8 --ntasks-per-node=2 -- "for i in 1 2; do srun -v --topo-map --topo-profile=$SHARE/halo16.json true 2>&1 | grep -E 'topomap: (probing|netmap)'; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "srun: topomap: probing 8 nodes with $SHARE/$MPI_PROBE over --mpi=$MPI_TYPE" ]]
	[[ "${lines[1]}" == "srun: topomap: netmap "*"/job"*".json, measured "*" s ago" ]]
}

@test "probe_plan=sampled: the plugin's probe samples, and the ranks are placed as ever" {
	plugstack probe_plan=sampled
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello >/dev/null && $SHARE/topomap netmap show $XDG_CACHE_HOME/topomap/netmaps/job\$SLURM_JOB_ID.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: placed 16 ranks on 8 nodes"* ]]
	[[ "$output" == *"pairs: "*" of 28 measured, the others' figures from the tree"* ]]
	[[ "$output" == *"2 groups: [n1 n3 n5 n7] [n2 n4 n6 n8]"* ]]
}

@test "exit codes and signals of the placed step pass through" {
	# Rank 3 exits last, so that the cluster's KillOnBadExit finds no other
	# rank to end and srun's status is rank 3's.
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --topo-map --topo-profile=$SHARE/halo16.json bash -c '[ \$SLURM_PROCID -ne 3 ] || { sleep 1; exit 7; }'"
	echo "$output"
	[ "$status" -eq 7 ]
	[[ "$output" == *"placed 16 ranks"* ]]
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --topo-map --topo-profile=$SHARE/halo16.json bash -c '[ \$SLURM_PROCID -eq 0 ] && kill -TERM \$\$; sleep 1'"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Terminated"* ]]
}

@test "stdin and stdout pass through the re-executed srun" {
	run in_alloc -N8 --ntasks-per-node=2 -- "echo through | srun --topo-map --topo-profile=$SHARE/halo16.json bash -c '[ \$SLURM_PROCID -ne 0 ] || { read x; echo got \$x; }'"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"got through"* ]]
}

@test "--topo-map=dry-run plans and reports, and srun places as always" {
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map=dry-run --topo-profile=$SHARE/halo16.json $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	quiet_lines <<<"$output" | head -n 1 | grep -q "^srun: topomap: dry run: the topomap plan would gain $gain over srun's layout, $gain at the busiest link (would be applied)$"
	[ "$(hosts_of <<<"$output")" = "$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)" ]
}

@test "sbatch --topo-profile=record holds for the job's sruns, a later job places" {
	run sbatch_wait -N8 --ntasks-per-node=2 --topo-profile=record -o "$SHARE/job.$BATS_TEST_NUMBER" \
		--export=ALL --wrap "srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp"
	cat "$SHARE/job.$BATS_TEST_NUMBER"
	[ "$status" -eq 0 ]
	grep -q "topomap: --topo-profile=record: recording one" "$SHARE/job.$BATS_TEST_NUMBER"
	grep -q "topomap: recorded the profile of $SHARE/miniapp for 16 tasks" "$SHARE/job.$BATS_TEST_NUMBER"
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp && srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp"
	echo "$output"
	[[ "$output" == *"recorded a second profile of $SHARE/miniapp for 16 tasks"* ]]
	[[ "$output" == *"placed 16 ranks on 8 nodes"* ]]
}

@test "--topo-profile=NAME places by the named profile, the user's before the site's" {
	mkdir -p "$XDG_CACHE_HOME/topomap/profiles" "$SHARE/site.$BATS_TEST_NUMBER"
	install -m 0644 "$SHARE/halo16.json" "$XDG_CACHE_HOME/topomap/profiles/halo.json"
	install -m 0644 "$SHARE/halo16.json" "$SHARE/site.$BATS_TEST_NUMBER/sitehalo.json"
	plugstack "site_profiles=$SHARE/site.$BATS_TEST_NUMBER"
	run in_alloc -N8 --ntasks-per-node=2 -- "
		srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello > $SHARE/bypath.$BATS_TEST_NUMBER &&
		srun --mpi=$MPI_TYPE --topo-map --topo-profile=halo $SHARE/hello > $SHARE/byname.$BATS_TEST_NUMBER &&
		srun --mpi=$MPI_TYPE --topo-map --topo-profile=sitehalo $SHARE/hello > $SHARE/bysite.$BATS_TEST_NUMBER &&
		srun --mpi=$MPI_TYPE --topo-map --topo-profile=nosuch $SHARE/hello > $SHARE/nosuch.$BATS_TEST_NUMBER"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep "placed 16 ranks on 8 nodes" <<<"$output" | sort -u | wc -l)" -ge 2 ]
	[[ "$output" == *"srun's own placement: no profile named nosuch in $XDG_CACHE_HOME/topomap/profiles or $SHARE/site.$BATS_TEST_NUMBER"* ]]
	# The plan is the same by path, by name and from the site directory.
	want=$(hosts_of <"$SHARE/bypath.$BATS_TEST_NUMBER")
	[ "$want" != "$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)" ]
	[ "$(hosts_of <"$SHARE/byname.$BATS_TEST_NUMBER")" = "$want" ]
	[ "$(hosts_of <"$SHARE/bysite.$BATS_TEST_NUMBER")" = "$want" ]
	[ "$(hosts_of <"$SHARE/nosuch.$BATS_TEST_NUMBER")" = "$(for r in $(seq 0 15); do echo "$r n$((r / 2 + 1))"; done)" ]
}

@test "a placed step of 2000 arguments gets every one of them" {
	run in_alloc -N8 --ntasks-per-node=2 -- "HELLO_SHOW=X srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello \$(seq 2000)"
	echo "$output" | grep -v '^show' | head -20
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[ "$(grep -c '^show rank=[0-9]* args=2000 X=(unset)$' <<<"$output")" -eq 16 ]
}

@test "a recording step keeps an LD_PRELOAD of more than 8 KiB whole, after the recorder" {
	local lib long
	lib=$(ldd "$SHARE/hello" | awk '$1 ~ /^libc\.so/ { print $3 }')
	long=$(for i in $(seq 400); do printf '%s:' "$lib"; done)
	long=${long%:}
	[ "${#long}" -gt 8192 ]
	# Each task's output to a file of its own: srun splits long lines.
	run in_alloc -N2 --ntasks-per-node=1 -- "LD_PRELOAD=$long HELLO_SHOW=LD_PRELOAD srun --output=$SHARE/preload.%t --mpi=$MPI_TYPE --topo-map --topo-profile=record $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -cxF "show rank=0 args=0 LD_PRELOAD=$SHARE/topomap-recorder-$MPI_FAMILY.so:$long" "$SHARE/preload.0")" -eq 1 ]
	[ "$(grep -cxF "show rank=1 args=0 LD_PRELOAD=$SHARE/topomap-recorder-$MPI_FAMILY.so:$long" "$SHARE/preload.1")" -eq 1 ]
	[[ "$output" == *"topomap: recorded the profile of $SHARE/hello for 2 tasks"* ]]
}

@test "a --mpi=pmi2 step is probed with the MPICH probe over pmi2, and the job's next step reuses that netmap" {
	[ -x "$SHARE/topomap-probe-mpich" ] || skip "MPICH not found by configure"
	run in_alloc -N8 --ntasks-per-node=2 -- "srun -v --mpi=pmi2 --topo-map=dry-run --topo-profile=$SHARE/halo16.json $SHARE/hello.mpich &&
		srun -v --mpi=$MPI_TYPE --topo-map=dry-run --topo-profile=$SHARE/halo16.json $SHARE/hello"
	echo "$output" | grep topomap
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: probing 8 nodes with $SHARE/topomap-probe-mpich over --mpi=pmi2"* ]]
	[[ "$output" == *"topomap: probe done in"* ]]
	[ "$(grep -c '^rank=.* sum=120 ' <<<"$output")" -eq 32 ]
	# The second step reuses the job's netmap: no probe of its own.
	[ "$(grep -c 'topomap: probing' <<<"$output")" -eq 1 ]
	plugstack probe_mpich=/nonexistent/topomap-probe-mpich probe_ttl=0
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=pmi2 --topo-map --topo-profile=$SHARE/halo16.json $SHARE/hello.mpich"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[[ "$output" == *"srun's own placement: no netmap: the probe /nonexistent/topomap-probe-mpich: No such file or directory"* ]]
}

@test "a probe that takes more than two seconds says so, unasked, in one line; srun -v says it its own way" {
	local p
	for p in topomap-probe topomap-probe-mpich; do
		[ -x "$SHARE/$p" ] || continue
		printf '#!/bin/sh\nsleep 2\nexec %s "$@"\n' "$SHARE/$p" >"$SHARE/slow-$p"
		chmod 0755 "$SHARE/slow-$p"
	done
	plugstack probe=$SHARE/slow-topomap-probe probe_mpich=$SHARE/slow-topomap-probe-mpich
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map=dry-run --topo-profile=$SHARE/halo16.json $SHARE/hello"
	echo "$output" | grep topomap
	[ "$status" -eq 0 ]
	[ "$(grep -c '^srun: topomap: probing the network of 8 nodes before the step starts$' <<<"$output")" -eq 1 ]
	[[ "$output" == *"srun: topomap: dry run: "* ]]
	export XDG_CACHE_HOME=$SHARE/cache.$BATS_TEST_NUMBER.v
	run in_alloc -N8 --ntasks-per-node=2 -- "srun -v --mpi=$MPI_TYPE --topo-map=dry-run --topo-profile=$SHARE/halo16.json $SHARE/hello"
	[ "$status" -eq 0 ]
	! grep -q 'probing the network of' <<<"$output" || false
	grep -q '^srun: topomap: probing 8 nodes with ' <<<"$output"
}
