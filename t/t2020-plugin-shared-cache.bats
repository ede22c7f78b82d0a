#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A site cache (plugstack cache=DIR) shared by many users: user A must not
# be able to overwrite, hang or steer user B's srun through it.  Two
# unprivileged users made here run real jobs on the emulated cluster; every
# attack ends with B's step running, B's file untouched, and one line on
# B's terminal saying why the site cache was not used.

load lib/cluster
load lib/plugin
load lib/users

setup_file() {
	need_cluster
	two_users_add || return 1
	cluster_up --topology "$TOPOLOGIES/2sw-interleaved.topo"
	plugin_setup
}

teardown_file() {
	cluster_down
	two_users_del
}

teardown() {
	# a failed test of a mount on B's directory leaves none behind
	! mountpoint -q "$SITE/$BUID" 2>/dev/null || umount "$SITE/$BUID"
}

setup() {
	need_cluster
	SITE=$SHARE/site-cache.$BATS_TEST_NUMBER
	install -d -m 1777 -o root "$SITE"
	plugstack "cache=$SITE" cache_sticky=yes
	BUID=$(id -u $UB)
	BHOME=$(getent passwd $UB | cut -d: -f6)
	rm -rf "$BHOME/.cache"
	# B's file that no srun of B's may touch: as ~/.ssh/authorized_keys.
	runuser -u $UB -- sh -c "echo 'ssh-ed25519 AAAA precious' >'$BHOME/precious'"
}

# next_jobs N: the ids the next N jobs will get (nothing else runs here).
next_jobs() {
	local j
	j=$(sbatch --parsable -H --wrap=true) || return 1
	scancel "$j"
	seq $((j + 1)) $((j + $1))
}

# b_step [SRUN_ARGS]: B's placed step of 16 ranks on 8 nodes, in a new
# allocation; output in $output, status in $status.
b_step() {
	run runuser -u $UB -- salloc -Q -N8 --ntasks-per-node=2 bash -c \
		"cd && srun --mpi=$MPI_TYPE --topo-map --topo-profile=$SHARE/halo16.json $* $SHARE/hello"
	echo "$output"
}

# b_ran_once_warned: B's step ran whole, its one topomap line said the
# site cache was not used and why (the text given), B's file is intact.
b_ran_once_warned() {
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=.* sum=120 ' <<<"$output")" -eq 16 ]
	# (beside the line a slow probe may add: quiet_lines in lib/plugin.bash)
	[ "$(quiet_lines <<<"$output" | grep -c 'topomap')" -eq 1 ]
	grep -q "topomap: .*\[site cache not used: .*$1" <<<"$output"
	[ "$(cat "$BHOME/precious")" = 'ssh-ed25519 AAAA precious' ]
}

@test "B's own directory in a 1777 site cache: made 0700, used, nothing said" {
	b_step
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=.* sum=120 ' <<<"$output")" -eq 16 ]
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[[ "$output" != *"site cache"* ]]
	[ "$(stat -c '%u %a' "$SITE/$BUID")" = "$BUID 700" ]
	# The netmap, lock and log are B's alone; the plan is gone.
	[ "$(find "$SITE/$BUID" -type f ! -perm 0600 | wc -l)" -eq 0 ]
	[ "$(find "$SITE/$BUID" -type f -name 'job*.json' | wc -l)" -eq 1 ]
	[ "$(find "$SITE/$BUID" -name '*.hosts' | wc -l)" -eq 0 ]
}

@test "A's directory at B's name with a link to B's file at the plan's and the netmap's names" {
	local j
	as_a "mkdir -m 0777 $SITE/$BUID"
	# The names srun used to give: job<J>.json, job<J>.<pid>.hosts.
	for j in $(next_jobs 3); do
		as_a "ln -s $BHOME/precious $SITE/$BUID/job$j.json
			for p in \$(seq 300 400); do ln -s $BHOME/precious $SITE/$BUID/job$j.\$p.hosts; done"
	done
	b_step
	b_ran_once_warned "$SITE/$BUID: owned by uid $(id -u $UA), not $BUID"
	[[ "$output" == *"placed 16 ranks"* ]]
	# B's netmaps went to B's own cache instead.
	[ -d "$BHOME/.cache/topomap/netmaps" ]
}

