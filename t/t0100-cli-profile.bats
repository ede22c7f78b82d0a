#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# topomap profile import|list|show|export|rm and topomap recorder, on files
# made here: no cluster.

# Tagged once: no cluster, and the same sources on every generation; each
# root's unit tests cover lib/ against its own libraries (t/check-generations).

# bats file_tags=once

: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${TOPOMAP_BUILDDIR:=$TOPOMAP_SRCDIR}"
TOPOMAP=$TOPOMAP_BUILDDIR/cli/topomap
RING=$TOPOMAP_BUILDDIR/t/mpi/ring

setup() {
	D=$(mktemp -d)
	export XDG_CACHE_HOME=$D/xdg
	printf '0,10,0\n10,0,5\n0,5,0\n' >"$D/m.csv"
}

teardown() {
	rm -rf "$D"
}

@test "a matrix imported for an executable lands in the user's cache" {
	# RECORDED is the profile's time (the matrix file's), not the filing's.
	touch -d 2020-01-02T03:04:05Z "$D/m.csv"
	run "$TOPOMAP" profile import --exe "$RING" "$D/m.csv"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "$D/xdg/topomap/profiles/build-id-"*".n3.json" ]]
	[ "$(stat -c %a "$output")" = 600 ]
	[ "$(stat -c %a "$D/xdg/topomap/profiles")" = 700 ]
	run "$TOPOMAP" profile list
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "3 "*"$RING" ]]
	[[ "${lines[1]}" == "3      2020-01-02T03:04:05Z  "* ]]
}

@test "a cache srun --topo-map would refuse is used with a warning that says why" {
	mkdir -p "$D/xdg/topomap/profiles"
	chmod 0777 "$D/xdg/topomap/profiles"
	run "$TOPOMAP" profile list
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "topomap: profile list: warning: srun --topo-map will not use this cache: $D/xdg/topomap/profiles: profiles: mode 0777: writable by others" ]
	chmod 0700 "$D/xdg/topomap/profiles"
	run "$TOPOMAP" profile list
	[ "$output" = "TASKS  RECORDED              FILE  EXECUTABLE" ]
}

@test "a profile published with --site is readable by every user: 0755 directories, 0644 file" {
	umask 077
	run "$TOPOMAP" profile import --exe "$RING" --site "$D/site/profiles" "$D/m.csv"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "$D/site/profiles/build-id-"*".n3.json" ]]
	[ "$(stat -c %a "$output")" = 644 ]
	[ "$(stat -c %a "$D/site/profiles")" = 755 ]
	[ "$(stat -c %a "$D/site")" = 755 ]
	run "$TOPOMAP" profile list --site "$D/site/profiles"
	[[ "$output" == *"$RING"* ]]
	run "$TOPOMAP" profile import --exe "$RING" --site "$D/site" --cache "$D/c" "$D/m.csv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--cache, --site and -o exclude each other"* ]]
}

@test "--site and --cache refuse, saying why, a directory srun --topo-map would not trust" {
	mkdir -p "$D/apps"
	chmod 0777 "$D/apps"
	run "$TOPOMAP" profile import --exe "$RING" --site "$D/apps/profiles" "$D/m.csv"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "topomap: profile import: $D/apps/profiles: apps: mode 0777: writable by others (srun --topo-map would not trust it)" ]
	[ ! -e "$D/apps/profiles" ]
	run "$TOPOMAP" profile import --exe "$RING" --cache "$D/apps/cache" "$D/m.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"apps: mode 0777: writable by others (srun --topo-map would not trust it)" ]]
}

@test "export gives back the imported matrix" {
	"$TOPOMAP" profile import -o "$D/p.json" "$D/m.csv"
	run "$TOPOMAP" profile export "$D/p.json"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$D/m.csv")" ]
	run "$TOPOMAP" profile export --what msgs "$D/p.json"
	[ "$output" = $'0,1,0\n1,0,1\n0,1,0' ]
}

