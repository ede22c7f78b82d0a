#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The packages.  Debian's (debian/): dpkg-buildpackage builds them from
# the release tarball, lintian finds no error, the plugin lands where this
# Debian's Slurm loads plugins with a commented plugstack.conf.d line, and,
# installed on this system (a Debian root of the tests, or the CI
# machine) and enabled by that one line, they place the demo's ranks from
# the installed files alone; they are purged at the end.  RPM's
# (topomap.spec): the spec parses, builds a source rpm from the tarball,
# and, with this Debian's MPI paths and no dependency check (this is no
# RPM distribution), binary rpms with the Debian packages' files.

load lib/cluster
load lib/plugin

PKGS="slurm-spank-topomap topomap topomap-openmpi topomap-mpich topomap-cluster"

setup_file() {
	need_cluster
	export PKGDIR=$BATS_FILE_TMPDIR/pkg
	# A topomap installed otherwise would be replaced, then purged.
	local p
	for p in $PKGS; do
		if dpkg-query -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii'; then
			echo "package $p is installed on this system: the package test would replace it" >&2
			return 1
		fi
	done
}

teardown_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	[ ! -x /usr/sbin/topomap-cluster ] || /usr/sbin/topomap-cluster down >&2
	# shellcheck disable=SC2086
	dpkg --purge $PKGS >&2 || true
}

setup() {
	need_cluster
}

# debs: the packages built, not their debug symbols.
debs() {
	local p
	for p in $PKGS; do
		ls "$PKGDIR/${p}_"*.deb
	done
}

@test "dpkg-buildpackage builds the packages from the release tarball" {
	local version
	version=$(sed -n 's/^PACKAGE_VERSION = //p' "$TOPOMAP_BUILDDIR/Makefile")
	mkdir -p "$PKGDIR"
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOPOMAP_BUILDDIR" dist
	[ "$status" -eq 0 ]
	tar -C "$PKGDIR" -xzf "$TOPOMAP_BUILDDIR/topomap-$version.tar.gz"
	cd "$PKGDIR/topomap-$version"
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DEB_BUILD_OPTIONS="nocheck parallel=2" \
		dpkg-buildpackage -b -us -uc
	echo "$output" | tail -30
	[ "$status" -eq 0 ]
	debs
	[ "$(debs | wc -l)" -eq 5 ]
}

@test "topomap.spec parses and builds a source rpm from the tarball" {
	local version
	version=$(sed -n 's/^PACKAGE_VERSION = //p' "$TOPOMAP_BUILDDIR/Makefile")
	run rpmspec -P "$PKGDIR/topomap-$version/topomap.spec"
	[ "$status" -eq 0 ]
	grep -qx "Version: *$version" <<<"$output"
	run rpmbuild -ts --define "_topdir $PKGDIR/rpm" "$TOPOMAP_BUILDDIR/topomap-$version.tar.gz"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -s "$PKGDIR/rpm/SRPMS/topomap-$version-1.src.rpm" ]
}

@test "rpmbuild -tb builds the same packages with the same files" {
	local version p deb rpm
	version=$(sed -n 's/^PACKAGE_VERSION = //p' "$TOPOMAP_BUILDDIR/Makefile")
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL rpmbuild -tb --nodeps --define "_topdir $PKGDIR/rpm" \
		--define "openmpi_mpicc mpicc.openmpi" --define "mpich_mpicc mpicc.mpich" \
		--define "mpi_pkgconfig_path /usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pkgconfig" \
		"$TOPOMAP_BUILDDIR/topomap-$version.tar.gz"
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	# Each package's files by name (paths differ: lib64, multiarch, .gz); the
	# licence is debian/copyright in one, %license COPYING in the other.
	names() { sed -e 's|.*/||' -e 's|\.gz$||' | grep -v -E '^(changelog|copyright|COPYING)$' | sort; }
	for p in $PKGS; do
		deb=$(dpkg-deb -c "$PKGDIR/${p}_"*.deb | awk '$1 !~ /^d/ { print $6 }' | names)
		rpm=$(rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$PKGDIR"/rpm/RPMS/*/"$p"-"$version"-1.*.rpm |
			awk '$1 !~ /^d/ && $2 !~ /\/\.build-id\// { print $2 }' | names)
		echo "== $p"
		diff <(echo "$deb") <(echo "$rpm")
	done
}

