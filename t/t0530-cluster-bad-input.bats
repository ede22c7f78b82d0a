#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# topomap-cluster refuses bad input with one line and a non-zero exit, and
# leaves nothing half-built.

load lib/cluster

setup() {
	need_cluster
	"$CLUSTER" down
}

teardown() {
	[ "$(id -u)" -ne 0 ] || "$CLUSTER" down
}

topo() { # topo LINE...: a topology file made of LINEs
	local f=$BATS_TEST_TMPDIR/t.topo
	printf '%s\n' "$@" >"$f"
	echo "$f"
}

# refused PATTERN CMD...: CMD fails with one line matching PATTERN, and
# nothing of a cluster is left.
refused() {
	local pattern=$1
	shift
	run "$@"
	echo "status=$status output=$output"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == topomap-cluster:* ]]
	[[ "$output" == *"$pattern"* ]]
	[ -z "$(cluster_leftovers)" ]
}

@test "an unknown command is refused" {
	refused "unknown command 'start'" "$CLUSTER" start
}

@test "an unknown option is refused" {
	refused "unknown option '--nodez'" "$CLUSTER" up --nodez 4
}

@test "an option without its value is refused" {
	refused "--topology needs a value" "$CLUSTER" up --topology
}

@test "a node count out of range or not a number is refused" {
	refused "out of range (2..64)" "$CLUSTER" up --nodes 1
	refused "out of range (2..64)" "$CLUSTER" up --nodes 65
	refused "'four' is not a number" "$CLUSTER" up --nodes four
}

@test "up with neither nodes nor topology is refused" {
	refused "give --nodes N or --topology FILE" "$CLUSTER" up
}

@test "a missing topology file is refused" {
	refused "cannot read topology file" "$CLUSTER" up --topology /nonexistent.topo
}

@test "a topology with an unknown keyword names the file and line" {
	refused "t.topo:2: unknown keyword 'router'" "$CLUSTER" up --topology "$(topo 'switch a' 'router b')"
}

@test "a topology with a bad rate is refused" {
	refused "bad rate '10furlongs'" "$CLUSTER" up --topology "$(topo 'switch a' 'node n[1-2] switch=a rate=10furlongs')"
}

@test "a topology with an unknown switch is refused" {
	refused "t.topo:2: unknown switch 'b'" "$CLUSTER" up --topology "$(topo 'switch a' 'node n1 switch=b')"
}

@test "a topology with a malformed node list is refused" {
	# Slurm 22.05 reads it as the names "n[1" and "3", 24.11 refuses it.
	refused "t.topo:2: bad node" "$CLUSTER" up --topology "$(topo 'switch a' 'node n[1,3 switch=a')"
}

@test "a topology with a duplicate node is refused" {
	refused "node 'n2' defined twice" "$CLUSTER" up --topology "$(topo 'switch a' 'node n[1-2] switch=a' 'node n2 switch=a')"
}

@test "a topology with two roots or a parent cycle is refused" {
	refused "exactly one root switch" "$CLUSTER" up --topology "$(topo 'switch a' 'switch b' 'node n[1-2] switch=a')"
	refused "parent cycle" "$CLUSTER" up --topology "$(topo 'switch r' 'switch a parent=b' 'switch b parent=a' 'node n[1-2] switch=a')"
}

@test "a topology whose node count disagrees with --nodes is refused" {
	refused "disagrees" "$CLUSTER" up --nodes 3 --topology "$TOPOLOGIES/2sw-interleaved.topo"
}

@test "a user other than root is refused" {
	local d
	d=$(mktemp -d /var/tmp/topomap-t.XXXXXX)
	chmod 755 "$d"
	install -m 0755 "$CLUSTER" "$d/"
	refused "must be run as root" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$d/topomap-cluster" up --nodes 2
	rm -rf "$d"
}

@test "a missing package is named" {
	local d t
	d=$(mktemp -d)
	for t in slurmctld srun scontrol sinfo munged ip tc unshare flock runuser; do
		ln -s "$(command -v "$t")" "$d/$t"
	done
	PATH=$d:/usr/bin:/bin refused "slurmd not found: install the Debian package slurmd" \
		"$CLUSTER" up --nodes 2
	rm -rf "$d"
}

@test "a failure half-way through up takes down what was built" {
	run env TOPOMAP_CLUSTER_TIMEOUT=0 "$CLUSTER" up --nodes 3
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"nodes not idle after 0s"* ]]
	[[ "$output" == *"up failed; taking down what was built"* ]]
	[ -z "$(cluster_leftovers)" ]
	run "$CLUSTER" status
	[ "$status" -eq 3 ]
}
