# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_LIBELF
# elfutils' libelf, to read an executable's GNU build-id and the MPI library
# it links (lib/exeid.c).  Hard dependency, found with pkg-config.  Sets
# LIBELF_CFLAGS, LIBELF_LIBS.
AC_DEFUN([X_AC_LIBELF], [
  PKG_CHECK_MODULES([LIBELF], [libelf], [],
    [AC_MSG_ERROR([libelf not found: install the Debian package libelf-dev])])
])