@test "show names the heaviest pair" {
	"$TOPOMAP" profile import -o "$D/p.json" "$D/m.csv"
	run "$TOPOMAP" profile show --top 1 "$D/p.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 -> 1"* ]]
	[[ "$output" != *"1 -> 2"* ]]
	# A matrix of bytes has no message counts: the ones assumed are said so.
	grep -qx "  messages      [0-9]* (not in the file: one a talking pair assumed)" <<<"$output"
	[[ "$output" != *"per message"* ]]
}

@test "Open MPI monitoring output is imported from its E lines" {
	printf 'I\t0\t1\t100 bytes\t1 msgs sent\nE\t0\t1\t64 bytes\t2 msgs sent\nE\t1\t0\t32 bytes\t1 msgs sent\n' >"$D/prof.0.prof"
	run "$TOPOMAP" profile import -o "$D/p.json" "$D/prof.0.prof"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$TOPOMAP" profile export "$D/p.json"
	[ "$output" = $'0,64\n32,0' ]
}

@test "a foreign file without --exe is refused for the cache, naming the fix" {
	run "$TOPOMAP" profile import "$D/m.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"m.csv: no executable identity: say whose profile it is with --exe EXE" ]]
	[ ! -e "$D/xdg/topomap/profiles" ] || [ -z "$(ls -A "$D/xdg/topomap/profiles")" ]
}

@test "bad input is named: ragged matrix, unknown format, missing file" {
	printf '0,1\n1\n' >"$D/bad.csv"
	run "$TOPOMAP" profile import -o "$D/p.json" "$D/bad.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad.csv:2"* ]]
	[ ! -e "$D/p.json" ]
	run "$TOPOMAP" profile import --format nope -o "$D/p.json" "$D/m.csv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--format"* ]]
	run "$TOPOMAP" profile show "$D/none.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"none.json: No such file or directory" ]]
	# A recorder's profile cut short is JSON's fault, not a matrix's.
	printf '0,5\n5,0\n' >"$D/two.csv"
	"$TOPOMAP" profile import -o "$D/two.json" "$D/two.csv"
	head -c 100 "$D/two.json" >"$D/cut.json"
	run "$TOPOMAP" profile import -o "$D/p.json" "$D/cut.json"
	[ "$status" -eq 1 ]
	[[ "$output" == "topomap: profile import: $D/cut.json: not valid JSON: truncated at line "* ]]
	[ ! -e "$D/p.json" ]
	# Figures beyond any link's: refused with the bound.
	printf 'SwitchName=s1 Nodes=n[1-2]\n#topomap level=1 latency_us=10 bandwidth_MBps=1e308\n' >"$D/big.conf"
	run "$TOPOMAP" netmap import -o "$D/big.json" "$D/big.conf"
	[ "$status" -eq 1 ]
	[ "$output" = "topomap: netmap import: $D/big.conf:2: bandwidth_MBps=1e308: not a number above 0 and at most 1e+07" ]
}

