#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The C sources are as clang-format writes them with the tree's
# .clang-format (100 columns), lib/'s files stand in layers: no two
# call each other, directly or round a circle, and no bats test asserts
# what cannot fail it.  clang-format's output
# differs between its releases: this is Debian 12's, clang-format 14, and
# the suite runs on the first generation only (tagged once:
# TOPOMAP_ONCE=no in the roots).

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

# lib/'s files call each other in layers, a base under the parts under
# what tries them: from the built objects' symbols (nm), file A calls file
# B when A uses a symbol B defines; a file that calls none of the files
# left, or that none of them calls, is in no circle and is peeled off, in
# turn, until what stays is the circles.
@test "no two files of lib/ call each other, directly or round a circle" {
	local libs=${TOPOMAP_BUILDDIR:-$BATS_TEST_DIRNAME/..}/lib/.libs o name
	# libtopomap's objects, and its slurm and hwloc parts' (libtool names
	# those after their library).
	for o in "$libs"/*.o; do
		name=${o##*/}
		[[ "$name" =~ ^([a-z_]+|libtopomap_(slurm|hwloc)_la-[a-z_]+)\.o$ ]] || continue
		name=${name#libtopomap_*_la-}
		nm "$o" >"$BATS_TEST_TMPDIR/${name%.o}" || return 1
	done
	[ "$(ls "$BATS_TEST_TMPDIR" | wc -l)" -ge 40 ]
	cd "$BATS_TEST_TMPDIR"
	run awk '
		FNR == 1 { files[FILENAME] = 1 }
		$1 == "U" { used[FILENAME, $2] = 1; next }
		NF == 3 && $2 ~ /^[TDBR]$/ { def[$3] = FILENAME }
		END {
			for (k in used) {
				split(k, p, SUBSEP)
				if ((p[2] in def) && def[p[2]] != p[1])
					calls[p[1], def[p[2]]] = 1
			}
			do {
				peeled = 0
				for (a in files) {
					if (a in gone)
						continue
					# calling no file left, or called by none
					out = inc = 0
					for (k in calls) {
						split(k, p, SUBSEP)
						if (p[1] == a && !(p[2] in gone))
							out = 1
						if (p[2] == a && !(p[1] in gone))
							inc = 1
					}
					if (!out || !inc) {
						gone[a] = 1
						peeled = 1
					}
				}
			} while (peeled)
			for (k in calls) {
				split(k, p, SUBSEP)
				if (!(p[1] in gone) && !(p[2] in gone))
					print p[1] ".c calls " p[2] ".c"
			}
		}' *
	echo "$output" | sort
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# bash's errexit, which fails a bats test, ignores a command negated by
# "!" and every command of an "&&" list but the last: "! grep -q x" or
# "[ a ] && [ b ]" in the middle of a test asserts nothing (bats-core's
# gotchas; "! cmd || false" does).
@test "no bats test line asserts with ! or && what cannot fail the test" {
	cd "${TOPOMAP_SRCDIR:-$BATS_TEST_DIRNAME/..}"
	run grep -nE '^[[:space:]]+(! [^|]*|(\[\[? [^|]*\]\]?|! [^|]*) && (\[|!)[^|]*)$' t/*.bats
	echo "$output"
	[ "$status" -eq 1 ]
	# the check sees both
	printf '\t! grep -q x <<<"$y"\n\t[ -n "$a" ] && [ -n "$b" ]\n' >"$BATS_TEST_TMPDIR/x.bats"
	run grep -cE '^[[:space:]]+(! [^|]*|(\[\[? [^|]*\]\]?|! [^|]*) && (\[|!)[^|]*)$' "$BATS_TEST_TMPDIR/x.bats"
	[ "$output" = 2 ]
}