@test "A's directory with a FIFO at the lock's name does not hang B" {
	local j
	as_a "mkdir -m 0777 $SITE/$BUID"
	for j in $(next_jobs 3); do
		as_a "mkfifo -m 0666 $SITE/$BUID/job$j.json.lock $SITE/$BUID/job$j.json.log"
	done
	SECONDS=0
	b_step
	b_ran_once_warned "owned by uid $(id -u $UA)"
	[ "$SECONDS" -lt 60 ]
}

@test "a foreign job<J>.json: B's step is not placed by A's netmap" {
	local j
	as_a "mkdir -m 0777 $SITE/$BUID"
	# A netmap of A's that would make every pair look alike (staged where
	# A can read it: the clone may be in root's home, mode 0700).
	install -m 0644 "$FIXTURES/net-2sw8.json" "$SHARE/net-2sw8.json"
	for j in $(next_jobs 3); do
		as_a "cp $SHARE/net-2sw8.json $SITE/$BUID/job$j.json && chmod 666 $SITE/$BUID/job$j.json"
	done
	b_step
	b_ran_once_warned "owned by uid $(id -u $UA)"
	[ "$(find "$BHOME/.cache/topomap/netmaps" -name 'job*.json' -user $UB | wc -l)" -eq 1 ]
}

@test "a lock A holds does not stall B's step" {
	local j pids=()
	as_a "mkdir -m 0777 $SITE/$BUID"
	for j in $(next_jobs 3); do
		as_a "touch $SITE/$BUID/job$j.json.lock && chmod 666 $SITE/$BUID/job$j.json.lock"
		runuser -u $UA -- flock "$SITE/$BUID/job$j.json.lock" sleep 120 &
		pids+=($!)
	done
	SECONDS=0
	b_step
	kill "${pids[@]}" 2>/dev/null
	pkill -u $UA -x sleep || true
	b_ran_once_warned "owned by uid $(id -u $UA)"
	[ "$SECONDS" -lt 25 ]
}

@test "in B's own directory, a link, a foreign netmap or a FIFO planted there is never used" {
	local j
	runuser -u $UB -- mkdir -m 0700 "$SITE/$BUID"
	# Root plants them: no other user can write there.
	j=$(next_jobs 1)
	ln -s "$BHOME/precious" "$SITE/$BUID/job$j.json"
	b_step
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[ ! -L "$SITE/$BUID/job$j.json" ]
	[ "$(stat -c %U "$SITE/$BUID/job$j.json")" = $UB ]
	[ "$(cat "$BHOME/precious")" = 'ssh-ed25519 AAAA precious' ]
	# A's netmap, fresh: ignored, measured again, replaced by B's.
	j=$(next_jobs 1)
	install -m 0644 -o $UA "$FIXTURES/net-2sw8.json" "$SITE/$BUID/job$j.json"
	b_step -v
	[ "$status" -eq 0 ]
	[[ "$output" == *"job$j.json: owned by uid $(id -u $UA), not $BUID"* ]]
	[[ "$output" == *"topomap: probing 8 nodes"* ]]
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[ "$(stat -c '%U %a' "$SITE/$BUID/job$j.json")" = "$UB 600" ]
	# A FIFO at the lock's name: srun's placement at once, one line.
	j=$(next_jobs 1)
	mkfifo -m 0666 "$SITE/$BUID/job$j.json.lock"
	chown $UB "$SITE/$BUID/job$j.json.lock"
	SECONDS=0
	b_step
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=.* sum=120 ' <<<"$output")" -eq 16 ]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[[ "$output" == *"srun's own placement: no netmap: $SITE/$BUID/job$j.json.lock: not a regular file"* ]]
	[ "$SECONDS" -lt 30 ]
	[ -p "$SITE/$BUID/job$j.json.lock" ]
}

@test "strict mode fails the step, naming the directory and the fault" {
	as_a "mkdir -m 0777 $SITE/$BUID"
	b_step --topo-map=strict
	[ "$status" -ne 0 ]
	[[ "$output" == *"topomap: the site cache: $SITE/$BUID: owned by uid $(id -u $UA), not $BUID (--topo-map=strict)"* ]]
	[ "$(grep -c '^rank=' <<<"$output")" -eq 0 ]
}