@test "a corrupt cached profile is listed as invalid, not fatal" {
	"$TOPOMAP" profile import --exe "$RING" "$D/m.csv" >/dev/null
	f=$(ls "$D"/xdg/topomap/profiles/*.json)
	echo '{"kind": "topomap-profile", "schema": 1' >"$f"
	run "$TOPOMAP" profile list
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"invalid: "* ]]
}

@test "--json lists every file for scripts, the invalid with its reason; --noheader drops the header" {
	touch -d 2020-01-02T03:04:05Z "$D/m.csv"
	f=$("$TOPOMAP" profile import --exe "$RING" "$D/m.csv")
	echo '{' >"$D/xdg/topomap/profiles/broken.json"
	run "$TOPOMAP" profile list --json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq length <<<"$output")" -eq 2 ]
	jq -e --arg f "$f" --arg exe "$RING" --argjson size "$(stat -c %s "$f")" \
		'.[] | select(.file == $f) | .valid and .invalid == null and .tasks == 3 and
		.executable == $exe and (.exe_id | startswith("build-id:")) and .bytes == $size and
		.recorded == "2020-01-02T03:04:05Z"' <<<"$output"
	jq -e '.[] | select(.file | endswith("/broken.json")) | (.valid | not) and
		(.invalid | length > 0) and .tasks == null and .recorded == null' <<<"$output"
	# The same files as the text, which --noheader gives without its header.
	run "$TOPOMAP" profile list --noheader
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"/broken.json  invalid: "* ]]
	[[ "${lines[1]}" == "3      2020-01-02T03:04:05Z  $f  $RING" ]]
	run "$TOPOMAP" profile list --noheader --json
	[ "$status" -eq 2 ]
	[[ "$output" == "topomap: profile list: --json has no header to leave out"* ]]
	# An empty cache is an empty array.
	run "$TOPOMAP" profile list --json --cache "$D/none"
	[ "$status" -eq 0 ]
	[ "$(jq -c . <<<"$output")" = "[]" ]
}

@test "show --json: the text's figures, the heaviest pairs and the runs srun saw" {
	f=$("$TOPOMAP" profile import --exe "$RING" "$D/m.csv")
	run "$TOPOMAP" profile show --json --top 2 "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	jq -e --arg exe "$RING" '.schema == 1 and .ntasks == 3 and .executable == $exe and
		.source == "import:csv" and .total_bytes == 30 and .pairs == 4 and .check == null and
		.heaviest == [{"from": 0, "to": 1, "bytes": 10, "msgs": 1}, {"from": 1, "to": 0, "bytes": 10, "msgs": 1}] and
		.runs == {"kept": 0, "recorded": 0, "srun": 0, "placed": 0, "like_latest": null}' <<<"$output"
	# The runs beside it, as the plugin keeps them: two recordings, then
	# two placed and two under srun's layout.
	h=${f%.json}.runs
	run_at() { printf '{"time": "2026-12-02T01:00:0%dZ", "layout": "%s", "elapsed_s": %s, "args": "0123456789abcdef"}' "$@"; }
	printf '{"schema": 2, "runs": [%s, %s, %s, %s, %s, %s]}\n' "$(run_at 1 recorded 3.0)" "$(run_at 2 recorded 3.1)" \
		"$(run_at 3 plan 1.0)" "$(run_at 4 srun 2.0)" "$(run_at 5 plan 1.1)" "$(run_at 6 srun 2.2)" >"$h"
	chmod 600 "$h"
	text=$("$TOPOMAP" profile show "$f")
	run "$TOPOMAP" profile show --json "$f"
	[ "$status" -eq 0 ]
	[[ "$text" == *"runs: 6 kept, 2 recorded, 2 under srun's layout, 2 placed"* ]]
	jq -e '.runs.kept == 6 and .runs.recorded == 2 and .runs.srun == 2 and .runs.placed == 2 and
		.runs.like_latest.placed == 2 and .runs.like_latest.srun == 2 and
		.runs.like_latest.keep_srun == false' <<<"$output"
	[ "$(sed -n 's/^like the latest: placed \([0-9.]*\) s against srun.s layout \([0-9.]*\) s .*speedup \([0-9.]*\)x$/\1 \2 \3/p' <<<"$text")" = \
		"$(jq -r '.runs.like_latest | "\(.placed_s * 1000 | round / 1000) \(.srun_s * 1000 | round / 1000) \(.speedup * 100 | round / 100)"' <<<"$output" |
			awk '{ printf "%.3f %.3f %.2f\n", $1, $2, $3 }')" ]
	# A history that cannot be read is said on standard error, the
	# profile still shown.
	echo '{' >"$h"
	run "$TOPOMAP" profile show --json "$f"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "topomap: profile show: runs not read: "* ]]
}

@test "rm by executable removes its profiles, and says when none matched" {
	"$TOPOMAP" profile import --exe "$RING" "$D/m.csv" >/dev/null
	run "$TOPOMAP" profile rm "$RING"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$D/xdg/topomap/profiles")" ]
	run "$TOPOMAP" profile rm "$RING"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no profile of build-id:"* ]]
}

@test "topomap recorder refuses a program without MPI and a missing recorder" {
	run "$TOPOMAP" recorder --libdir "$D" /bin/true
	[ "$status" -eq 1 ]
	[[ "$output" == *"/bin/true: links no MPI library"* ]]
	run "$TOPOMAP" recorder --libdir "$D" "$RING"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$D/topomap-recorder-openmpi.so: no openmpi recorder for $RING"* ]]
}

@test "unknown commands and missing operands are usage errors" {
	run "$TOPOMAP" profile frob
	[ "$status" -eq 2 ]
	run "$TOPOMAP" profile show
	[ "$status" -eq 2 ]
	run "$TOPOMAP" recorder
	[ "$status" -eq 2 ]
}

@test "--help after a command prints that command's help, every option of its own named, and exits 0" {
	local cmd opt
	# Each command and its options, as cli/topomap.c's getopt tables have them.
	while IFS=: read -r cmd opts; do
		run $TOPOMAP $cmd --help
		echo "== $cmd"
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "Usage: topomap $cmd"* ]]
		[ "${lines[-1]}" = "See topomap(1)." ]
		for opt in $opts; do
			grep -q -- "^ *\(-[A-Za-z], \)\?$opt\b" <<<"$output" || { echo "no $opt"; return 1; }
		done
	done <<'EOF2'
netmap show:--matrices --json
netmap draw:--output
netmap export:--format --output
netmap import:--hosts --output
profile show:--top --json
profile export:--what
profile import:--format --exe --cache --site --output
profile list:--cache --site --noheader --json
profile rm:--cache --ntasks
profile draw:--output
plan:--profile --netmap --slots --metric --format --output --explain --json --svg --price --verbose
recorder:--libdir
EOF2
	# A group or an unknown command: the whole usage.
	for cmd in "profile" "netmap" "profile bogus"; do
		run $TOPOMAP $cmd --help
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "Usage: topomap netmap show [--matrices | --json] FILE"* ]]
	done
	# A "--help" after "--" is an operand.
	run "$TOPOMAP" profile show -- --help
	[ "$status" -eq 1 ]
	[[ "$output" == *"--help"* ]]
}

@test "an unknown option or one without its value: one line naming the command and the option, exit 2" {
	local cmd args want
	while IFS='|' read -r cmd args want; do
		run $TOPOMAP $cmd $args
		echo "$cmd $args: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[ "$output" = "topomap: $cmd: $want (see 'topomap $cmd --help')" ]
	done <<'EOF2'
profile show|--bogus x|--bogus: unknown option
profile show|-q x|-q: unknown option
plan|-m|-m: needs a value
plan|--profile|--profile: needs a value
netmap show|--bogus|--bogus: unknown option
netmap draw|--x=1 f|--x: unknown option
netmap export|--output|--output: needs a value
netmap import|-H|-H: needs a value
profile import|--cache|--cache: needs a value
profile list|--nope|--nope: unknown option
profile rm|-n|-n: needs a value
profile export|-z f|-z: unknown option
recorder|-L|-L: needs a value
EOF2
}

@test "--version names the Slurm release and the MPIs this topomap was built for" {
	run "$TOPOMAP" --version
	echo "$output"
	[ "$status" -eq 0 ]
	local slurm
	slurm=$(sed -n 's/^SLURM_VERSION_STR = //p' "$TOPOMAP_BUILDDIR/Makefile")
	[[ "$output" == "topomap "*", built for Slurm $slurm"* ]]
	if [ -x "$TOPOMAP_BUILDDIR/probe/topomap-probe" ]; then
		[[ "$output" == *", Open MPI $(pkg-config --modversion ompi-c)"* ]]
	fi
	if [ -x "$TOPOMAP_BUILDDIR/probe/mpich/topomap-probe-mpich" ]; then
		[[ "$output" == *", MPICH $(pkg-config --modversion mpich)"* ]]
	fi
}
