#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The manual: make install puts every page where man finds it, and each
# page renders with man -l without a single groff warning; the manual, the
# design document and the README name exactly the plugstack arguments and
# TOPOMAP_ variables the code has.

# Tagged once: no cluster, and the same sources on every generation; each
# root's unit tests cover lib/ against its own libraries (t/check-generations).

# bats file_tags=once

PAGES="man1/topomap.1 man1/topomap-probe.1 man1/topomap-probe-mpich.1 man7/topomap-admin.7 man7/topomap-user.7 man8/topomap.so.8 man8/topomap-cluster.8 man8/topomap-epilog.8 man8/topomap-prolog.8 man8/topomap-root.8 man8/topomap-topology.8"

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
		! grep -q '@[A-Za-z_]*@' "$MANDIR/$p" || false
		[ "$(LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$MANDIR/$p" 2>/dev/null | wc -l)" -gt 20 ]
	done
}

@test "the test sees a warning when there is one" {
	printf '.TH X 1\n.SH NAME\nx \\- y\n.nosuchmacro\n' >"$BATS_TEST_TMPDIR/bad.1"
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -E UTF-8 -l "$BATS_TEST_TMPDIR/bad.1" 2>&1 >/dev/null)
	[[ "$out" == *"warning"* ]]
}

# The plugstack arguments lib/conf.c takes (its key table), one a line.
code_keys() {
	sed -n 's/^ *{"\([a-z_]*\)", conf_set_[a-z_]*},$/\1/p' "$SRC/lib/conf.c" | sort -u
}

# The arguments a man page's PLUGSTACK ARGUMENTS section describes.
man_keys() {
	sed -n '/^\.SH PLUGSTACK ARGUMENTS/,/^\.SH /s/^\.BI \([a-z_]*\)= .*/\1/p' "$1" | sort -u
}

# The arguments written on plugstack.conf lines (a line naming topomap.so,
# and the next when it ends in a backslash) in the files given.
plugstack_line_keys() {
	awk '/topomap\.so / { s = substr($0, index($0, "topomap.so ")); go = 1 }
		go && !/topomap\.so / { s = $0 }
		go { n = split(s, w, /[ \t]+/)
			for (i = 1; i <= n; i++) if (w[i] ~ /^[a-z_]+=/) { sub(/=.*/, "", w[i]); print w[i] }
			go = ($0 ~ /\\(e)?$/) }' "$@" | sort -u
}

# TOPOMAP_ variables the code sets or reads: the plugin, the library, the
# CLI, the recorder, the probe (as quoted names), then the scripts and the build.
code_vars() {
	grep -ohE '"TOPOMAP_[A-Z0-9_]+' "$SRC"/lib/*.[ch] "$SRC"/cli/*.[ch] "$SRC"/recorder/*.c \
		"$SRC"/spank/*.[ch] "$SRC"/probe/*.c | tr -d '"' | sort -u
}
script_vars() {
	grep -ohE 'TOPOMAP_[A-Z0-9_]+' "$SRC"/contrib/topomap-* "$SRC"/t/lib/* "$SRC"/t/check-generations \
		"$SRC"/t/in-root "$SRC"/t/run-tests "$SRC"/t/bench/* "$SRC"/configure.ac "$SRC"/Makefile.am | sort -u
}
doc_vars() {
	grep -ohE 'TOPOMAP_[A-Z0-9_]+' "$SRC"/doc/*.in "$SRC"/doc/design.md "$SRC"/README.md | sort -u
}

@test "topomap.so(8) describes exactly the plugstack arguments the plugin takes" {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	[ "$(code_keys | wc -l)" -ge 10 ]
	diff <(code_keys) <(man_keys "$SRC/doc/topomap.so.8.in")
}

@test "every plugstack.conf line in the manual, the design and the README uses arguments the plugin takes" {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	local used
	used=$(plugstack_line_keys "$SRC"/doc/*.in "$SRC/doc/design.md" "$SRC/README.md")
	echo "$used"
	[ -n "$used" ]
	[ -z "$(comm -23 <(echo "$used") <(code_keys))" ]
}

@test "the manual documents every TOPOMAP_ variable of the code, and the docs name none it lacks" {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	[ "$(code_vars | wc -l)" -ge 5 ]
	echo "undocumented: $(comm -23 <(code_vars) <(grep -ohE 'TOPOMAP_[A-Z0-9_]+' "$SRC"/doc/*.in | sort -u))"
	[ -z "$(comm -23 <(code_vars) <(grep -ohE 'TOPOMAP_[A-Z0-9_]+' "$SRC"/doc/*.in | sort -u))" ]
	echo "unknown: $(comm -23 <(doc_vars) <(sort -u <(code_vars) <(script_vars)))"
	[ -z "$(comm -23 <(doc_vars) <(sort -u <(code_vars) <(script_vars)))" ]
}

@test "the checks see an argument or a variable the manual lacks or invents" {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	local page=$BATS_TEST_TMPDIR/topomap.so.8.in
	# One argument dropped from the page; one invented on a plugstack line.
	sed '/^\.BI probe_ttl= /d' "$SRC/doc/topomap.so.8.in" >"$page"
	! diff <(code_keys) <(man_keys "$page") >/dev/null || false
	printf 'optional topomap.so probe_ttl=1 \\\n  no_such_key=2\n' >"$BATS_TEST_TMPDIR/conf"
	[ "$(comm -23 <(plugstack_line_keys "$BATS_TEST_TMPDIR/conf") <(code_keys))" = no_such_key ]
	# A variable the code does not have.
	[ "$(comm -23 <(printf 'TOPOMAP_MODE\nTOPOMAP_NO_SUCH\n') <(sort -u <(code_vars) <(script_vars)))" = TOPOMAP_NO_SUCH ]
}

@test "every source file carries the licence's SPDX line, and COPYING is there" {
	: "${TOPOMAP_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	local f missing=0
	grep -q 'GNU GENERAL PUBLIC LICENSE' "$TOPOMAP_SRCDIR/COPYING"
	grep -q '^  *Version 2, June 1991' "$TOPOMAP_SRCDIR/COPYING"
	while IFS= read -r f; do
		grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' "$f" || { echo "no SPDX line: $f"; missing=1; }
	done < <(cd "$TOPOMAP_SRCDIR" && {
		find lib cli recorder spank probe fuzz t m4 doc -path fuzz/seeds -prune -o -path t/fixtures -prune -o \
			-path t/logs -prune -o -path '*/.libs' -prune -o -path '*/.deps' -prune -o -type f \
			\( -name '*.c' -o -name '*.h' -o -name '*.am' -o -name 'x_ac_*.m4' -o -name '*.bats' \
			-o -name '*.bash' -o -name '*.sh' -o -name '*.map' -o -name '*.[1-8].in' \) -print
		find contrib -maxdepth 1 -type f -name 'topomap-*' -print
	} | sed "s|^|$TOPOMAP_SRCDIR/|")
	[ "$missing" -eq 0 ]
	grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' "$TOPOMAP_SRCDIR/configure.ac"
}

