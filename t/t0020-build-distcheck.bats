#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# make distcheck: the tarball builds out of tree, passes the unit tests,
# installs and uninstalls cleanly.  Tagged once: in a Debian root
# (t/check-generations, TOPOMAP_ONCE=no) the same tarball was checked on
# this machine, and the root builds the tree afresh and its packages from
# the tarball (t0050).

# bats file_tags=once

@test "make distcheck passes" {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j"$(nproc)" -C "$TOPOMAP_BUILDDIR" distcheck
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	[[ "$output" == *"topomap-"*"archives ready for distribution"* ]]
}