@test "a 1777 site cache without cache_sticky=yes is not used: nobody's squat counts" {
	plugstack "cache=$SITE"
	as_a "mkdir -m 0777 $SITE/$BUID"
	b_step
	b_ran_once_warned "cache=$SITE: $SITE: mode 1777: writable by others (a sticky cache lets any user take another's directory: cache_sticky=yes allows it, topomap-admin(7))"
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[ "$(find "$BHOME/.cache/topomap/netmaps" -name 'job*.json' -user $UB | wc -l)" -eq 1 ]
	# In the default mode, DIR root's and 0755, nobody can take B's name.
	chmod 0755 "$SITE"
	rmdir "$SITE/$BUID"
	run runuser -u $UA -- mkdir "$SITE/$BUID"
	[ "$status" -ne 0 ]
	SLURM_JOB_UID=$(id -u $UB) "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
	b_step
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[[ "$output" != *"site cache"* ]]
}

@test "a site cache B's own but writable by others is not used" {
	runuser -u $UB -- mkdir -m 0700 "$SITE/$BUID"
	chmod 0777 "$SITE/$BUID"
	b_step
	b_ran_once_warned "$SITE/$BUID: mode 0777: others may write it"
}

@test "a site cache DIR a user owns, or one not there, is not used" {
	chown $UA "$SITE"
	b_step
	b_ran_once_warned "cache=$SITE: $SITE: owned by uid $(id -u $UA), neither root nor $BUID"
	plugstack "cache=$SHARE/no-such-cache"
	b_step
	b_ran_once_warned "cache=$SHARE/no-such-cache: $SHARE/no-such-cache: No such file or directory"
}

@test "topomap-prolog makes B's directory in a root-only site cache; without it, B is told" {
	chmod 0755 "$SITE"
	b_step
	b_ran_once_warned "$SITE/$BUID: missing, and only root may make it"
	# As slurmd runs it: root, SLURM_JOB_UID set, DIR as its argument.
	SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
	[ "$(stat -c '%U %a' "$SITE/$BUID")" = "$UB 700" ]
	b_step
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[[ "$output" != *"site cache"* ]]
}

@test "topomap-prolog moves aside a directory that is not B's own, and refuses a 1777 DIR" {
	chmod 0755 "$SITE"
	mkdir -m 0777 "$SITE/$BUID"
	chown $UA "$SITE/$BUID"
	run env SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
	[ "$status" -eq 0 ]
	[[ "$output" == *"was not the user's own: moved to $SITE/.refused.$BUID."* ]]
	[ "$(stat -c '%U %a' "$SITE/$BUID")" = "$UB 700" ]
	# Half made by another node's prolog: root's, 0700.
	rmdir "$SITE/$BUID"
	mkdir -m 0700 "$SITE/$BUID"
	run env SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE/"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(stat -c '%U %a' "$SITE/$BUID")" = "$UB 700" ]
	[ "$(ls -a "$SITE" | grep -c refused)" -eq 1 ]
	chmod 1777 "$SITE"
	rmdir "$SITE/$BUID"
	run env SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$SITE: writable by others than root"* ]]
	[ ! -e "$SITE/$BUID" ]
	run env SLURM_JOB_UID='1;x' "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
	[ "$status" -eq 0 ]
	[[ "$output" == *"is not a uid"* ]]
}

# prolog_mode: DIR root's and 0755, B's directory made by topomap-prolog.
prolog_mode() {
	chmod 0755 "$SITE"
	plugstack "cache=$SITE" "$@"
	SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
}

@test "topomap-epilog removes the job's files as the user, and nothing else" {
	local j
	prolog_mode
	j=$(next_jobs 1)
	b_step
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[ -f "$SITE/$BUID/job$j.json" ]
	[ -f "$SITE/$BUID/job$j.json.lock" ]
	# Another job's netmap, and a link of B's at a name of this job's.
	runuser -u $UB -- sh -c "echo x >$SITE/$BUID/job1$j.json && ln -s $BHOME/precious $SITE/$BUID/job$j.precious.hosts"
	run env SLURM_JOB_ID=$j SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-epilog" "$SITE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(find "$SITE/$BUID" -name "job$j.*" -o -name ".job$j.*" | wc -l)" -eq 0 ]
	[ -f "$SITE/$BUID/job1$j.json" ]
	[ "$(cat "$BHOME/precious")" = 'ssh-ed25519 AAAA precious' ]
	# A DIR others may write, a bad id: nothing done, one line, exit 0.
	chmod 1777 "$SITE"
	run env SLURM_JOB_ID=1$j SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-epilog" "$SITE"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$SITE: writable by others than root"* ]]
	[ -f "$SITE/$BUID/job1$j.json" ]
	run env SLURM_JOB_ID='1;x' SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-epilog" "$SITE"
	[ "$status" -eq 0 ]
	[[ "$output" == *"is not a job id"* ]]
}

