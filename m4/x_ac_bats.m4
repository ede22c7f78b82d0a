# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_BATS
# bats runs the integration suites in t/.  Needed only by `make check`, so a
# missing bats is reported, not fatal.  Sets BATS.
AC_DEFUN([X_AC_BATS], [
  AC_ARG_VAR([BATS], [Bash Automated Testing System])
  AC_CHECK_PROGS([BATS], [bats], [no])
  AS_IF([test "x$BATS" = xno],
    [AC_MSG_WARN([bats not found: 'make check' needs the Debian package bats])])
])
