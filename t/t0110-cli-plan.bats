#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# topomap plan on a netmap the probe measured (8 nodes, 2 switches, names
# interleaved) and a profile the recorder wrote (a 16-rank 2-D halo): no
# cluster.

# Tagged once: no cluster, and the same sources on every generation; each
# root's unit tests cover lib/ against its own libraries (t/check-generations).

# bats file_tags=once

: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${TOPOMAP_BUILDDIR:=$TOPOMAP_SRCDIR}"
TOPOMAP=$TOPOMAP_BUILDDIR/cli/topomap
NET=$TOPOMAP_SRCDIR/t/fixtures/net-2sw8.json
HALO=$TOPOMAP_SRCDIR/t/fixtures/halo2d-16.json

setup() {
	D=$(mktemp -d)
}

teardown() {
	rm -rf "$D"
}

# counts FILE: "node count" lines of a hostfile, sorted by node.
counts() {
	sort "$1" | uniq -c | awk '{print $2, $1}'
}

@test "the plan gives every node exactly its slots, 16 lines in rank order" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/hosts"
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$D/hosts")" -eq 16 ]
	[ "$(counts "$D/hosts")" = "$(printf 'n%d 2\n' 1 2 3 4 5 6 7 8)" ]
}

@test "--slots chooses the nodes and their counts" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots n1:4,n3:4,n5:4,n7:4 -o "$D/hosts"
	[ "$status" -eq 0 ]
	[ "$(counts "$D/hosts")" = "$(printf 'n%d 4\n' 1 3 5 7)" ]
}

@test "--explain prices the plan at or under srun's block layout, in total and at the busiest link" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain
	echo "$output"
	[ "$status" -eq 0 ]
	# The chosen line's ratios to block: cost (vs_block) and busiest link (link_vs).
	read -r cost link < <(awk '$1 == "*" {print $7, $9}' <<<"$output")
	awk -v c="$cost" -v l="$link" 'BEGIN { exit !(c + 0 > 0 && c <= 1.0 && l + 0 > 0 && l <= 1.0) }'
	[[ "$output" == *"block"* && "$output" == *"cyclic"* ]]
	# Against block again across the spread of the probe's pairs: two
	# interleaved switches, 10:1, hold in every draw.
	grep -q "^across 200 netmaps drawn from the spread of pairs alike: topomap against block gains [0-9.]*% to [0-9.]*%, [0-9.]*% to [0-9.]*% at the busiest link; 5% or more in total and at the busiest link in 200 of them (significant)$" <<<"$output"
	# The plan itself goes only where -o says: without it, one line says so.
	[ "${lines[-1]}" = "topomap: plan: the plan itself is written with -o OUT beside --explain; not written" ]
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain -o "$BATS_TEST_TMPDIR/p.hosts"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not written"* ]]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/p.hosts")" -eq 16 ]
}

# with_check A B OUT: profile A with B's recording as its check (schema 2),
# as the plugin files a second recording.
with_check() {
	{
		sed -e '$d' -e 's/^  "schema":1,$/  "schema":2,/' "$1"
		echo ',"check":{'
		sed -n '/^  "record_s":/,$p' "$2" | sed '$d'
		echo '}}'
	} >"$3"
}

# shuffled_ring N SEED: an N x N bytes matrix of a ring through the ranks
# in an order drawn from SEED, 1 MB to each next rank.
shuffled_ring() {
	awk -v n="$1" -v seed="$2" 'BEGIN {
		srand(seed); for (i = 0; i < n; i++) o[i] = i
		for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = o[i]; o[i] = o[j]; o[j] = t }
		for (i = 0; i < n; i++) next_[o[i]] = o[(i + 1) % n]
		for (i = 0; i < n; i++) { line = ""; for (j = 0; j < n; j++) line = line (j ? "," : "") (j == next_[i] ? 1048576 : 0); print line } }'
}

# ring_every K N: a CSV matrix of N ranks, 1 MB from each rank to the
# rank K on (mod N).
ring_every() {
	awk -v k="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) { line = ""
		for (j = 0; j < n; j++) line = line (j ? "," : "") (j == (i + k) % n ? 1048576 : 0); print line } }'
}