@test "root's profile import --site under A's directory, A racing to swap what it makes for a link: refused, nothing changed" {
	local apps=$SHARE/apps.$BATS_TEST_NUMBER victim=$SHARE/victim.$BATS_TEST_NUMBER racer
	install -d -m 0755 -o $UA "$apps"
	install -d -m 0700 -o root "$victim"
	printf '0,10\n10,0\n' >"$SHARE/m.$BATS_TEST_NUMBER.csv"
	# A, who may write the parent, swaps whatever directory appears there
	# for a link to root's 0700 directory, as fast as it can (before the
	# fix root made the directory by path and then chmod-ed it: 0755).
	runuser -u $UA -- timeout 60 bash -c "cd '$apps' && while :; do
		if [ -d profiles ] && [ ! -L profiles ]; then mv profiles x.\$RANDOM 2>/dev/null && ln -sfn '$victim' profiles; fi
	done" &
	racer=$!
	for _ in $(seq 20); do
		"$TOPOMAP_BUILDDIR/cli/topomap" profile import --exe /bin/true --site "$apps/profiles/site" \
			"$SHARE/m.$BATS_TEST_NUMBER.csv" >>"$BATS_TEST_TMPDIR/out" 2>&1 || echo "status $?" >>"$BATS_TEST_TMPDIR/out"
	done
	kill $racer
	wait $racer || true
	cat "$BATS_TEST_TMPDIR/out"
	# Root made nothing there nor through A's link (the old code did both
	# in each of 20 tries here), and changed no mode.
	[ "$(stat -c '%U %a' "$victim")" = "root 700" ]
	[ -z "$(find "$apps" "$victim" -mindepth 1 -user root)" ]
	# Each import was refused, saying why.
	[ "$(grep -c '^status 1$' "$BATS_TEST_TMPDIR/out")" -eq 20 ]
	[ "$(grep -c "^topomap: profile import: $apps/profiles/site: .*(srun --topo-map would not trust it)$" "$BATS_TEST_TMPDIR/out")" -eq 20 ]
}

@test "Slurm runs topomap-prolog and topomap-epilog as they are: DIR from the plugstack line" {
	local j conf=$TOPOMAP_CLUSTER_DIR/etc/slurm.conf
	chmod 0755 "$SITE"
	plugstack "cache=$SITE"
	# slurmd runs them on the nodes, which see the cluster's share;
	# PrologFlags=Alloc: the prolog runs at the allocation, before srun's
	# plugin looks at the site cache.
	stage "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$TOPOMAP_SRCDIR/contrib/topomap-epilog"
	printf 'Prolog=%s\nEpilog=%s\nPrologFlags=Alloc\n' "$SHARE/topomap-prolog" "$SHARE/topomap-epilog" >>"$conf"
	scontrol reconfigure
	sleep 2
	j=$(next_jobs 1)
	b_step
	# The epilogs (one a node, after the job) removed the job's files.
	# Slurm's own configuration back only once they have all ended: a
	# reconfigure interrupts a running epilog, which drains its node
	# (22.05: "epilog poll: Interrupted system call").
	for _ in $(seq 20); do
		[ "$(find "$SITE/$BUID" -name "job$j.*" | wc -l)" -eq 0 ] &&
			[ -z "$(squeue -h -t CG -j "$j" 2>/dev/null)" ] && break
		sleep 1
	done
	sed -i '/^Prolog=/d; /^Epilog=/d; /^PrologFlags=/d' "$conf"
	scontrol reconfigure
	[ "$(find "$SITE/$BUID" -name "job$j.*" | wc -l)" -eq 0 ]
	# The prolog made B's directory in the root-only DIR; B's step used it.
	[[ "$output" == *"topomap: placed 16 ranks"* ]]
	[[ "$output" != *"site cache"* ]]
	[ "$(stat -c '%u %a' "$SITE/$BUID")" = "$BUID 700" ]
	# Run by hand as Slurm runs them: no DIR but SLURM_CONF's plugstack.
	rm -rf "${SITE:?}/$BUID"
	run env SLURM_JOB_UID=$BUID "$SHARE/topomap-prolog"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(stat -c '%u %a' "$SITE/$BUID")" = "$BUID 700" ]
	# A plugstack line without cache=: no site cache, nothing to do.
	rm -rf "${SITE:?}/$BUID"
	plugstack
	run env SLURM_JOB_UID=$BUID "$SHARE/topomap-prolog"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ ! -e "$SITE/$BUID" ]
	# A plugstack others may write is not read: one line, nothing done.
	plugstack "cache=$SITE"
	chmod 0666 "$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf"
	run env SLURM_JOB_UID=$BUID "$SHARE/topomap-prolog"
	chmod 0644 "$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf"
	[ "$status" -eq 0 ]
	[ "$output" = "topomap-prolog: $TOPOMAP_CLUSTER_DIR/etc/plugstack.conf: writable by others than root: not read" ]
	[ ! -e "$SITE/$BUID" ]
}

