# SPDX-License-Identifier: GPL-2.0-or-later
# plugin.bash: helpers for the plugin suites (load after lib/cluster).

TOPOMAP=$TOPOMAP_BUILDDIR/cli/topomap
FIXTURES=$TOPOMAP_SRCDIR/t/fixtures

# plugin_setup: stage what the plugin and the tests run, a plugstack.conf
# that finds them, and a profile cache every node sees.
plugin_setup() {
	stage "$TOPOMAP" "$TOPOMAP_BUILDDIR"/recorder/.libs/topomap-recorder-*.so || return 1
	stage_mpi miniapp hello || return 1
	[ ! -x "$TOPOMAP_BUILDDIR/t/mpich/hello" ] ||
		install -m 0755 "$TOPOMAP_BUILDDIR/t/mpich/hello" "$SHARE/hello.mpich" || return 1
	builddir=$TOPOMAP_BUILDDIR install_probes "$SHARE" || return 1
	[ -x "$SHARE/$MPI_PROBE" ] || { echo "$MPI_PROBE: not built (is $MPI_FAMILY installed?)" >&2; return 1; }
	install -m 0644 "$FIXTURES/halo2d-16.json" "$SHARE/halo16.json" || return 1
	[ ! -x "$TOPOMAP_BUILDDIR/t/pmi/pmimap" ] || stage "$TOPOMAP_BUILDDIR/t/pmi/pmimap" || return 1
	plugstack
	MPICH_VIEW=mpi
	if [ -x "$SHARE/hello.mpich" ]; then
		MPICH_VIEW=$(mpich_view) || return 1
	fi
	HELLO_VIEW=mpi
	[ "$MPI_FAMILY" != mpich ] || HELLO_VIEW=$MPICH_VIEW
	export MPICH_VIEW HELLO_VIEW
}

# Which ranks share a node, as the suites check it (node_view): MPI's own
# view, the MPI_COMM_TYPE_SHARED communicator hello prints; or, for an
# MPICH that keeps no node map, the PMI_process_mapping Slurm serves it,
# as pmimap (t/pmi, Slurm's PMI-2 client) prints it.  MPICH 5 built for
# ch4:ucx, as Debian's is (testing), has no shared-memory module, and
# since MPICH commit c1af5ce839 (first in 5.0.0b1) such a build is
# ENABLE_NO_LOCAL: every rank alone on its node whatever PMI says, under
# srun and mpiexec alike.  MPICH 4.0 and 4.2 for ch4:ucx (Debian 12, 13)
# build their node map from PMI_process_mapping.

# mpich_view: "mpi" when the two ranks of a one-node step see each other
# in MPI_COMM_TYPE_SHARED, "pmi" when each sees itself alone (then pmimap
# must be built); fails otherwise.
mpich_view() {
	local out
	out=$(in_alloc -N1 -n2 -- "srun --mpi=pmi2 $SHARE/hello.mpich" 2>&1)
	case "$(grep -c '^rank=.* local=2 first=0$' <<<"$out") $(grep -c '^rank=.* local=1 ' <<<"$out")" in
	"2 0") echo mpi ;;
	"0 2")
		[ -x "$SHARE/pmimap" ] || {
			echo "MPICH keeps no node map and pmimap is not built: install libpmi2-0-dev and configure again" >&2
			return 1
		}
		echo pmi ;;
	*)
		echo "mpich_view: a one-node step of two ranks printed:" >&2
		echo "$out" >&2
		return 1 ;;
	esac
}

# viewed_step VIEW OUT COMMAND PROGRAM: for in_alloc's SCRIPT, the step
# COMMAND PROGRAM (COMMAND: srun with its arguments, environment before
# it; PROGRAM: a hello) with its output into OUT; where VIEW is pmi, then
# the same step with pmimap in hello's place, into OUT.pmi.
viewed_step() {
	printf '%s %s > %s' "$3" "$4" "$2"
	[ "$1" != pmi ] || printf ' && %s %s > %s.pmi' "$3" "$SHARE/pmimap" "$2"
}

# view_of VIEW OUT: the file that says which ranks share a node: OUT,
# hello's output, or where VIEW is pmi, OUT.pmi (viewed_step), after
# checking that its ranks ran on the same hosts as OUT's.
view_of() {
	if [ "$1" = pmi ]; then
		[ "$(hosts_of <"$2")" = "$(hosts_of <"$2.pmi")" ] ||
			{ echo "pmimap's ranks ran elsewhere than hello's" >&2; return 1; }
		echo "$2.pmi"
	else
		echo "$2"
	fi
}

# node_view VIEW OUT: every rank's node is shared with exactly the ranks
# on its host (shared_by_host), in the view VIEW of hello's output OUT.
node_view() {
	local f
	f=$(view_of "$1" "$2") && shared_by_host <"$f"
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

# predicted_vs_srun ALLOC_ARGS -- SRUN_ARGS: the layout the plugin predicts
# (its "step of" line under srun -v) and the one srun gives (srun -l
# hostname), each as "host:count,..." over runs of consecutive ranks.
predicted_vs_srun() {
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	in_alloc "${args[@]}" -- "srun -v -l --topo-map --topo-profile=off $* hostname" 2>&1 |
		awk '/topomap: step of / { sub(/.*\): /, ""); print "predicted " $0 }
		     /^ *[0-9]+: / { sub(/:/, ""); host[$1] = $2; if ($1 + 1 > n) n = $1 + 1 }
		     END { for (r = 0; r < n; r++) { if (host[r] != last) { if (c) { s = s sep last ":" c; sep = "," } last = host[r]; c = 0 } c++ }
		           print "srun " s sep last ":" c }'
}

# predictions_match CASE...: for each CASE ("ALLOC_ARGS -- SRUN_ARGS"), the
# plugin's predicted layout is srun's own (predicted_vs_srun); fails at the
# first that is not.
predictions_match() {
	local case out want
	for case in "$@"; do
		out=$(predicted_vs_srun $case)
		echo "salloc ${case/ -- / / srun }: $out"
		want=$(sed -n 's/^srun //p' <<<"$out")
		[ -n "$want" ] || return 1
		grep -qxF "predicted $want" <<<"$out" || return 1
	done
}

# quiet_lines: standard input without the line srun --topo-map prints,
# unasked, while a probe takes more than two seconds (its progress, not
# what a test counts).
quiet_lines() {
	grep -v '^srun: topomap: probing the network of [0-9]* nodes before the step starts$'
}
