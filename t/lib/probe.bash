# SPDX-License-Identifier: GPL-2.0-or-later
# probe.bash: helpers for the probe suites (load after lib/cluster).

# The probe of MPI_FAMILY (lib/mpi.sh), staged as $SHARE/$MPI_PROBE.
PROBE=$MPI_PROBE_BUILT
TOPOMAP=$TOPOMAP_BUILDDIR/cli/topomap

# run_probe NODES [ARGS...]: the probe on NODES nodes, one rank each.
# The emulated nodes share this machine's two cores, so pairs measured at
# once would steal each other's CPU and time the scheduler, not the
# network: measure one pair at a time (--concurrency 1).
run_probe() {
	local n=$1
	shift
	srun --overlap --mpi=$MPI_TYPE -N"$n" -n"$n" --ntasks-per-node=1 "$SHARE/$MPI_PROBE" -j 1 "$@"
}

# The switch tree topomap-cluster built, in the canonical nested form that
# `topomap netmap show` prints as "tree: ...": hosts first, in Slurm's node
# order, then child switches in order of their lowest host.
configured_tree() {
	local topo=$TOPOMAP_CLUSTER_DIR/topology order
	order=$(awk '$1 == "node" {print $2}' "$topo" | sort -V | tr '\n' ' ')
	awk -v order="$order" '
	function low(s,    h, m, c, x) {
		m = 1e9
		for (h in sw_of) if (sw_of[h] == s && rank[h] < m) m = rank[h]
		for (c in parent) if (parent[c] == s) { x = low(c); if (x < m) m = x }
		return m
	}
	function nest(s,    out, i, h, c, n, kids, lows, j, t) {
		out = ""
		for (i = 1; i <= nh; i++) if (sw_of[name[i]] == s) out = out (out == "" ? "" : " ") name[i]
		n = 0
		for (c in parent) if (parent[c] == s) { kids[++n] = c; lows[n] = low(c) }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (lows[j] < lows[i]) {
			t = kids[i]; kids[i] = kids[j]; kids[j] = t; t = lows[i]; lows[i] = lows[j]; lows[j] = t
		}
		for (i = 1; i <= n; i++) out = out (out == "" ? "" : " ") nest(kids[i])
		return "(" out ")"
	}
	BEGIN { nh = split(order, name, " "); for (i = 1; i <= nh; i++) rank[name[i]] = i }
	$1 == "switch" { sub("parent=", "", $3); if ($3 == "-") root = $2; else parent[$2] = $3 }
	$1 == "node" { sub("switch=", "", $3); sw_of[$2] = $3 }
	END { print nest(root) }' "$topo"
}