@test "topomap-epilog cannot be held by the user: a stopped removal is killed after 10 s, and it exits 0" {
	local d=$SITE/$BUID try stopper
	prolog_mode
	runuser -u $UB -- sh -c "cd $d && seq 100000 | sed 's/^/f/' | xargs touch"
	# B stops its own find, as B's other job or login could.  find reads
	# 100 000 names in a tenth of a second or so, and the stopper may miss
	# it: then the epilog runs again.  The stopper runs before the epilog
	# starts, and 30 s at most: one that missed its find ends.
	for try in 1 2 3; do
		runuser -u $UB -- sh -c "echo x >$d/job7.json"
		runuser -u $UB -- timeout 30 bash -c "until pkill -STOP -u $UB -x find; do :; done; touch $d/stopped" &
		stopper=$!
		until pgrep -u $UB -f 'until pkill' >/dev/null; do
			kill -0 "$stopper" 2>/dev/null || break
			sleep 0.05
		done
		SECONDS=0
		run timeout 60 env SLURM_JOB_ID=7 SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-epilog" "$SITE"
		pkill -KILL -u $UB -f 'until pkill' || true
		kill -KILL "$stopper" 2>/dev/null || true
		wait "$stopper" || true
		# (a find held there, before this test passed, is not left stopped)
		pkill -KILL -u $UB -x find || true
		echo "try $try: $output ($SECONDS s)"
		[ ! -e "$d/stopped" ] || break
	done
	[ -e "$d/stopped" ]
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap-epilog: $d: the removal of job 7's files was killed (stopped, slower than 10 s, or killed by the user): left to the user's next job"* ]]
	[ "$SECONDS" -lt 20 ]
	rm -rf "$d"
}

@test "topomap-prolog and topomap-epilog do not look into a file system mounted on the user's directory" {
	local d=$SITE/$BUID
	prolog_mode
	# A mount on B's directory, as a FUSE mount of B's would be (its
	# server B's, able to hold any look of root's into it).
	mount -t tmpfs -o size=1m,mode=0700 tmpfs "$d"
	chown $UB "$d"
	run env SLURM_JOB_ID=7 SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-epilog" "$SITE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "topomap-epilog: $d: a file system is mounted on it or below it: not looked at" ]
	run env SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SITE"
	echo "$output"
	umount "$d"
	[ "$status" -eq 0 ]
	[ "$output" = "topomap-prolog: $d: a file system is mounted on it or below it: not looked at" ]
}

@test "a job's first step removes ended jobs' old files, never a running job's" {
	local run_job
	prolog_mode
	runuser -u $UB -- sh -c "cd $SITE/$BUID && for f in job999999.json job999999.json.lock job999999.json.log .job999999.json.probe.AbC123; do echo x >\$f; done"
	run_job=$(runuser -u $UB -- sbatch --parsable -D / -N1 -o /dev/null --wrap 'sleep 300')
	runuser -u $UB -- sh -c "echo x >$SITE/$BUID/job$run_job.json"
	touch -d '2 hours ago' "$SITE/$BUID"/job* "$SITE/$BUID"/.job*
	squeue -h -j "$run_job" -o %T | grep -qE 'PENDING|CONFIGURING|RUNNING'
	b_step -v
	scancel "$run_job"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap: $SITE/$BUID: removed 4 files of finished jobs"* ]]
	[ ! -e "$SITE/$BUID/job999999.json" ]
	[ ! -e "$SITE/$BUID/.job999999.json.probe.AbC123" ]
	[ -f "$SITE/$BUID/job$run_job.json" ]
}