@test "a checked profile is planned from the traffic both recordings share, every candidate priced on each" {
	with_check "$HALO" "$HALO" "$D/same.json"
	"$TOPOMAP" profile show "$D/same.json" | grep -q '^  recurring     100.0% of the traffic'
	run "$TOPOMAP" plan --profile "$D/same.json" --netmap "$NET" --explain
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sed -n 1p <<<"$output")" = "planned from the traffic both recordings of the profile share: 100.0% of its recording's bytes" ]
	grep -qx "on the profile's recording (job 1)" <<<"$output"
	grep -qx "on the profile's check (job 1, 100.0% of the traffic recurring)" <<<"$output"
	# The same traffic three times: the chosen plan's cost and ratio to
	# block alike in the three tables, and the plan the halo's own.
	[ "$(awk '$1 == "*" { print $2, $(NF - 2) }' <<<"$output" | sed -n 1p)" = \
		"$(awk '$1 == "*" { print $2, $4 }' <<<"$output" | sed -n 2p)" ]
	[ "$(awk '$1 == "*" { print $2, $4 }' <<<"$output" | sed -n 2p)" = \
		"$(awk '$1 == "*" { print $2, $4 }' <<<"$output" | sed -n 3p)" ]
	"$TOPOMAP" plan --profile "$D/same.json" --netmap "$NET" -o "$D/same.hf"
	"$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/halo.hf"
	cmp "$D/same.hf" "$D/halo.hf"
	# The halo again with a ring through the ranks in a shuffled order on
	# top (a run that also drew pairs of its own): the plan is the halo's
	# (what recurs), which gains on both recordings; the ring's pairs
	# place nothing.
	"$TOPOMAP" profile export "$HALO" >"$D/halo.csv"
	shuffled_ring 16 7 | paste -d, - "$D/halo.csv" |
		awk -F, '{ n = NF / 2; line = ""; for (i = 1; i <= n; i++) line = line (i > 1 ? "," : "") $i + $(i + n); print line }' >"$D/mixed.csv"
	"$TOPOMAP" profile import --format csv -o "$D/mixed.json" "$D/mixed.csv"
	with_check "$HALO" "$D/mixed.json" "$D/other.json"
	run "$TOPOMAP" plan --profile "$D/other.json" --netmap "$NET" --explain
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^on the profile's check (job unknown, [0-9.]*% of the traffic recurring)$" <<<"$output"
	read -r common first check < <(awk '$1 == "*" { n++; v[n] = n == 1 ? $7 : $4 } END { print v[1], v[2], v[3] }' <<<"$output")
	echo "the plan against block: $common on what recurs, $first on the recording, $check on the check"
	[ -n "$common" ]
	[ -n "$first" ]
	[ -n "$check" ]
	awk -v a="$first" -v b="$check" 'BEGIN { exit !(a + 0 > 0 && a < 0.5 && b + 0 > 0 && b < 1) }'
	# As good on the recording as the halo's own plan, to 1 %.
	halo=$("$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain | awk '$1 == "*" { print $7 }')
	[ -n "$halo" ]
	awk -v a="$first" -v h="$halo" 'BEGIN { exit !(a <= 1.01 * h) }'
	# A check that shares no pair with the recording: nothing to plan from.
	ring_every 3 16 >"$D/apart.csv"
	"$TOPOMAP" profile import --format csv -o "$D/apart.json" "$D/apart.csv"
	with_check "$HALO" "$D/apart.json" "$D/apart2.json"
	run "$TOPOMAP" plan --profile "$D/apart2.json" --netmap "$NET"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "topomap: plan: $D/apart2.json: none of the traffic of the profile's recording recurs in its check: nothing to plan from" ]
	# Without a check, no such tables.
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain
	! grep -q "on the profile's check\|on the profile's recording\|planned from the traffic" <<<"$output" || false
}

@test "the plan is the same on a second run" {
	"$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/a"
	"$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/b"
	cmp "$D/a" "$D/b"
}

