#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Every reader of the CLI (topomap(1), INPUT): a FILE of - is standard
# input, and a bad file gives exactly one line "topomap: CMD: FILE[:LINE]:
# fault" and exit status 1, writing nothing; a bad option value exits 2.
# No cluster.  Tagged once but the usage errors, where libslurm's own
# complaint about a host list, each generation's, is part of the line.

: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${TOPOMAP_BUILDDIR:=$TOPOMAP_SRCDIR}"
TOPOMAP=$TOPOMAP_BUILDDIR/cli/topomap
NET=$TOPOMAP_SRCDIR/t/fixtures/net-2sw8.json
HALO=$TOPOMAP_SRCDIR/t/fixtures/halo2d-16.json
CONF=$TOPOMAP_SRCDIR/t/fixtures/topology-3level.conf

setup() {
	D=$(mktemp -d)
	"$TOPOMAP" plan -p "$HALO" -N "$NET" -o "$D/plan.hostfile"
	printf '0,5\n5,0\n' >"$D/two.csv"
	# A netmap with a switch tree, as export needs.
	"$TOPOMAP" netmap import -o "$D/tree.json" "$CONF"
}

teardown() {
	rm -rf "$D"
}

# readers KIND: each command reading a KIND (profile, netmap, conf,
# hostfile), @F@ standing for the file, one a line: "CMD|ARGS".
readers() {
	case $1 in
	profile)
		echo "profile show|@F@"
		echo "profile export|@F@"
		echo "profile draw|-o $D/out.svg @F@"
		echo "profile import|-o $D/out.json @F@"
		echo "plan|-p @F@ -N $NET -o $D/out.plan"
		;;
	netmap)
		echo "netmap show|@F@"
		echo "netmap draw|-o $D/out.svg @F@"
		echo "netmap export|-o $D/out.conf @F@"
		echo "plan|-p $HALO -N @F@ -o $D/out.plan"
		;;
	conf) echo "netmap import|-o $D/out.json @F@" ;;
	hostfile) echo "plan|-p $HALO -N $NET --explain --price mine=@F@ -o $D/out.plan" ;;
	esac
}

# one_line CMD FILE: the last run failed with status 1 and said exactly one
# line in the documented form, and left no output behind.
one_line() {
	echo "$1 on $2: status $status: $output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "topomap: $1: $2"?(:+([0-9]))": "?* ]]
	[ -z "$(find "$D" -maxdepth 1 -name 'out.*')" ]
}

# good KIND: a valid file of KIND.
good() {
	case $1 in
	profile) echo "$HALO" ;;
	netmap) echo "$D/tree.json" ;;
	conf) echo "$CONF" ;;
	hostfile) echo "$D/plan.hostfile" ;;
	esac
}

# What differs from run to run: the planning time, and the time a netmap
# written (netmap import) says it was made.
SAME='s/planned in [0-9.]* s/planned/; s/"timestamp":"[^"]*"/"timestamp":T/'

# result NAME: $output, or else what the command wrote to out.* (removed),
# its file's NAME as FILE and SAME's differences gone.
result() {
	local out=$output
	[ -n "$out" ] || out=$(cat "$D"/out.* 2>/dev/null)
	rm -f "$D"/out.*
	sed "s|$1|FILE|g; $SAME" <<<"$out"
}