@test "the bounds of a user's directory: a new job that would pass them keeps srun's layout, one line" {
	local run_job
	prolog_mode cache_max_files=3
	run_job=$(runuser -u $UB -- sbatch --parsable -D / -N1 -o /dev/null --wrap 'sleep 300')
	runuser -u $UB -- sh -c "echo x >$SITE/$BUID/job$run_job.json"
	b_step
	scancel "$run_job"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=.* sum=120 ' <<<"$output")" -eq 16 ]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[[ "$output" == *"srun's own placement: no netmap: $SITE/$BUID holds 1 files of 0 MiB, the bound is 3 files of 1024 MiB (cache_max_files, cache_max_mib): no room for this job's netmap"* ]]
	[ "$(ls -A "$SITE/$BUID" | wc -l)" -eq 1 ]
}

@test "topomap-prolog and topomap-epilog refuse a DIR under a parent others may write or own" {
	local parent=$SHARE/open.$BATS_TEST_NUMBER
	install -d -m 0777 "$parent"
	install -d -m 0755 "$parent/cache"
	run env SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$parent/cache"
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap-prolog: $parent: writable by others than root"* ]]
	[ ! -e "$parent/cache/$BUID" ]
	chmod 0755 "$parent"
	chown $UA "$parent"
	run env SLURM_JOB_UID=$BUID SLURM_JOB_ID=7 "$TOPOMAP_SRCDIR/contrib/topomap-epilog" "$parent/cache"
	[[ "$output" == *"topomap-epilog: $parent: not owned by root"* ]]
	# Through a link of A's to a good directory: the link is refused.
	chown root "$parent"
	ln -s "$parent/cache" "$SHARE/link.$BATS_TEST_NUMBER"
	chown -h $UA "$SHARE/link.$BATS_TEST_NUMBER"
	run env SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$SHARE/link.$BATS_TEST_NUMBER/"
	[[ "$output" == *"not a directory"* || "$output" == *"not owned by root"* ]]
	[ ! -e "$parent/cache/$BUID" ]
	SLURM_JOB_UID=$BUID "$TOPOMAP_SRCDIR/contrib/topomap-prolog" "$parent/cache"
	[ "$(stat -c '%U %a' "$parent/cache/$BUID")" = "$UB 700" ]
	rm -rf "$parent" "$SHARE/link.$BATS_TEST_NUMBER"
}

@test "a probe, recorder or site profile path others may write is refused, named" {
	install -d -m 0777 "$SHARE/open"
	install -m 0755 "$SHARE/$MPI_PROBE" "$SHARE/open/$MPI_PROBE"
	plugstack "cache=$SITE" cache_sticky=yes "probe=$SHARE/open/$MPI_PROBE" "probe_mpich=$SHARE/open/$MPI_PROBE"
	b_step
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=.* sum=120 ' <<<"$output")" -eq 16 ]
	[ "$(quiet_lines <<<"$output" | grep -c topomap)" -eq 1 ]
	[[ "$output" == *"srun's own placement: no netmap: the probe $SHARE/open/$MPI_PROBE is not safe to run: $SHARE/open: mode 0777: writable by others"* ]]
	plugstack "cache=$SITE" cache_sticky=yes "site_profiles=$SHARE/open"
	run runuser -u $UB -- salloc -Q -N2 --ntasks-per-node=1 bash -c \
		"cd && srun --mpi=$MPI_TYPE --topo-map --topo-profile=nosuch $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"site_profiles=$SHARE/open is not safe to read: $SHARE/open: mode 0777"* ]]
	plugstack "cache=$SITE" cache_sticky=yes "recorder_dir=$SHARE/open"
	cp "$SHARE"/topomap-recorder-*.so "$SHARE/open/"
	run runuser -u $UB -- salloc -Q -N2 --ntasks-per-node=1 bash -c \
		"cd && srun --mpi=$MPI_TYPE --topo-map --topo-profile=record $SHARE/hello"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^rank=' <<<"$output")" -eq 2 ]
	[[ "$output" == *"recorder_dir=$SHARE/open is not safe to load: $SHARE/open"* ]]
	rm -rf "$SHARE/open"
}
