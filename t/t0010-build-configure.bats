#!/usr/bin/env bats
# configure stops on a missing hard dependency with one line naming the
# Debian package to install.

setup() {
	: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	cd "$BATS_TEST_TMPDIR"
}

# configure_fails PATTERN [VAR=VALUE...] [ARG...]
configure_fails() {
	local pattern=$1
	shift
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@"
	echo "$output" | tail -3
	[ "$status" -ne 0 ]
	[ "$(grep -c '^configure: error:' <<<"$output")" -eq 1 ]
	[[ "$(grep '^configure: error:' <<<"$output")" == *"$pattern"* ]]
}

@test "a missing json-c names libjson-c-dev" {
	configure_fails "install the Debian package libjson-c-dev" \
		PKG_CONFIG_LIBDIR=/nonexistent "$TOPOMAP_SRCDIR/configure"
}

@test "a missing Scotch names libscotch-dev" {
	configure_fails "install the Debian package libscotch-dev" \
		"$TOPOMAP_SRCDIR/configure" --with-scotch=/nonexistent
}

@test "a missing Slurm names libslurm-dev" {
	configure_fails "install the Debian package libslurm-dev" \
		"$TOPOMAP_SRCDIR/configure" --with-slurm=/nonexistent CPPFLAGS=-I/nonexistent ac_cv_header_slurm_spank_h=no
}

@test "a missing MPI compiler names libopenmpi-dev" {
	configure_fails "install the Debian packages openmpi-bin and libopenmpi-dev" \
		"$TOPOMAP_SRCDIR/configure" MPICC=no
}

@test "configure's summary names every dependency it found" {
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$TOPOMAP_SRCDIR/configure"
	[ "$status" -eq 0 ]
	for dep in "C compiler:" "sanitizers:" "Slurm:" "json-c:" "Scotch:" "MPI compiler:" "bats:"; do
		grep -q "^    $dep" <<<"$output"
	done
	[[ "$output" == *"Slurm:             22."* ]]
}
