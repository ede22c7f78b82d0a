# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_SANITIZERS
# --enable-sanitizers builds libtopomap, its tools and the unit tests with
# AddressSanitizer and UndefinedBehaviorSanitizer (SAN_CFLAGS, SAN_LDFLAGS).
# The SPANK plugin is never instrumented: it is loaded into srun and
# slurmstepd, which are not.
AC_DEFUN([X_AC_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers],
                    [build tools and tests with ASan and UBSan])],
    [x_ac_sanitizers=$enableval], [x_ac_sanitizers=no])
  SAN_CFLAGS=
  SAN_LDFLAGS=
  AS_IF([test "x$x_ac_sanitizers" = xyes], [
    SAN_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
    SAN_LDFLAGS="-fsanitize=address,undefined"
    x_ac_save_CFLAGS=$CFLAGS
    x_ac_save_LDFLAGS=$LDFLAGS
    CFLAGS="$CFLAGS $SAN_CFLAGS"
    LDFLAGS="$LDFLAGS $SAN_LDFLAGS"
    AC_MSG_CHECKING([whether $CC can build with ASan and UBSan])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [return 0;])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--enable-sanitizers: $CC cannot link with -fsanitize=address,undefined: install the Debian package gcc])])
    CFLAGS=$x_ac_save_CFLAGS
    LDFLAGS=$x_ac_save_LDFLAGS
  ])
  AM_CONDITIONAL([SANITIZERS], [test "x$x_ac_sanitizers" = xyes])
  AC_SUBST([SAN_CFLAGS])
  AC_SUBST([SAN_LDFLAGS])
])
