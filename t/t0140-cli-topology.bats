#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# topomap netmap import and export: Slurm's topology.conf in and out, the
# round trip, and bad files: no cluster.

# Tagged once: no cluster, and the same sources on every generation; each
# root's unit tests cover lib/ against its own libraries (t/check-generations).

# bats file_tags=once

: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
: "${TOPOMAP_BUILDDIR:=$TOPOMAP_SRCDIR}"
TOPOMAP=$TOPOMAP_BUILDDIR/cli/topomap
SITE=$TOPOMAP_SRCDIR/t/fixtures/topology-3level.conf
NET=$TOPOMAP_SRCDIR/t/fixtures/net-2sw8.json
WANT="(((n1 n6 n11 n16) (n2 n7 n12 n13)) ((n3 n8 n9 n14) (n4 n5 n10 n15)))"

setup() {
	D=$(mktemp -d)
}

teardown() {
	rm -rf "$D"
}

@test "import: the site's tree over every node of the file, each pair its level's figures" {
	run "$TOPOMAP" netmap import -o "$D/net.json" "$SITE"
	[ "$status" -eq 0 ]
	run "$TOPOMAP" netmap show "$D/net.json"
	echo "$output"
	[[ "$output" == *"pairs: 0 of 120 measured, the others' figures from the tree"* ]]
	[[ "$output" == *"model: tree (the site's topology.conf), 7 switches, 4 groups: "* ]]
	# made, not measured: no probe to tell of
	[[ "${lines[0]}" == "netmap $D/net.json: 16 hosts, job unknown, made "*", nothing measured" ]]
	[[ "$output" != *"probe: "* ]]
	[[ "$output" == *"tree: $WANT"* ]]
	# hosts in the file's order: n1-n6 share leafA (8 us), n1-n2 spine1
	# (21 us), n1-n3 the top (40 us)
	[[ "$(sed -n '/^latency/,/^$/p' <<<"$output" | awk '$1 == "n1" && $2 == "-" {print $3, $6, $10}')" == "8.0 21.0 40.0" ]]
}

@test "show --json: the tree, groups and pairs a script reads, as the text says them, without matrices" {
	"$TOPOMAP" netmap import -o "$D/net.json" "$SITE"
	run "$TOPOMAP" netmap show --json "$D/net.json"
	echo "$output"
	[ "$status" -eq 0 ]
	jq -e '.schema == 1 and .job == null and .measure_s == null and (.hosts | length == 16) and
		.pairs == {"all": 120, "measured": 0, "measured_again": 0} and
		.model.kind == "tree" and .model.from == "site" and (.model.switches | length == 7) and
		.insides == [] and (has("lat_us") | not)' <<<"$output"
	# The groups are the text's, and each leaf switch (level 1) holds one.
	[ "$(jq -r '.model.groups[] | "[" + join(" ") + "]"' <<<"$output" | paste -sd' ')" = \
		"$("$TOPOMAP" netmap show "$D/net.json" | sed -n 's/^model: .* groups: //p')" ]
	[ "$(jq -c '[.model.switches[] | select(.level == 1) | .hosts]' <<<"$output")" = "$(jq -c .model.groups <<<"$output")" ]
	# One root; every other switch's parent is a switch one level up.
	jq -e '.model.switches as $s | ([$s[] | select(.parent == null)] | length == 1) and
		all($s[] | select(.parent != null); . as $v | $s[$v.parent].level == $v.level + 1)' <<<"$output"
	# A measured netmap: its figures and pairs, groups by latency, and the
	# measuring's bound as the text gives it.
	run "$TOPOMAP" netmap show --json "$NET"
	[ "$status" -eq 0 ]
	jq -e '.job == "1" and .pairs.measured == 28 and .model.kind == "groups" and .model.from == "latency" and
		(.model.groups | length == 2) and .measure_s > .measure_bound_s and .measure_bound_s > 0' <<<"$output"
	[ "$("$TOPOMAP" netmap show "$NET" | sed -n 's/^measuring: \([0-9.]*\) s against a lower bound of \([0-9.]*\) s .*/\1 \2/p')" = \
		"$(jq -r '"\(.measure_s * 1000 | round / 1000) \(.measure_bound_s * 1000 | round / 1000)"' <<<"$output")" ]
}

@test "show: each host's GPU slots the probe read, as text and for scripts" {
	local nm=$TOPOMAP_SRCDIR/t/fixtures/net-slots.json
	run "$TOPOMAP" netmap show "$nm"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx 'n1 slots: cuda0 mlx5_0 (switch, CPUs 0-1); cuda1 eth1,mlx5_0 (machine, CPUs 2-3). eno1 (0000:f0:00.0) left out: a 0.25 GB/s PCIe link against 32' <<<"$output"
	grep -qx 'n2 slots: none (no GPU)' <<<"$output"
	! grep -q '^n0 slots' <<<"$output" || false
	run "$TOPOMAP" netmap show --json "$nm"
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.slots[] | .host + ":" + ([.gpus[] | .name + "/" + .near + "/" + (.nics | map(tostring) | join("+"))] | join(" "))] | join(",")' <<<"$output")" = \
		"n1:cuda0/switch/0 cuda1/machine/1+0,n2:" ]
	[ "$(jq -r '.slots[0].nics | map(.name + "/" + .netdev) | join(" ")' <<<"$output")" = "mlx5_0/ib0 /eth1" ]
}

