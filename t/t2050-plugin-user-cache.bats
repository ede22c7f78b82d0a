#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The user's own cache and the site's inputs, attacked by another user of
# the same cluster (issue 43's reproductions): A shares a group with B and
# plants profiles where B's srun would read them.  Every attack ends with
# B's step running (placed or in srun's layout) with one line saying why,
# nothing of A's used and no file of B's touched.

load lib/cluster
load lib/plugin
load lib/users

GROUP=topomap-tg

setup_file() {
	need_cluster
	two_users_add $GROUP || return 1
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	plugin_setup
}

teardown_file() {
	cluster_down
	two_users_del $GROUP
}

setup() {
	need_cluster
	plugstack
	BHOME=$(getent passwd $UB | cut -d: -f6)
	AHOME=$(getent passwd $UA | cut -d: -f6)
	rm -rf "$BHOME/.cache" "$AHOME/evil"
	chmod 0750 "$BHOME"
	chgrp $GROUP "$BHOME"
	runuser -u $UB -- sh -c "echo 'ssh-ed25519 AAAA precious' >'$BHOME/precious'"
	# A's profile: every rank talks to rank 0 only, nothing like B's halo.
	printf '0,1,1\n1,0,1\n' >"$BATS_TEST_TMPDIR/star.csv"
}

# b_step [SRUN_ARGS]: B's step of 16 ranks on 8 nodes, in a new allocation.
b_step() {
	run runuser -u $UB -- salloc -Q -N8 --ntasks-per-node=2 bash -c \
		"cd && srun --mpi=$MPI_TYPE --topo-map $* $SHARE/hello"
	echo "$output"
}

# b_ran_in_sruns_layout TEXT: B's step ran whole in srun's own layout, its
# one topomap line naming TEXT; B's file intact.
b_ran_in_sruns_layout() {
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=.* sum=120 ' <<<"$output")" -eq 16 ]
	# (beside the line a slow probe may add: quiet_lines in lib/plugin.bash)
	[ "$(quiet_lines <<<"$output" | grep -c 'topomap')" -eq 1 ]
	grep -q "topomap: srun's own placement: .*$1" <<<"$output"
	[ "$(cat "$BHOME/precious")" = 'ssh-ed25519 AAAA precious' ]
}

# plant_profile DIR [NAME]: A's profile for hello's 16 ranks in DIR, under
# the cache's key or as NAME.json.
plant_profile() {
	if [ -n "${2:-}" ]; then
		"$TOPOMAP" profile import --exe "$SHARE/hello" -o "$1/$2.json" "$FIXTURES/halo2d-16.json"
	else
		# Filed in a cache of root's, then moved: import refuses DIR
		# itself where srun would not trust it (another's directory).
		local tmp file
		tmp=$(mktemp -d) &&
			file=$("$TOPOMAP" profile import --exe "$SHARE/hello" --cache "$tmp/c" "$FIXTURES/halo2d-16.json") &&
			mv "$file" "$1/" && rm -rf "$tmp"
	fi
}

@test "a group member's link swapped in above B's cache: B's srun does not follow it" {
	# B's ~/.cache is group-writable: A moves B's topomap aside and links
	# his own in its place, a profile of his for B's program in it.
	runuser -u $UB -- mkdir -p "$BHOME/.cache/topomap/profiles"
	chmod 0775 "$BHOME/.cache"
	chgrp $GROUP "$BHOME/.cache"
	as_a "mkdir -p $AHOME/evil/profiles && chmod -R 0755 $AHOME/evil"
	plant_profile "$AHOME/evil/profiles"
	chown -R $UA "$AHOME/evil"
	as_a "mv $BHOME/.cache/topomap $BHOME/.cache/aside && ln -s $AHOME/evil $BHOME/.cache/topomap"
	b_step
	b_ran_in_sruns_layout "$BHOME/.cache/topomap/profiles: .cache: mode 0775: writable by its group"
	[[ "$output" != *"placed"* ]]
	# Nothing written through the link: A's directory holds only his file.
	[ "$(find "$AHOME/evil" -type f | wc -l)" -eq 1 ]
	# B's own link to a directory of his is followed.
	rm "$BHOME/.cache/topomap"
	chmod 0755 "$BHOME/.cache"
	runuser -u $UB -- ln -s "$BHOME/.cache/aside" "$BHOME/.cache/topomap"
	b_step -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: no profile of $SHARE/hello for 16 tasks yet: recording one"* ]]
	[[ "$output" == *"topomap: recorded the profile of $SHARE/hello for 16 tasks: $BHOME/.cache/topomap/profiles/"* ]]
	[ "$(find "$BHOME/.cache/aside/profiles" -name '*.n16.json' -user $UB -perm 0600 | wc -l)" -eq 1 ]
	# ... and no recording is left behind, filed or not.
	[ "$(find "$BHOME/.cache/aside/profiles" -name '.record-*' | wc -l)" -eq 0 ]
}