@test "--format writes a rankfile, a Cray rank order and a Hydra machine file alongside the hostfile" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --format hostfile,rankfile,cray,machinefile -o "$D/p"
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$D/p.rankfile")" -eq 16 ]
	grep -qx 'rank 0=n[1-8] slot=0' "$D/p.rankfile"
	# every rank once in the rank order
	[ "$(tr ',' '\n' <"$D/p.cray" | sort -n | tr '\n' ' ')" = "$(seq 0 15 | tr '\n' ' ')" ]
	# the rankfile and the hostfile agree
	[ "$(sed 's/^rank [0-9]*=\([^ ]*\) .*/\1/' "$D/p.rankfile")" = "$(cat "$D/p.hostfile")" ]
	# the machine file, NODE:COUNT for each run of ranks, expands to the hostfile
	[ "$(awk -F: '{ for (i = 0; i < $2; i++) print $1 }' "$D/p.machinefile")" = "$(cat "$D/p.hostfile")" ]
	# mpich, the rank order's former name, still writes it
	"$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --format mpich -o "$D/q"
	[ "$(cat "$D/q")" = "$(cat "$D/p.cray")" ]
}

@test "slots that do not add up to the profile's task count are refused" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots n1:4,n2:4 -o "$D/hosts"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"16"*"8"* || "$output" == *"8"*"16"* ]]
	[ ! -e "$D/hosts" ]
}

@test "bad input is named: unknown node, bad count, metric, missing file" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots nx:16
	[ "$status" -eq 2 ]
	[[ "$output" == *"'nx' is not in the netmap"* ]]
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots n1:zero
	[ "$status" -eq 2 ]
	[[ "$output" == *"n1:zero"* ]]
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --metric speed
	[ "$status" -eq 2 ]
	run "$TOPOMAP" plan --profile "$D/none.json" --netmap "$NET"
	[ "$status" -eq 1 ]
	[[ "$output" == *"none.json"* ]]
	run "$TOPOMAP" plan --netmap "$NET"
	[ "$status" -eq 2 ]
}

@test "-o to a FIFO is refused at once and left a FIFO; a directory is refused" {
	mkfifo "$D/fifo"
	run timeout 20 "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/fifo"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$D/fifo: not a regular file (a FIFO): not replaced"* ]]
	[ -p "$D/fifo" ]
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$D: is a directory"* ]]
	[ "$(ls -A "$D")" = fifo ]
}

@test "-o to a link replaces the link with the plan and leaves its target alone" {
	echo old >"$D/target"
	ln -s target "$D/link"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/link"
	[ "$status" -eq 0 ]
	[ ! -L "$D/link" ]
	[ "$(wc -l <"$D/link")" -eq 16 ]
	[ "$(cat "$D/target")" = old ]
}

@test "-o - and -o /dev/stdout write the plan to standard output" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o -
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | wc -l)" -eq 16 ]
	[ ! -e ./- ]
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o /dev/stdout
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | wc -l)" -eq 16 ]
}

# vs NAME: the vs_block figure of candidate NAME in --explain's $output.
vs() {
	awk -v n="$1" '$1 == n || ($1 == "*" && $2 == n) { print $(NF - 2) }' <<<"$output"
}

@test "--price prices other layouts beside the plan: plain Scotch and a hostfile" {
	# block written out as a hostfile prices as block; the plan's own
	# hostfile as the plan; plain Scotch fits this case and costs no less
	printf 'n%d\nn%d\n' 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 >"$D/block.hf"
	"$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/plan.hf"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --price scotch \
		--price srun=$D/block.hf --price again=$D/plan.hf
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(vs srun)" = "$(vs block)" ]
	[ "$(vs srun)" = 1.000 ]
	[ "$(vs again)" = "$(vs topomap)" ]
	[ -n "$(vs scotch)" ]
	awk -v t="$(vs topomap)" -v s="$(vs scotch)" 'BEGIN { exit !(t <= s) }'
	[[ "$output" == *"chosen: topomap"* ]]
	[[ "$output" != *"scotch puts more ranks"* ]]
}

