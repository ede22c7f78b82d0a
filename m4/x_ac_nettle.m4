# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_NETTLE
# Nettle, for the SHA-256 content hash that identifies an executable without
# a build-id (lib/exeid.c).  Hard dependency, found with pkg-config.  Sets
# NETTLE_CFLAGS, NETTLE_LIBS.
AC_DEFUN([X_AC_NETTLE], [
  PKG_CHECK_MODULES([NETTLE], [nettle], [],
    [AC_MSG_ERROR([nettle not found: install the Debian package nettle-dev])])
])
