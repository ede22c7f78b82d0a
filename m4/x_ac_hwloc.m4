# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_HWLOC
# hwloc, for the inside of a node (the probe reads each node's packages,
# L3 domains and CPUs with it, lib/inside_hwloc.c).  Hard dependency,
# found with pkg-config.  Sets HWLOC_CFLAGS, HWLOC_LIBS.
AC_DEFUN([X_AC_HWLOC], [
  PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0], [],
    [AC_MSG_ERROR([hwloc not found: install the Debian package libhwloc-dev])])
])