@test "--price on plain Scotch that overfills nodes says how many" {
	# 256 ranks, six random partners each (Park and Miller's generator), on
	# the 16 nodes of a site's three-level tree: Scotch left to itself puts
	# 17 ranks on a node of 16 (as in BENCH map's random lines)
	awk 'function rnd() { x = x * 16807 % 2147483647; return x / 2147483647 }
		BEGIN { x = 1; n = 256
			for (i = 0; i < n; i++) for (k = 0; k < 6; k++) { j = int(rnd() * n); if (j != i) m[i, j] += int(1 + rnd() * 1000000) }
			for (i = 0; i < n; i++) { s = ""; for (j = 0; j < n; j++) s = s (j ? "," : "") (m[i, j] + 0); print s } }' >"$D/random.csv"
	"$TOPOMAP" profile import --format csv -o "$D/random.json" "$D/random.csv"
	"$TOPOMAP" netmap import -o "$D/tree.json" "$TOPOMAP_SRCDIR/t/fixtures/topology-3level.conf"
	run "$TOPOMAP" plan --profile "$D/random.json" --netmap "$D/tree.json" --explain --price scotch
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"scotch puts more ranks than their slots on "[1-9]*" of 16 nodes: it cannot run"* ]]
}

@test "--price says so of a hostfile that overfills nodes or leaves the slots" {
	printf 'n1\n%.0s' $(seq 16) >"$D/one.hf"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots n1:8,n2:8 --explain --price "one=$D/one.hf"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"one puts more ranks than their slots on 1 of 2 nodes: it cannot run"* ]]
	# n3 is in the netmap but not a slot of the step
	{ printf 'n1\n%.0s' $(seq 8); printf 'n3\n%.0s' $(seq 8); } >"$D/off.hf"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots n1:8,n2:8 --explain --price "off=$D/off.hf"
	[ "$status" -eq 0 ]
	[[ "$output" == *"off puts more ranks than their slots on 1 of 2 nodes: it cannot run"* ]]
	# block written out fits
	{ printf 'n1\n%.0s' $(seq 8); printf 'n2\n%.0s' $(seq 8); } >"$D/fit.hf"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots n1:8,n2:8 --explain --price "fit=$D/fit.hf"
	[ "$status" -eq 0 ]
	[[ "$output" != *"puts more ranks"* ]]
}

@test "--price refuses bad names, bad hostfiles and pricing without --explain, naming the fault" {
	printf 'n%d\n' 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 >"$D/ok.hf"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --price scotch
	[ "$status" -eq 2 ]
	[[ "$output" == *"--price needs --explain"* ]]
	# bad ARG MESSAGE [STATUS]: --price ARG refused (status 1: a bad file).
	bad() {
		run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --price "$1"
		echo "$output"
		[ "$status" -eq "${3:-1}" ]
		[ "$output" = "topomap: plan: $2" ]
	}
	bad "a b=$D/ok.hf" "--price 'a b=$D/ok.hf': expected scotch or NAME=HOSTFILE, NAME of 1 to 15 letters, digits, _ or - (see 'topomap plan --help')" 2
	bad "=$D/ok.hf" "--price '=$D/ok.hf': expected scotch or NAME=HOSTFILE, NAME of 1 to 15 letters, digits, _ or - (see 'topomap plan --help')" 2
	bad "block=$D/ok.hf" "--price: a candidate is named 'block' already (see 'topomap plan --help')" 2
	bad "x=$D/none" "$D/none: No such file or directory"
	head -n 5 "$D/ok.hf" >"$D/short.hf"
	bad "x=$D/short.hf" "$D/short.hf: 5 lines for 16 ranks"
	head -n 1 "$D/ok.hf" >"$D/one.hf"
	bad "x=$D/one.hf" "$D/one.hf: 1 line for 16 ranks"
	{ cat "$D/ok.hf"; echo; } >"$D/trailing.hf"
	bad "x=$D/trailing.hf" "$D/trailing.hf:17: an empty line"
	echo n1 >>"$D/ok.hf"
	bad "x=$D/ok.hf" "$D/ok.hf:17: more lines than the 16 ranks"
	printf 'n1\n\n' >"$D/blank.hf"
	bad "x=$D/blank.hf" "$D/blank.hf:2: an empty line"
	printf 'n1\r\n' >"$D/crlf.hf"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --price "x=$D/crlf.hf"
	[ "$status" -eq 1 ]
	[[ "$output" == "topomap: plan: $D/crlf.hf:1: node name "* ]]
	sed -n 1,16p "$D/ok.hf" | sed '3s/.*/n99/' >"$D/stranger.hf"
	bad "x=$D/stranger.hf" "$D/stranger.hf:3: node 'n99' is not in the netmap"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --price scotch --price scotch
	[ "$status" -eq 2 ]
	[ "$output" = "topomap: plan: --price: a candidate is named 'scotch' already (see 'topomap plan --help')" ]
	sed -n 1,16p "$D/ok.hf" >"$D/fit.hf"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --price "scotch=$D/fit.hf" --price scotch
	[ "$status" -eq 2 ]
	[ "$output" = "topomap: plan: --price: a candidate is named 'scotch' already (see 'topomap plan --help')" ]
}

