# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_SCOTCH
# Scotch, the graph mapping library used by the mapper.  Hard dependency.
# Debian keeps scotch.h in /usr/include/scotch; --with-scotch=PREFIX looks in
# PREFIX/include and PREFIX/lib instead.  Sets SCOTCH_CPPFLAGS, SCOTCH_LIBS.
AC_DEFUN([X_AC_SCOTCH], [
  AC_ARG_WITH([scotch],
    [AS_HELP_STRING([--with-scotch=PREFIX], [Scotch installation prefix])],
    [SCOTCH_CPPFLAGS="-I$withval/include"; x_ac_scotch_ldflags="-L$withval/lib"],
    [SCOTCH_CPPFLAGS="-I/usr/include/scotch"; x_ac_scotch_ldflags=])
  x_ac_save_CPPFLAGS=$CPPFLAGS
  x_ac_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $SCOTCH_CPPFLAGS"
  LIBS="$x_ac_scotch_ldflags -lscotch -lscotcherr -lm $LIBS"
  AC_CHECK_HEADER([scotch.h], [],
    [AC_MSG_ERROR([scotch.h not found: install the Debian package libscotch-dev])],
    [#include <stdio.h>
#include <stdint.h>])
  AC_MSG_CHECKING([for SCOTCH_graphMap in -lscotch])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>
#include <stdint.h>
#include <scotch.h>]], [[SCOTCH_Graph g; return SCOTCH_graphInit (&g);]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([libscotch not found: install the Debian package libscotch-dev])])
  CPPFLAGS=$x_ac_save_CPPFLAGS
  LIBS=$x_ac_save_LIBS
  SCOTCH_LIBS="$x_ac_scotch_ldflags -lscotch -lm"
  AC_SUBST([SCOTCH_CPPFLAGS])
  AC_SUBST([SCOTCH_LIBS])
])
