#!/usr/bin/env bats
# The manual: make install puts every page where man finds it, and each
# page renders with man -l without a single groff warning.

PAGES="man1/topomap.1 man1/topomap-probe.1 man7/topomap-admin.7 man7/topomap-user.7 man8/topomap.so.8 man8/topomap-cluster.8 man8/topomap-root.8"

setup_file() {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	export MANDIR=$BATS_FILE_TMPDIR/man
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOPOMAP_BUILDDIR/doc" install mandir="$MANDIR" >&2
}

@test "make install installs every page" {
	local p
	for p in $PAGES; do
		echo "$MANDIR/$p"
		[ -s "$MANDIR/$p" ]
	done
}

@test "every page renders without a warning, its placeholders filled" {
	local p out
	for p in $PAGES; do
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -E UTF-8 -l "$MANDIR/$p" 2>&1 >/dev/null)
		echo "$p: $out"
		[ -z "$out" ]
		! grep -q '@[A-Za-z_]*@' "$MANDIR/$p"
		[ "$(LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$MANDIR/$p" 2>/dev/null | wc -l)" -gt 20 ]
	done
}

@test "the test sees a warning when there is one" {
	printf '.TH X 1\n.SH NAME\nx \\- y\n.nosuchmacro\n' >"$BATS_TEST_TMPDIR/bad.1"
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -E UTF-8 -l "$BATS_TEST_TMPDIR/bad.1" 2>&1 >/dev/null)
	[[ "$out" == *"warning"* ]]
}