@test "show beyond 32 hosts: each level's pairs in a line in place of the matrices, which --matrices prints" {
	{
		echo '#topomap level=1 latency_us=5 bandwidth_MBps=1000'
		echo '#topomap level=2 latency_us=10 bandwidth_MBps=500'
		for l in $(seq 0 8); do echo "SwitchName=l$l Nodes=n[$((l * 4))-$((l * 4 + 3))]"; done
		echo 'SwitchName=top Switches=l[0-8]'
	} >"$D/36.conf"
	"$TOPOMAP" netmap import -o "$D/36.json" "$D/36.conf"
	run "$TOPOMAP" netmap show "$D/36.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"latency (us, one way"* ]]
	# 9 leaves of 4: 9 x 6 pairs inside a leaf, the other 576 across.
	grep -qx '  switch level 1         54 pairs  latency 5.0 (5.0 to 5.0)  bandwidth 1000.0 (1000.0 to 1000.0)' <<<"$output"
	grep -qx '  switch level 2        576 pairs  latency 10.0 (10.0 to 10.0)  bandwidth 500.0 (500.0 to 500.0)' <<<"$output"
	grep -qx '  intra-node             36 nodes  latency not measured  bandwidth not measured' <<<"$output"
	run "$TOPOMAP" netmap show --matrices "$D/36.json"
	[ "$status" -eq 0 ]
	[ "$(sed -n '/^latency (us, one way/,/^$/p' <<<"$output" | awk '$1 ~ /^n[0-9]+$/ && NF == 37' | wc -l)" -eq 36 ]
	[[ "$output" != *"switch level 1 "* ]]
	# A measured netmap of groups: pairs in one group and across.
	"$TOPOMAP" netmap show "$NET" | grep -q '^latency (us, one way'
	run "$TOPOMAP" netmap show --json --matrices "$D/36.json"
	[ "$status" -eq 2 ]
	[[ "$output" == "topomap: netmap show: --json has no matrices: the netmap file holds them"* ]]
}

@test "import of a topology.yaml: the same tree and figures as its topology.conf; without figures, one line" {
	local yaml=$TOPOMAP_SRCDIR/t/fixtures/3level-16.yaml
	run "$TOPOMAP" netmap import -o "$D/y.json" "$yaml"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "topomap: netmap import: $yaml: level 1 (n1 to n6) has no figures: give them in the file, or measure them (topomap-probe(1) --topology)" ]
	[ ! -e "$D/y.json" ]
	# The same switches, with the conf's figures as its comments.
	{ cat "$yaml"; grep '^#topomap ' "$SITE"; } >"$D/site.yaml"
	"$TOPOMAP" netmap import -o "$D/y.json" "$D/site.yaml"
	"$TOPOMAP" netmap import -o "$D/c.json" "$SITE"
	# (the switches numbered apart, as each file lists them)
	diff <("$TOPOMAP" netmap show "$D/c.json" | sed 1d | grep -v '^ *switch') \
		<("$TOPOMAP" netmap show "$D/y.json" | sed 1d | grep -v '^ *switch')
	"$TOPOMAP" netmap show "$D/y.json" | grep -qF "tree: $WANT"
}

@test "import --hosts: the tree above those hosts only, its root their nearest switch" {
	run "$TOPOMAP" netmap import --hosts 'n[1-2],n6' -o "$D/net.json" "$SITE"
	[ "$status" -eq 0 ]
	run "$TOPOMAP" netmap show "$D/net.json"
	[[ "$output" == *"tree: ((n1 n6) (n2))"* ]]
	[[ "$output" == *"pairs: 0 of 3 measured"* ]]
}

@test "round trip: topology.conf -> netmap -> topology.conf -> netmap -> topology.conf, the same tree" {
	"$TOPOMAP" netmap import -o "$D/a.json" "$SITE"
	"$TOPOMAP" netmap export -o "$D/a.conf" "$D/a.json"
	"$TOPOMAP" netmap import -o "$D/b.json" "$D/a.conf"
	"$TOPOMAP" netmap export --format slurm-topology -o "$D/b.conf" "$D/b.json"
	cat "$D/a.conf"
	grep -qx 'SwitchName=l1s1 Nodes=n\[1,6,11,16\]' "$D/a.conf"
	grep -qx 'SwitchName=l3s1 Switches=l2s\[1-2\]' "$D/a.conf"
	grep -qx '#topomap level=2 latency_us=21 bandwidth_MBps=48' "$D/a.conf"
	diff <(grep -v '^# from' "$D/a.conf") <(grep -v '^# from' "$D/b.conf")
	run "$TOPOMAP" netmap show "$D/b.json"
	[[ "$output" == *"tree: $WANT"* ]]
}

