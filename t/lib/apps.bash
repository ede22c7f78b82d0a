# SPDX-License-Identifier: GPL-2.0-or-later
# apps.bash: helpers for the suites that run real applications (Debian's
# LAMMPS): what their decomposition says each rank sends to, against what
# the recorder recorded.

# lammps_pairs GRID: the directed pairs "i j" of world ranks that are face
# neighbours, periodic, in the processor grid LAMMPS wrote to GRID
# ("processors * * * file GRID": "Px Py Pz = a b c", then a line
# "world-ID universe-ID original-ID: I J K: name" a rank, I, J, K from 1).
# A rank is not its own neighbour (a dimension of one processor).
lammps_pairs() {
	awk '/^Px Py Pz = / { P[1] = $5; P[2] = $6; P[3] = $7 }
		/^[0-9]+ [0-9]+ [0-9]+: [0-9]+ [0-9]+ [0-9]+:/ {
			sub(":", "", $3); id = $1; c[id, 1] = $4 - 1; c[id, 2] = $5 - 1; c[id, 3] = $6 - 1
			at[$4 - 1, $5 - 1, $6 - 1] = id; n++ }
		END {
			if (!n || P[1] * P[2] * P[3] != n) { print "lammps_pairs: no grid of " n " ranks" > "/dev/stderr"; exit 1 }
			for (r = 0; r < n; r++)
				for (d = 1; d <= 3; d++)
					for (s = -1; s <= 1; s += 2) {
						for (k = 1; k <= 3; k++) x[k] = c[r, k]
						x[d] = (x[d] + s + P[d]) % P[d]
						q = at[x[1], x[2], x[3]]
						if (q != r) print r, q }
		}' "$1" | sort -u
}

