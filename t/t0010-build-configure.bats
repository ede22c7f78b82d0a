#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# configure stops on a missing hard dependency with one line naming the
# Debian package to install; no function of the distributed sources runs
# over 120 lines.

# Each test configures a clean copy of the distributed sources.  The
# missing dependencies are tagged once: their error paths are
# configure.ac's, the same on every generation; what each generation's
# configure finds, its summary test says there.
setup_file() {
	: "${TOPOMAP_BUILDDIR:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
	export SRC=$BATS_FILE_TMPDIR/src
	local distdir
	distdir=$(sed -n 's/^PACKAGE_TARNAME = //p' "$TOPOMAP_BUILDDIR/Makefile")-$(sed -n 's/^PACKAGE_VERSION = //p' "$TOPOMAP_BUILDDIR/Makefile")
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOPOMAP_BUILDDIR" distdir >&2
	mv "$TOPOMAP_BUILDDIR/$distdir" "$SRC"
}

setup() {
	cd "$SRC"
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

# bats test_tags=once
@test "a missing json-c names libjson-c-dev" {
	configure_fails "install the Debian package libjson-c-dev" \
		PKG_CONFIG_LIBDIR=/nonexistent ./configure
}

# bats test_tags=once
@test "a missing hwloc names libhwloc-dev" {
	# json-c found where it is, hwloc nowhere: a pkg-config path of
	# json-c's directory alone
	local dir
	dir=$(mktemp -d "$BATS_FILE_TMPDIR/pc.XXXXXX")
	cp "$(pkg-config --variable=pcfiledir json-c)/json-c.pc" "$dir/"
	configure_fails "install the Debian package libhwloc-dev" \
		PKG_CONFIG_LIBDIR="$dir" ./configure
}

# bats test_tags=once
@test "a missing Scotch names libscotch-dev" {
	configure_fails "install the Debian package libscotch-dev" \
		./configure --with-scotch=/nonexistent
}

# bats test_tags=once
@test "a missing Slurm names libslurm-dev" {
	configure_fails "install the Debian package libslurm-dev" \
		./configure --with-slurm=/nonexistent CPPFLAGS=-I/nonexistent ac_cv_header_slurm_spank_h=no
}

# bats test_tags=once
@test "a missing MPI compiler names libopenmpi-dev" {
	configure_fails "install the Debian packages openmpi-bin and libopenmpi-dev" \
		./configure MPICC=no
}

@test "configure's summary names every dependency it found" {
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ./configure
	[ "$status" -eq 0 ]
	for dep in "C compiler:" "sanitizers:" "Slurm:" "json-c:" "hwloc:" "Scotch:" "MPI compiler:" "bats:"; do
		grep -q "^    $dep" <<<"$output"
	done
	# The Slurm installed here, and whether its hostlist_t is opaque (23.11+).
	local n want ptr=no
	n=$(awk '$1 == "#define" && $2 == "SLURM_VERSION_NUMBER" { print $3 }' /usr/include/slurm/slurm_version.h)
	want=$(printf '%d.%02d.%d' $((n >> 16)) $(((n >> 8) & 255)) $((n & 255)))
	[ $((n)) -lt $(((23 << 16) + (11 << 8))) ] || ptr=yes
	echo "want Slurm $want, hostlist_t *: $ptr"
	[[ "$output" == *"Slurm:             $want ("*"hostlist_t *: $ptr)"* ]]
}

# Every function of the plugin, the probe, the CLI and the library, by its
# length from the line of its name to its closing brace (both in column
# one, as the tree's .clang-format writes them): "LINES FILE:LINE NAME".
function_lengths() {
	awk '/^[A-Za-z].*\(/ && !/;[ \t]*$/ { name = $0; at = FNR }
	     /^\{/ { start = at }
	     /^\}/ && start { match (name, /[A-Za-z_][A-Za-z_0-9]* ?\(/)
	                      print FNR - start + 1, FILENAME ":" start, substr (name, RSTART, RLENGTH - 1)
	                      start = 0 }' "$@"
}

@test "no function of lib/, cli/, recorder/, spank/ and probe/ runs over 120 lines (the ten longest are said)" {
	local longest
	function_lengths lib/*.c cli/*.c recorder/*.c spank/*.c probe/*.c | sort -rn | head -10 >"$BATS_TEST_TMPDIR/longest"
	sed 's/^/# /' "$BATS_TEST_TMPDIR/longest" >&3
	[ "$(wc -l <"$BATS_TEST_TMPDIR/longest")" -eq 10 ]
	longest=$(head -1 "$BATS_TEST_TMPDIR/longest" | cut -d' ' -f1)
	[ "$longest" -le 120 ]
}