@test "export of a measured netmap: its tree, the medians of each level" {
	"$TOPOMAP" netmap import -o "$D/a.json" "$SITE"
	run "$TOPOMAP" netmap export "$D/a.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"the site's switch tree"* ]]
	run "$TOPOMAP" netmap export "$NET"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "topomap: netmap export: $NET: the netmap has groups, not a switch tree" ]]
	run "$TOPOMAP" netmap export --format csv "$NET"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--format: only slurm-topology"* ]]
}

@test "a bad topology.conf: one line naming the file, line and fault; nothing written" {
	bad() { # TEXT WANT
		printf '%b' "$1" >"$D/bad.conf"
		run "$TOPOMAP" netmap import -o "$D/out.json" "$D/bad.conf"
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"topomap: netmap import: $D/bad.conf$2"* ]]
		[ ! -e "$D/out.json" ]
	}
	bad 'SwitchName=s1 Nodes=n1\nSwitchName=s2 Nodes=n[1-2]\n' ":2: node 'n1' is under both switch 's1' (line 1) and 's2'"
	bad 'SwitchName=s1 Nodes=n1\nSwitchName=a Switches=s1\nSwitchName=b Switches=a,s1\n' ":3: switch 's1' is under both 'a' (line 2) and 'b'"
	bad 'SwitchName=s1 Nodes=n1\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n' ":2: switch 'a' is above itself: a loop"
	bad 'SwitchName=s1 Nodes=n1\nSwitchName=r Switches=s[1-2]\n' ":2: switch 'r': child switch 's2' is not defined"
	bad 'SwitchName=s1 Nodes=n1 Weight=3\n' ":1: unknown key 'Weight'"
	bad 'SwitchName=s1 Nodes=n[1-2]\n' ": level 1 (n1 to n2) has no figures: give them in the file, or measure them (topomap-probe(1) --topology)"
	run "$TOPOMAP" netmap import --hosts n1,x9 -o "$D/out.json" "$SITE"
	[ "$status" -eq 1 ]
	[[ "$output" == *"topology-3level.conf: node 'x9' is under no switch"* ]]
	[ ! -e "$D/out.json" ]
}

@test "a netmap whose tree heights are out of range: plan and export give one line, exit 1" {
	local seed
	# 1e30, 2147483647 and 4e8: cast to int, the first two once indexed
	# out of bounds and the last took 54 s and 12.9 GB to plan
	for seed in "$TOPOMAP_SRCDIR"/fuzz/seeds/netmap/tree-height-*.json; do
		run "$TOPOMAP" netmap export -o "$D/out.conf" "$seed"
		echo "$output"
		[ "$status" -eq 1 ]
		[ "$output" = "topomap: netmap export: $seed: topology.height[4]: not a whole number from 1 to 64" ]
		[ ! -e "$D/out.conf" ]
		run "$TOPOMAP" plan --profile "$TOPOMAP_SRCDIR/t/fixtures/halo2d-16.json" --netmap "$seed" \
			--slots n1:8,n2:8
		echo "$output"
		[ "$status" -eq 1 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "topomap: plan: $seed: topology.height[4]: not a whole number from 1 to 64" ]]
	done
}

@test "export refuses a netmap whose tree has no switch, and show refuses a switch chain; dates as stored" {
	local seeds=$TOPOMAP_SRCDIR/fuzz/seeds/netmap
	run "$TOPOMAP" netmap export -o "$D/out.conf" "$seeds/single.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "topomap: netmap export: $seeds/single.json: the netmap's tree has no switch (1 host): nothing for topology.conf" ]
	[ ! -e "$D/out.conf" ]
	run "$TOPOMAP" netmap show "$seeds/tree-switch-chain.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"switch "*" lies 64 or more switches below the root"* ]]
	run "$TOPOMAP" netmap show "$seeds/inside-l3-1025.json"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"1025 L3 domains, at most 1024"* ]]
	sed 's/"timestamp":"2026-/"timestamp":"0999-/' "$seeds/tree.json" >"$D/old.json"
	run "$TOPOMAP" netmap show "$D/old.json"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"measured 0999-11-20T21:44:50Z in"* ]]
	sed 's/"timestamp":"2026-/"timestamp":"0999-/' "$TOPOMAP_SRCDIR/t/fixtures/halo2d-16.json" >"$D/old-profile.json"
	run "$TOPOMAP" profile show "$D/old-profile.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0999-11-23T19:16:18Z"* ]]
}