# decomposition_check MATRIX PAIRS: MATRIX, bytes from rank i (row) to j
# (column) as `topomap profile export --what bytes` writes it, against
# PAIRS ("i j" lines): no bytes between ranks that are not a pair, and
# every pair at least a tenth of the pairs' median (none missing).  Says
# what differs; fails then.
decomposition_check() {
	awk -F, 'FILENAME == ARGV[1] { split($0, p, " "); want[p[1], p[2]] = 1; nwant++; next }
		{ i = FNR - 1
		  for (j = 0; j < NF; j++) {
			v = $(j + 1) + 0
			if ((i, j) in want) got[++ng] = v
			else if (i != j && v > 0) { print "ranks " i " -> " j ": " v " bytes, not neighbours in the decomposition"; bad = 1 }
			if ((i, j) in want) val[i, j] = v } }
		END {
			if (!nwant || ng != nwant) { print "the matrix has " ng + 0 " of the decomposition'"'"'s " nwant + 0 " pairs"; exit 1 }
			for (a = 1; a <= ng; a++) for (b = a + 1; b <= ng; b++) if (got[b] < got[a]) { t = got[a]; got[a] = got[b]; got[b] = t }
			med = got[int((ng + 1) / 2)]
			for (k in val) if (val[k] < med / 10) { split(k, ij, SUBSEP); print "ranks " ij[1] " -> " ij[2] ": " val[k] " bytes, a neighbour pair the recording misses (median " med ")"; bad = 1 }
			exit bad + 0 }' "$2" "$1"
}

# matrices_within A B FRACTION: two matrices (CSV, as topomap profile
# export writes them) of one size whose every entry differs by at most
# FRACTION of the larger of the two; says which do not, fails then.
matrices_within() {
	paste -d '\n' "$1" "$2" | awk -F, -v f="$3" '
		NR % 2 { n = split($0, a, ","); next }
		{ i = (NR / 2) - 1
		  if (NF != n) { print "row " i ": " n " against " NF " entries"; bad = 1; next }
		  for (j = 1; j <= NF; j++) {
			x = a[j] + 0; y = $j + 0; m = x > y ? x : y; d = x > y ? x - y : y - x
			if (d > f * m) { print "ranks " i " -> " j - 1 ": " x " against " y " bytes"; bad = 1 } } }
		END { if (NR == 0 || NR % 2) { print "the matrices differ in rows"; bad = 1 } exit bad + 0 }'
}

# hpcc_grid RANKS: "P Q", HPCC's process grid for RANKS ranks: P x Q =
# RANKS, P the largest divisor up to its square root.
hpcc_grid() {
	local n=$1 p=1 k
	for ((k = 1; k * k <= n; k++)); do ((n % k)) || p=$k; done
	echo "$p $((n / p))"
}

# hpcc_input N NB RANKS [PN]: Debian's HPCC's hpccinf.txt (t/fixtures/hpcc's
# template) for one HPL problem of order N, blocks of NB, on RANKS ranks'
# process grid (hpcc_grid; row-major: rank p * Q + q); PTRANS takes order
# N / 2 on the same grid, and order PN as well when given (HPCC reports
# the faster of the two orders' figures, each the slowest of its five
# transposes; it takes PN only at 0.47 N or more).
hpcc_input() {
	local g pn=0 pns=0
	[ -z "${4:-}" ] || pn=1 pns=$4
	read -ra g < <(hpcc_grid "$3")
	sed -e "s/@N@/$1/" -e "s/@NB@/$2/" -e "s/@P@/${g[0]}/" -e "s/@Q@/${g[1]}/" \
		-e "s/@PN@/$pn/" -e "s/@PNS@/$pns/" "$FIXTURES/hpcc/hpccinf.template"
}

# hpcc_check MATRIX: MATRIX (as decomposition_check reads it) against what
# HPCC's decomposition implies.  MPIRandomAccess sends updates from every
# rank to every other, so every pair of ranks carries bytes (HPL's row and
# column pairs of the process grid among them: too light, beside the rest,
# to be told apart); b_eff's naturally ordered ring sends rank i's 2 MB
# messages to i - 1 and i + 1 (periodic), at least 16 a neighbour (2
# measurements x Sendrecv and Isend loops x 4 iterations): 32 MB a pair at
# least.  Its ten random rings are drawn from the clock at each run, so
# they imply no pair.  Says what differs; fails then.
hpcc_check() {
	awk -F, '
		FNR == 1 { n = NF }
		{ i = FNR - 1; if (NF != n) { print "row " i ": " NF " entries, not " n; bad = 1 }
		  for (j = 0; j < NF; j++) m[i, j] = $(j + 1) + 0 }
		END {
			if (FNR != n || n < 2) { print "the matrix has " FNR " rows of " n " entries"; exit 1 }
			for (i = 0; i < n; i++) for (j = 0; j < n; j++) {
				if (i == j) { if (m[i, j] > 0) { print "rank " i " sends " m[i, j] " bytes to itself"; bad = 1 }; continue }
				if (m[i, j] <= 0) { print "ranks " i " -> " j ": 0 bytes, a pair RandomAccess sends between"; bad = 1 } }
			for (i = 0; i < n; i++) for (s = -1; s <= 1; s += 2) {
				j = (i + s + n) % n
				if (m[i, j] < 32000000) { print "ranks " i " -> " j ": " m[i, j] " bytes, b_eff'"'"'s natural ring neighbours below 32 MB"; bad = 1 } }
			exit bad + 0 }' "$1"
}

# topology_scaled FILE FACTOR: topomap-cluster's topology FILE with every
# rate FACTOR times higher (in mbit), the same shape and ratios otherwise.
# HPCC's b_eff sends fixed 2 MB messages around 11 rings; on the emulated
# cluster's 100 Mbit/s uplinks one run takes about 7 minutes, ten times
# faster links about 45 s.
topology_scaled() {
	awk -v f="$2" '{
		for (i = 1; i <= NF; i++)
			if (match($i, /^rate=[0-9.]+(k|m|g)?bit$/)) {
				v = substr($i, 6) + 0; u = $i; sub(/^rate=[0-9.]+/, "", u)
				m = u == "gbit" ? 1000 : u == "mbit" ? 1 : u == "kbit" ? 0.001 : 0.000001
				$i = sprintf("rate=%gmbit", v * m * f) }
		print }' "$1"
}

# topology_file TOPOLOGIES NAME DIR: the path of NAME.topo in TOPOLOGIES
# (contrib/topologies), or for NAME-xF (2sw-interleaved-x10) that topology
# with its rates F times higher (topology_scaled), written into DIR.
topology_file() {
	local name=${2%-x[0-9]*}
	[ "$name" = "$2" ] && { echo "$1/$2.topo"; return; }
	topology_scaled "$1/$name.topo" "${2##*-x}" >"$3/$2.topo" && echo "$3/$2.topo"
}
