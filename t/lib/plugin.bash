# plugin.bash: helpers for the plugin suites (load after lib/cluster).

TOPOMAP=$TOPOMAP_BUILDDIR/lib/topomap
FIXTURES=$TOPOMAP_SRCDIR/t/fixtures

# plugin_setup: stage what the plugin and the tests run, a plugstack.conf
# that finds them, and a profile cache every node sees.
plugin_setup() {
	stage "$TOPOMAP" "$TOPOMAP_BUILDDIR"/lib/.libs/topomap-recorder-*.so || return 1
	stage_mpi miniapp hello || return 1
	[ ! -x "$TOPOMAP_BUILDDIR/t/mpich/hello" ] ||
		install -m 0755 "$TOPOMAP_BUILDDIR/t/mpich/hello" "$SHARE/hello.mpich" || return 1
	builddir=$TOPOMAP_BUILDDIR install_probes "$SHARE" || return 1
	[ -x "$SHARE/$MPI_PROBE" ] || { echo "$MPI_PROBE: not built (is $MPI_FAMILY installed?)" >&2; return 1; }
	install -m 0644 "$FIXTURES/halo2d-16.json" "$SHARE/halo16.json" || return 1
	plugstack
}

# plugstack [ARGS...]: the plugin's line in plugstack.conf: the staged
# probes and recorders, one pair measured at a time (the nodes share two
# cores), then ARGS, which replace those of the same name.
plugstack() {
	local args=("probe=$SHARE/topomap-probe" "probe_mpich=$SHARE/topomap-probe-mpich"
		"recorder_dir=$SHARE" "probe_pairs=1") a out=()
	for a in "${args[@]}"; do
		[[ " $* " == *" ${a%%=*}="* ]] || out+=("$a")
	done
	echo "optional $TOPOMAP_CLUSTER_DIR/lib/topomap.so ${out[*]} $*" \
		>"$TOPOMAP_CLUSTER_DIR/etc/plugstack.conf"
}

# in_alloc SALLOC_ARGS... -- SCRIPT: run SCRIPT (bash) in a new allocation.
in_alloc() {
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	salloc -Q "${args[@]}" bash -c "$1"
}

# hosts_of: "rank host" lines of hello's output, sorted by rank.
hosts_of() {
	sed -n 's/^rank=\([0-9]*\) .* host=\([^ ]*\) .*/\1 \2/p' | sort -n
}

# shared_by_host: whether, in hello's output, every rank's node-shared
# communicator holds exactly the ranks on its host: as many, and the same
# lowest rank (says which do not; fails on no ranks).
shared_by_host() {
	awk '/^rank=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			r = f["rank"]; h = f["host"]; host[r] = h; shared[r] = f["local"]; first[r] = f["first"]
			on[h]++; if (!(h in low) || r + 0 < low[h]) low[h] = r + 0 }
		END { if (!length(host)) { print "no ranks"; exit 1 }
			for (r in host) if (shared[r] != on[host[r]] || first[r] != low[host[r]]) {
				print "rank " r " shares its node with " shared[r] - 1 " ranks from rank " first[r] ", " host[r] " runs " on[host[r]] " from rank " low[host[r]]; bad = 1 }
			exit bad + 0 }'
}