@test "a profile planted under --topo-profile=NAME in a group-writable cache is not read" {
	runuser -u $UB -- mkdir -p "$BHOME/.cache/topomap/profiles"
	chmod 0775 "$BHOME/.cache/topomap/profiles"
	chgrp $GROUP "$BHOME/.cache/topomap/profiles"
	plant_profile "$BATS_TEST_TMPDIR" solver
	as_a "cat >$BHOME/.cache/topomap/profiles/solver.json" <"$BATS_TEST_TMPDIR/solver.json"
	b_step --topo-profile=solver
	b_ran_in_sruns_layout "profiles: mode 0775: writable by its group"
	# Strict: the step fails, naming the directory and the fault.
	b_step --topo-map=strict --topo-profile=solver
	[ "$status" -ne 0 ]
	[[ "$output" == *"profiles: mode 0775: writable by its group"* ]]
	[ "$(grep -c '^rank=' <<<"$output")" -eq 0 ]
}

@test "a profile file of another user in B's private cache is not read" {
	runuser -u $UB -- mkdir -p "$BHOME/.cache/topomap/profiles"
	plant_profile "$BATS_TEST_TMPDIR" solver
	# Root plants it: nobody else can write there.
	install -m 0644 -o $UA "$BATS_TEST_TMPDIR/solver.json" "$BHOME/.cache/topomap/profiles/solver.json"
	b_step --topo-profile=solver
	b_ran_in_sruns_layout "solver.json: owned by uid $(id -u $UA), not $(id -u $UB)"
}

@test "a site profile others may write is ignored, and -v says why; a good one is used" {
	local site=$SHARE/site-profiles.$BATS_TEST_NUMBER
	install -d -m 0755 "$site"
	plant_profile "$site" solver
	plant_profile "$site"
	chmod 0666 "$site/solver.json" "$site"/*.n16.json
	plugstack "site_profiles=$site"
	b_step --topo-profile=solver
	b_ran_in_sruns_layout "$site/solver.json: mode 0666: writable by others"
	# The cache's lookup: ignored, said under -v, and B records its own.
	b_step -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"$site/"*".n16.json: mode 0666: writable by others (ignored)"* ]]
	[[ "$output" == *"no profile of $SHARE/hello for 16 tasks yet: recording one"* ]]
	chmod 0644 "$site/solver.json"
	b_step -v --topo-profile=solver
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	rm -rf "$site"
}

@test "a topology= file others may write is not read: the step is probed" {
	install -d -m 0777 "$SHARE/open"
	printf '%s\n' 'SwitchName=s1 Nodes=n[1,3,5,7]' 'SwitchName=s2 Nodes=n[2,4,6,8]' \
		'SwitchName=s0 Switches=s[1-2]' >"$SHARE/open/topology.conf"
	plugstack "topology=$SHARE/open/topology.conf"
	b_step -v --topo-profile=$SHARE/halo16.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: topology=$SHARE/open/topology.conf not used: $SHARE/open/topology.conf is not safe to read: $SHARE/open: mode 0777: writable by others; probing every pair"* ]]
	[[ "$output" == *"topomap: probing 8 nodes"* ]]
	rm -rf "$SHARE/open"
}