# figure TEXT NAME COLUMN: the --explain table's COLUMN (awk field, after
# the chosen mark) of candidate NAME.
figure() {
	awk -v n="$2" -v c="$3" '($1 == "*" && $2 == n) { print $(c + 1); exit } ($1 == n && NF >= 8) { print $c; exit }' <<<"$1"
}

@test "--explain --json gives the text's figures for scripts: candidates, nodes, odds" {
	text=$("$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain 2>/dev/null)
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --json -o "$D/hosts"
	echo "$output"
	[ "$status" -eq 0 ]
	jq -e '.schema == 1 and .ntasks == 16 and .metric == "combined" and .recurring == null and
		.recordings == null and .binding == null and
		([.candidates[] | select(.chosen)] | length == 1 and .[0].name == "topomap") and
		.chosen == "topomap" and ([.nodes[].ranks] | add == 16)' <<<"$output"
	# Each candidate's figures are the table's, to its three places.
	for name in topomap block cyclic; do
		[ "$(jq -r --arg n "$name" '.candidates[] | select(.name == $n) |
			"\(.cost_s * 1e3 * 1000 | round / 1000) \(.cost_vs_block * 1000 | round / 1000) \(.link_s * 1e3 * 1000 | round / 1000)"' <<<"$output")" = \
			"$(awk -v a="$(figure "$text" "$name" 2)" -v b="$(figure "$text" "$name" 6)" -v c="$(figure "$text" "$name" 7)" 'BEGIN { print a + 0, b + 0, c + 0 }')" ]
	done
	# The plan itself went to -o, as without --json; the nodes are its own.
	[ "$(sort "$D/hosts" | uniq -c | awk '{print $2, $1}')" = "$(jq -r '.nodes[] | "\(.host) \(.ranks)"' <<<"$output")" ]
	jq -e '.odds.draws == 200 and .odds.wins == 200 and .odds.significant and .odds.min_gain == 0.05 and
		.odds.gain[0] <= .odds.gain[1] and .odds.link_gain[0] <= .odds.link_gain[1]' <<<"$output"
	# A checked profile: both recordings priced; the share planned from.
	with_check "$HALO" "$HALO" "$D/same.json"
	run "$TOPOMAP" plan --profile "$D/same.json" --netmap "$NET" --explain --json -o "$D/p2"
	[ "$status" -eq 0 ]
	jq -e '.recurring == 1 and (.recordings | length == 2) and .recordings[0].of == "recording" and
		.recordings[1].of == "check" and .recordings[1].job == "1" and
		(.recordings[0].candidates | length == 3)' <<<"$output"
	# --price's layouts say whether they fit; --json alone is a usage error.
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --json --price scotch -o "$D/p3"
	[ "$status" -eq 0 ]
	jq -e '.candidates[-1].name == "scotch" and .candidates[-1].overfull_nodes >= 0 and
		(.candidates[0] | has("overfull_nodes") | not)' <<<"$output"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --json
	[ "$status" -eq 2 ]
	[[ "$output" == "topomap: plan: --json needs --explain"* ]]
}

@test "--explain shows the binding inside the nodes where the netmap knows them" {
	# 8 ranks in pairs (0,1) (2,3) ...; nodes of 4 CPUs whose L3 domains
	# alternate (CPUs 0 and 2, 1 and 3): block binding splits every pair
	# across two domains, the plan's binds each pair in one
	awk 'BEGIN { for (i = 0; i < 8; i++) { s = ""; for (j = 0; j < 8; j++) s = s (j ? "," : "") ((i < j ? j - i : i - j) == 1 && int(i / 2) == int(j / 2) ? 1000000 : 0); print s } }' >"$D/pairs.csv"
	"$TOPOMAP" profile import --format csv -o "$D/pairs.json" "$D/pairs.csv"
	run "$TOPOMAP" plan --profile "$D/pairs.json" --netmap "$TOPOMAP_SRCDIR/t/fixtures/net-inside.json" --slots n1:4,n2:4 --explain
	echo "$output"
	[ "$status" -eq 0 ]
	line=$(grep '^inside the nodes: ' <<<"$output")
	[[ "$line" =~ ^inside\ the\ nodes:\ --cpu-bind=map_cpu:(0,2,1,3|2,0,3,1|1,3,0,2|3,1,2,0):\ the\ pairs\ inside\ them\ ([0-9.]+)\ ms\ against\ block\ binding\'s\ ([0-9.]+)\ ms$ ]]
	awk -v a="${BASH_REMATCH[2]}" -v b="${BASH_REMATCH[3]}" 'BEGIN { exit !(a < b) }'
	bind=${line#inside the nodes: --cpu-bind=}
	run "$TOPOMAP" plan --profile "$D/pairs.json" --netmap "$TOPOMAP_SRCDIR/t/fixtures/net-inside.json" --slots n1:4,n2:4 --explain --json -o "$D/p4"
	[ "$status" -eq 0 ]
	jq -e --arg b "${bind%%:\ the pairs*}" '.binding.cpu_bind == $b and .binding.cost_s < .binding.block_s' <<<"$output"
	# a netmap without insides says nothing of binding
	run "$TOPOMAP" plan --profile "$D/pairs.json" --netmap "$NET" --slots n1:4,n2:4 --explain
	[ "$status" -eq 0 ]
	! grep -q '^inside the nodes' <<<"$output" || false
}

@test "--explain gives each rank's NIC by rail where the nodes have GPU slots, and --json too" {
	# a ring of 8 ranks on 4 nodes of two rails (hsn0, hsn1): in local rank
	# order every edge between nodes joins hsn1 to hsn0; by rail none does
	local nm=$TOPOMAP_SRCDIR/t/fixtures/net-rails.json ring=$TOPOMAP_SRCDIR/t/fixtures/ring-8.json
	run "$TOPOMAP" plan --profile "$ring" --netmap "$nm" --explain -o "$D/h"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx "NICs by rail (2 rails): 100.0% of the bytes between nodes cross rails in Slurm's order, 0.0% by rail" <<<"$output"
	line=$(sed -n 's/^rank node GPU NIC: //p' <<<"$output")
	[ "$(tr ',' '\n' <<<"$line" | awk '{ print $2 }' | paste -sd' ')" = "$(cut -d' ' -f1-8 "$D/h" | paste -sd' ')" ]
	# each rank's GPU is its NIC's: cudaK with hsnK in this netmap
	[ "$(tr ',' '\n' <<<"$line" | awk '{ print substr($3, 5) == substr($4, 4) }' | sort -u)" = 1 ]
	# each edge between nodes on one NIC name; each node both NICs
	run "$TOPOMAP" plan --profile "$ring" --netmap "$nm" --explain --json -o "$D/h"
	[ "$status" -eq 0 ]
	jq -e '.nics.rails == 2 and .nics.cross_bytes == 0 and .nics.default_bytes == .nics.node_bytes and
		(.nics.ranks | length) == 8 and .nics_why == null and
		all(.nics.ranks[]; .gpu == "cuda\(.slot)")' <<<"$output"
	jq -e '[.nics.ranks[] | {node, netdev}] as $r |
		all(range(0; 8); . as $i | ($r[$i].node == $r[($i + 1) % 8].node) or
			($r[$i].netdev == $r[($i + 1) % 8].netdev)) and
		([$r | group_by(.node)[] | map(.netdev) | sort] | unique) == [["hsn0", "hsn1"]]' <<<"$output"
	# no slots in the netmap: the MPI's own, saying why
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain -o "$D/h"
	[ "$status" -eq 0 ]
	grep -qx "NICs: the MPI's own: n1 has no GPU slots read" <<<"$output"
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --explain --json -o "$D/h"
	[ "$status" -eq 0 ]
	jq -e '.nics == null and .nics_why == "n1 has no GPU slots read"' <<<"$output"
}
