#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The C sources are as clang-format writes them with the tree's
# .clang-format (100 columns).  clang-format's output differs between its
# releases: this is Debian 12's, clang-format 14, and the suite runs on the
# first generation only (tagged once: TOPOMAP_ONCE=no in the roots).

# bats file_tags=once

@test "every C source is as clang-format 14 writes it with the tree's .clang-format" {
	cd "${TOPOMAP_SRCDIR:-$BATS_TEST_DIRNAME/..}"
	run clang-format --version
	echo "$output"
	[ "$status" -eq 0 ] || { echo "clang-format not found: install the Debian package clang-format"; false; }
	[[ "$output" == *"clang-format version 14."* ]] || { echo "the house style is clang-format 14's (Debian 12)"; false; }
	if [ -d .git ]; then
		git ls-files '*.c' '*.h'
	else
		find lib cli recorder spank probe fuzz t -path fuzz/corpus -prune -o -path fuzz/seeds -prune -o \
			-name '*.[ch]' -print
	fi | grep -v '^config\.h$' >"$BATS_TEST_TMPDIR/sources"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/sources")" -ge 100 ]
	run xargs -a "$BATS_TEST_TMPDIR/sources" clang-format --style=file --dry-run -Werror
	echo "$output" | head -40
	[ "$status" -eq 0 ]
}
