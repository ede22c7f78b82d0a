# SPDX-License-Identifier: GPL-2.0-or-later
# users.bash: two users of the cluster, UA and UB, each with a home, for
# the suites where one user's srun must not reach the other's files (load
# after lib/cluster).  two_users_add [GROUP] makes them (members of GROUP,
# made too, when given); two_users_del [GROUP] removes them; as_a CMD runs
# CMD (bash) as UA.
#
# Their steps start Open MPI as Debian sets it (without lib/cluster's
# OMPI_MCA_pml): 22.05's slurmstepd forks a step's tasks under the user's
# euid, its PMIx threads' munge credentials then name that user and the
# other nodes refuse them ("Unauthorized credential for client UID=..."),
# a window ranks that skip pml/cm's 0.2 s reach (src/slurmd/slurmstepd/
# mgr.c's _fork_all_tasks, 22.05; doc/findings.md).
unset OMPI_MCA_pml

UA=topomap-ta
UB=topomap-tb

two_users_add() {
	local u group=${1:-}
	[ -z "$group" ] || getent group "$group" >/dev/null || groupadd "$group" || return 1
	for u in $UA $UB; do
		id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u" || return 1
		[ -z "$group" ] || usermod -a -G "$group" "$u" || return 1
	done
}

two_users_del() {
	[ "$(id -u)" -eq 0 ] || return 0
	userdel -r $UA 2>/dev/null
	userdel -r $UB 2>/dev/null
	[ -z "${1:-}" ] || groupdel "$1" 2>/dev/null
	true
}

as_a() {
	runuser -u $UA -- bash -c "$1"
}