# The source files of the tree that design.md's "Where things live" names,
# one a line: lib/, cli/, recorder/, spank/, probe/, contrib/'s scripts, the test drivers
# and helpers, the MPI and PMI test programs, the benches, the simulator,
# the fuzz harnesses, the m4 macros and the top-level build files (the
# other Makefile.am files are the table's "build" row).  From git where
# the source is a checkout of its own, else (a release tarball) by find;
# find also sees what a build left in the tree, so binaries are dropped.
tree_sources() {
	{
		if [ "$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$SRC" && pwd -P)" ]; then
			git -C "$SRC" ls-files
		else
			(cd "$SRC" && find lib cli recorder spank probe contrib t fuzz m4 -path fuzz/seeds -prune -o \
				-path '*/.libs' -prune -o -path '*/.deps' -prune -o -type f -print
				ls configure.ac Makefile.am)
		fi
	} | grep -E '^((lib|cli|recorder)/[^/]+\.(c|h|map)|spank/[^/]+\.(c|map)|probe/[^/]+\.c|probe/mpich/[^/]+\.[ch]|contrib/topomap-[^/]+|t/(run-tests|check-generations|in-root)|t/lib/[^/]+\.(bash|sh)|t/mpi/[^/]+\.[ch]|t/pmi/[^/]+\.c|t/bench/[^/.]+|t/bench/[^/]+\.c|t/sim/[^/]+\.c|fuzz/[^/]+\.[ch]|fuzz/run|m4/x_ac_[^/]+\.m4|configure\.ac|Makefile\.am)$' |
		while IFS= read -r f; do grep -Iq . "$SRC/$f" && echo "$f"; done | sort -u
}

# The backticked paths in the first column of a design document's "Where
# things live" table.
table_paths() {
	sed -n '/^## Where things live/,/^## /p' "$1" | awk -F'|' '/^\| `/ { print $2 }' |
		grep -o '`[^`]*`' | tr -d '`' | sort -u
}

@test "doc/design.md is at most 4500 words" {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	wc -w <"$SRC/doc/design.md"
	[ "$(wc -w <"$SRC/doc/design.md")" -le 4500 ]
}

@test "doc/design.md's 'Where things live' names every source file of the tree and no file that is not there" {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	[ "$(tree_sources | wc -l)" -ge 80 ]
	[ "$(table_paths "$SRC/doc/design.md" | wc -l)" -ge 80 ]
	echo "< only in the tree, > only in the table:"
	diff <(tree_sources) <(table_paths "$SRC/doc/design.md")
}