# bats test_tags=once
@test "a FILE of - reads standard input, a pipe or a file, for every reader" {
	local kind cmd args file want
	for kind in profile netmap conf hostfile; do
		file=$(good $kind)
		while IFS='|' read -r cmd args; do
			# shellcheck disable=SC2086
			output=$("$TOPOMAP" $cmd ${args//@F@/$file})
			want=$(result "$file")
			# shellcheck disable=SC2086
			run bash -c "cat '$file' | '$TOPOMAP' $cmd ${args//@F@/-}"
			echo "$cmd $args from a pipe: $status: $output"
			[ "$status" -eq 0 ]
			[ "$(result /dev/stdin)" = "$want" ]
			# shellcheck disable=SC2086
			run bash -c "'$TOPOMAP' $cmd ${args//@F@/-} <'$file'"
			[ "$status" -eq 0 ]
			rm -f "$D"/out.*
		done < <(readers $kind)
	done
	# A foreign profile from a pipe too, guessed as ever.
	run bash -c "'$TOPOMAP' profile import -o '$D/p.json' - <'$D/two.csv'"
	[ "$status" -eq 0 ]
	"$TOPOMAP" profile show "$D/p.json" | grep -q 'ntasks *2$'
}

# bats test_tags=once
@test "a FIFO, bash's <(...) and /dev/stdin from a pipe are read as files by every reader, named as given" {
	local kind cmd args file want sub writer
	mkfifo "$D/fifo"
	for kind in profile netmap conf hostfile; do
		file=$(good $kind)
		while IFS='|' read -r cmd args; do
			# shellcheck disable=SC2086
			output=$("$TOPOMAP" $cmd ${args//@F@/$file})
			want=$(result "$file")
			# shellcheck disable=SC2086
			sub="<(cat '$file')"
			run bash -c "'$TOPOMAP' $cmd ${args//@F@/$sub}"
			echo "$cmd $args from <(...): $status: $output"
			[ "$status" -eq 0 ]
			[ "$(result '/dev/fd/[0-9]*')" = "$want" ]
			cat "$file" >"$D/fifo" &
			# shellcheck disable=SC2086
			run timeout 20 "$TOPOMAP" $cmd ${args//@F@/$D/fifo}
			echo "$cmd $args from a FIFO: $status: $output"
			[ "$status" -eq 0 ]
			[ "$(result "$D/fifo")" = "$want" ]
			# shellcheck disable=SC2086
			run bash -c "cat '$file' | '$TOPOMAP' $cmd ${args//@F@//dev/stdin}"
			[ "$status" -eq 0 ]
			[ "$(result /dev/stdin)" = "$want" ]
		done < <(readers $kind)
	done
	# A fault in what came through names the FIFO or the descriptor as
	# the user gave them, in one line.
	echo '{' >"$D/fifo" &
	run timeout 20 "$TOPOMAP" profile show "$D/fifo"
	one_line "profile show" "$D/fifo"
	run bash -c "'$TOPOMAP' netmap show <(echo '{')"
	[ "$status" -eq 1 ]
	[[ "$output" =~ ^topomap:\ netmap\ show:\ /dev/fd/[0-9]+:\ not\ valid\ JSON:\ truncated\ at\ line\ 2$ ]]
	# The writer is the test's, not topomap's: bounded, and killed after.
	timeout 60 head -c $((513 * 1024 * 1024)) /dev/zero >"$D/fifo" 2>/dev/null &
	writer=$!
	run timeout 60 "$TOPOMAP" netmap show "$D/fifo"
	kill "$writer" 2>/dev/null || true
	wait "$writer" || true
	[ "$output" = "topomap: netmap show: $D/fifo: larger than the limit of 512 MiB" ]
}

# bats test_tags=once
@test "standard input is read once: a second - is refused with one line" {
	run bash -c "cat '$HALO' | '$TOPOMAP' plan -p - -N -"
	[ "$status" -eq 1 ]
	[ "$output" = "topomap: plan: -: standard input can be read only once" ]
}

# bats test_tags=once
@test "bad files, every reader: one line naming the command, the file and the fault; exit 1" {
	local kind cmd args f
	mkdir "$D/dir"
	: >"$D/empty"
	printf '\x7fELF\x02\x01\x01\x00\x00\xff\xfe\x00\x01' >"$D/binary"
	head -c 100 "$HALO" >"$D/cut-profile.json"
	head -c 100 "$NET" >"$D/cut-netmap.json"
	sed '0,/"schema":1/s//"schema":99/' "$HALO" >"$D/schema-profile.json"
	sed '0,/"schema":1/s//"schema":99/' "$NET" >"$D/schema-netmap.json"
	sed 's/\[0, 1, 52, 212992\]/[0, 1, 52, 99999999999999999999999]/' "$HALO" >"$D/huge-profile.json"
	sed 's/\[0, 1, 52, 212992\]/[0, 1, -52, 212992]/' "$HALO" >"$D/negative-profile.json"
	sed 's/44\.3330000000075/1e308/g' "$NET" >"$D/huge-netmap.json"
	sed 's/44\.3330000000075/-44.3/g' "$NET" >"$D/negative-netmap.json"
	sed '0,/"kind":"topomap-netmap"/s//"kind":"topomap-profile"/' "$NET" >"$D/kind-netmap.json"
	printf 'SwitchName=s1 Nodes=n[1-2]\n#topomap level=1 latency_us=10 bandwidth_MBps=1e308\n' >"$D/huge.conf"
	printf 'SwitchName=s1 Nodes=n[1-2]\n#topomap level=1 latency_us=-10 bandwidth_MBps=100\n' >"$D/negative.conf"
	printf 'SwitchName=s1 Nodes=n[1-99999999]\n' >"$D/hosts.conf"
	printf 'SwitchName=s1 Nodes=n[1-2] Bogus=1\n' >"$D/key.conf"
	sed 1d "$D/plan.hostfile" >"$D/short.hostfile"
	sed '1s/.*/nowhere/' "$D/plan.hostfile" >"$D/unknown.hostfile"
	for kind in profile netmap conf hostfile; do
		case $kind in
		profile) bad="cut-profile.json schema-profile.json huge-profile.json negative-profile.json kind-netmap.json" ;;
		netmap) bad="cut-netmap.json schema-netmap.json huge-netmap.json negative-netmap.json kind-netmap.json" ;;
		conf) bad="huge.conf negative.conf hosts.conf key.conf" ;;
		hostfile) bad="short.hostfile unknown.hostfile" ;;
		esac
		while IFS='|' read -r cmd args; do
			for f in empty binary dir missing $bad; do
				# A profile of another kind is no matrix either: import
				# names both.
				# shellcheck disable=SC2086
				run "$TOPOMAP" $cmd ${args//@F@/$D/$f}
				one_line "$cmd" "$D/$f"
			done
		done < <(readers $kind)
	done
}

@test "usage errors exit 2 with one line naming the command; bad input exits 1" {
	run "$TOPOMAP" profile show
	[ "$status" -eq 2 ]
	[ "$output" = "topomap: profile show: expected one FILE (see 'topomap profile show --help')" ]
	run "$TOPOMAP" plan -p "$HALO" -N "$NET" --format nope
	[ "$status" -eq 2 ]
	[ "$output" = "topomap: plan: --format: expected hostfile, rankfile, cray or machinefile (see 'topomap plan --help')" ]
	run "$TOPOMAP" netmap import --hosts 'n[1-99999999]' -o "$D/out.json" "$CONF"
	[ "$status" -eq 2 ]
	# libslurm's own complaint is in topomap's one line, not before it.
	[ "$output" = "topomap: netmap import: --hosts: 'n[1-99999999]': not a host list: Too many hosts in range \`1-99999999'" ]
	run "$TOPOMAP" netmap import --hosts ',' -o "$D/out.json" "$CONF"
	[ "$status" -eq 2 ]
	[ "$output" = "topomap: netmap import: --hosts ',': not a Slurm host list (see 'topomap netmap import --help')" ]
}

# bats test_tags=once
@test "a bad value of an option is a usage error too: exit 2, one line; -h after a command is its help" {
	local cmd args want
	while IFS='|' read -r cmd args want; do
		# shellcheck disable=SC2086
		run "$TOPOMAP" $cmd $args
		echo "$cmd $args: status $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[ "$output" = "topomap: $cmd: $want" ]
		[ -z "$(find "$D" -maxdepth 1 -name 'out.*')" ]
	done <<END
plan|-p $HALO -N $NET --slots x -o $D/out.plan|--slots: 'x': expected NODE:COUNT (see 'topomap plan --help')
plan|-p $HALO -N $NET --slots n1:0 -o $D/out.plan|--slots: 'n1:0': expected a count of ranks (see 'topomap plan --help')
plan|-p $HALO -N $NET --slots nx:16 -o $D/out.plan|--slots: node 'nx' is not in the netmap (see 'topomap plan --help')
plan|-p $HALO -N $NET --explain --price x -o $D/out.plan|--price 'x': expected scotch or NAME=HOSTFILE, NAME of 1 to 15 letters, digits, _ or - (see 'topomap plan --help')
plan|-p $HALO -N $NET --explain --price a=$D/plan.hostfile --price a=$D/plan.hostfile -o $D/out.plan|--price: a candidate is named 'a' already (see 'topomap plan --help')
plan|-p $HALO -N $NET --explain --price block=$D/plan.hostfile -o $D/out.plan|--price: a candidate is named 'block' already (see 'topomap plan --help')
netmap import|--hosts n[1-2 -o $D/out.json $CONF|--hosts 'n[1-2': not a Slurm host list (see 'topomap netmap import --help')
END
	for cmd in "profile show" "profile import" "netmap show" "netmap import" plan recorder; do
		# shellcheck disable=SC2086
		run "$TOPOMAP" $cmd -h
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "Usage: topomap $cmd "* ]]
		# shellcheck disable=SC2086
		[ "$output" = "$("$TOPOMAP" $cmd --help)" ]
	done
}

# bats test_tags=once
@test "a UTF-8 byte order mark before a file is skipped by every reader" {
	local kind cmd args file want
	for kind in profile netmap conf hostfile; do
		file=$(good $kind)
		{ printf '\xef\xbb\xbf'; cat "$file"; } >"$D/bom"
		while IFS='|' read -r cmd args; do
			# shellcheck disable=SC2086
			output=$("$TOPOMAP" $cmd ${args//@F@/$file})
			want=$(result "$file")
			# shellcheck disable=SC2086
			run "$TOPOMAP" $cmd ${args//@F@/$D/bom}
			echo "$cmd $args with a BOM: $status: $output"
			[ "$status" -eq 0 ]
			[ "$(result "$D/bom")" = "$want" ]
		done < <(readers $kind)
	done
}

# bats test_tags=once
@test "a file named with control characters, or by a long path: still one line, escaped, the fault whole" {
	local kind cmd args long
	: >"$D/a"$'\001'"b"$'\e'"[31m"
	long=$D/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})
	mkdir -p "$long"
	for kind in profile netmap conf hostfile; do
		while IFS='|' read -r cmd args; do
			# shellcheck disable=SC2086
			# (no white space in the name: the arguments are split here)
			run "$TOPOMAP" $cmd ${args//@F@/$D/a$'\001'b$'\e'[31m}
			echo "$cmd: $status: $output"
			[ "$status" -eq 1 ]
			[ "${#lines[@]}" -eq 1 ]
			[[ "$output" == "topomap: $cmd: $D/a\\x01b\\x1b[31m: "* ]]
			# shellcheck disable=SC2086
			run "$TOPOMAP" $cmd ${args//@F@/$long/missing}
			echo "$cmd: $status: $output"
			[ "$status" -eq 1 ]
			[ "${#lines[@]}" -eq 1 ]
			[[ "$output" == "topomap: $cmd: $D/"*"/missing: No such file or directory" ]]
			[ -z "$(find "$D" -maxdepth 1 -name 'out.*')" ]
		done < <(readers $kind)
	done
}
