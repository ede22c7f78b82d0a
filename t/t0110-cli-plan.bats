#!/usr/bin/env bats
# topomap plan on a netmap the probe measured (8 nodes, 2 switches, names
# interleaved) and a profile the recorder wrote (a 16-rank 2-D halo): no
# cluster.

: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${TOPOMAP_BUILDDIR:=$TOPOMAP_SRCDIR}"
TOPOMAP=$TOPOMAP_BUILDDIR/lib/topomap
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
}

@test "the plan is the same on a second run" {
	"$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/a"
	"$TOPOMAP" plan --profile "$HALO" --netmap "$NET" -o "$D/b"
	cmp "$D/a" "$D/b"
}

@test "--format writes a rankfile and an MPICH rank order alongside the hostfile" {
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --format hostfile,rankfile,mpich -o "$D/p"
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$D/p.rankfile")" -eq 16 ]
	grep -qx 'rank 0=n[1-8] slot=0' "$D/p.rankfile"
	# every rank once in the rank order
	[ "$(tr ',' '\n' <"$D/p.mpich" | sort -n | tr '\n' ' ')" = "$(seq 0 15 | tr '\n' ' ')" ]
	# the rankfile and the hostfile agree
	[ "$(sed 's/^rank [0-9]*=\([^ ]*\) .*/\1/' "$D/p.rankfile")" = "$(cat "$D/p.hostfile")" ]
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
	[ "$status" -eq 2 ] || [ "$status" -eq 1 ]
	[[ "$output" == *"'nx' is not in the netmap"* ]]
	run "$TOPOMAP" plan --profile "$HALO" --netmap "$NET" --slots n1:zero
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