@test "lintian finds no error in them" {
	run lintian --fail-on error "$PKGDIR"/topomap_*.changes
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q '^E: ' <<<"$output"
}

@test "the plugin goes where Slurm loads plugins, enabled by nothing but a commented line" {
	local slurmdir deb
	slurmdir=$(dirname "$(dpkg -L slurm-wlm-basic-plugins | grep '/mpi_pmi2\.so$')")
	deb=$(ls "$PKGDIR"/slurm-spank-topomap_*.deb)
	run dpkg-deb -c "$deb"
	echo "$output"
	grep -q " \.$slurmdir/topomap\.so$" <<<"$output"
	grep -q ' \./etc/slurm/plugstack\.conf\.d/topomap\.conf$' <<<"$output"
	# Debian's plugstack.conf includes the directory; the line is there,
	# commented out, naming the installed plugin.
	grep -qx 'include /etc/slurm/plugstack.conf.d/\*.conf' /etc/slurm/plugstack.conf
	run sh -c "dpkg-deb --fsys-tarfile '$deb' | tar -xOf - ./etc/slurm/plugstack.conf.d/topomap.conf"
	echo "$output"
	[ "$(grep -vc '^#' <<<"$output")" -eq 0 ]
	[ "$(grep -cx "#optional $slurmdir/topomap.so" <<<"$output")" -eq 1 ]
	# It is built for this Slurm and says so.
	run dpkg-deb -f "$deb" Depends
	[[ "$output" == *"slurm-wlm-basic-plugins (>= $(dpkg-query -W -f '${source:Upstream-Version}' libslurm-dev))"* ]]
}

@test "installed and enabled by its one line, the demo's ranks are placed from the installed files" {
	# shellcheck disable=SC2046
	run dpkg -i $(debs)
	echo "$output"
	[ "$status" -eq 0 ]
	/usr/sbin/topomap-cluster down >&2
	/usr/sbin/topomap-cluster up --topology /usr/share/topomap/topologies/2sw-interleaved.topo >&2
	sed -n 's/^#optional /optional /p' /etc/slurm/plugstack.conf.d/topomap.conf \
		>"$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf"
	cat "$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf"
	[ "$(wc -l <"$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf")" -eq 1 ]
	# The program is the user's: the demo's 2-D halo exchange.
	stage_mpi miniapp
	export XDG_CACHE_HOME=$SHARE/cache.pkg
	run in_alloc -N8 --ntasks-per-node=2 -- "srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp && srun --mpi=$MPI_TYPE --topo-map $SHARE/miniapp && srun -v --mpi=$MPI_TYPE --topo-map $SHARE/miniapp"
	echo "$output"
	[ "$status" -eq 0 ]
	mapfile -t said < <(grep '^srun: topomap:' <<<"$output" | quiet_lines | sed 's/ ([0-9.]* s)$//')
	[[ "${said[0]}" == "srun: topomap: no profile of $SHARE/miniapp for 16 tasks yet: recording one" ]]
	[[ "${said[1]}" == "srun: topomap: recorded the profile of $SHARE/miniapp for 16 tasks: "* ]]
	[[ "${said[3]}" == "srun: topomap: recorded a second profile of $SHARE/miniapp for 16 tasks, to plan from what recurs: "* ]]
	[[ "${said[*]}" == *"srun: topomap: placed 16 ranks on 8 nodes, predicted gain "* ]]
	# From the installed files: the one plugstack line names the
	# installed plugin, whose built-in paths (topomap.so(8)) lead to the
	# installed probe, which -v shows, and recorder: this build tree's own
	# are named nowhere.
	grep -qx "optional $(dpkg -L slurm-spank-topomap | grep '/topomap\.so$')" \
		"$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf"
	grep -q "^srun: topomap: probing 8 nodes with /usr/bin/$MPI_PROBE over --mpi=$MPI_TYPE$" <<<"$output"
	dpkg -L "topomap-$MPI_FAMILY" | grep -qx "/usr/bin/$MPI_PROBE"
}
