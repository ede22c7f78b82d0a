# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_SLURM
# Slurm's public headers (slurm/spank.h) and libslurm, for the SPANK plugin
# and for libslurm's hostlist functions.  Hard dependency.
#   --with-slurm=PREFIX  look in PREFIX/include and PREFIX/lib
# Sets SLURM_CPPFLAGS, SLURM_LDFLAGS, SLURM_LIBS, SLURM_VERSION_STR.
#
# What differs between the Slurm generations topomap builds against
# (22.05 to 26.05) is detected here and used in lib/compat.c only:
#   HAVE_SLURM_HOSTLIST_PTR  hostlist_t is an opaque struct and the
#                            hostlist functions take hostlist_t * (23.11+);
#                            before, hostlist_t was itself a pointer.
#   HAVE_SLURM_FREE_CONF     slurm_load_ctl_conf's result is freed with
#                            slurm_free_conf (26.05+; Slurm commit
#                            654434e944); before, slurm_free_ctl_conf.
#   HAVE_SLURM_TOPO_ORDER    a job's block steps are laid out in the order
#                            of its topology's ranks unless
#                            SelectTypeParameters has CR_NO_DIST_TOPO_BLOCK
#                            (26.05+; Slurm commits 0f5648699b, e1cd351e94).
#   HAVE_SLURM_LOAD_TOPO_NAME slurm_load_topo takes the name of one of
#                            several topologies (25.05+).
#   HAVE_SLURM_PRINT_TOPO_UNIT, HAVE_SLURM_PRINT_TOPO_NODES
#                            slurm_print_topo_info_msg takes a node list and
#                            a unit (25.05+), or a node list (23.02-24.11).
AC_DEFUN([X_AC_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix])],
    [SLURM_CPPFLAGS="-I$withval/include"; SLURM_LDFLAGS="-L$withval/lib"], [])
  x_ac_save_CPPFLAGS=$CPPFLAGS
  x_ac_save_LDFLAGS=$LDFLAGS
  CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
  LDFLAGS="$LDFLAGS $SLURM_LDFLAGS"
  AC_CHECK_HEADER([slurm/spank.h], [],
    [AC_MSG_ERROR([slurm/spank.h not found: install the Debian package libslurm-dev])])
  AC_CHECK_LIB([slurm], [slurm_hostlist_create], [SLURM_LIBS="-lslurm"],
    [AC_MSG_ERROR([libslurm not found: install the Debian package libslurm-dev])])
  AC_MSG_CHECKING([Slurm version])
  AC_COMPUTE_INT([x_ac_slurm_version], [SLURM_VERSION_NUMBER],
    [#include <slurm/slurm_version.h>], [x_ac_slurm_version=0])
  SLURM_VERSION_STR=$(printf "%d.%02d.%d" $((x_ac_slurm_version >> 16)) $(((x_ac_slurm_version >> 8) & 255)) $((x_ac_slurm_version & 255)))
  AC_MSG_RESULT([$SLURM_VERSION_STR])
  AC_CACHE_CHECK([whether Slurm's hostlist functions take hostlist_t *],
    [x_ac_cv_slurm_hostlist_ptr],
    [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <slurm/slurm.h>]],
       [[_Static_assert (_Generic (slurm_hostlist_create (""), hostlist_t *: 1, default: 0),
                         "hostlist_t is a pointer");]])],
       [x_ac_cv_slurm_hostlist_ptr=yes], [x_ac_cv_slurm_hostlist_ptr=no])])
  AS_IF([test "x$x_ac_cv_slurm_hostlist_ptr" = xyes],
    [AC_DEFINE([HAVE_SLURM_HOSTLIST_PTR], [1],
       [Define to 1 if hostlist_t is opaque and the hostlist functions take hostlist_t * (Slurm 23.11+)])])
  AC_CHECK_DECL([slurm_free_conf],
    [AC_DEFINE([HAVE_SLURM_FREE_CONF], [1],
       [Define to 1 if slurm_free_conf frees slurm_load_ctl_conf's result (Slurm 26.05+)])],
    [], [[#include <slurm/slurm.h>]])
  AC_CACHE_CHECK([whether slurm_load_topo takes a topology's name],
    [x_ac_cv_slurm_load_topo_name],
    [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <slurm/slurm.h>]],
       [[topo_info_response_msg_t *m; return slurm_load_topo (&m, NULL);]])],
       [x_ac_cv_slurm_load_topo_name=yes], [x_ac_cv_slurm_load_topo_name=no])])
  AS_IF([test "x$x_ac_cv_slurm_load_topo_name" = xyes],
    [AC_DEFINE([HAVE_SLURM_LOAD_TOPO_NAME], [1],
       [Define to 1 if slurm_load_topo takes a topology's name (Slurm 25.05+)])])
  AC_CACHE_CHECK([the arguments of slurm_print_topo_info_msg],
    [x_ac_cv_slurm_print_topo],
    [x_ac_cv_slurm_print_topo=plain
     AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>
#include <slurm/slurm.h>]],
       [[slurm_print_topo_info_msg (stdout, NULL, NULL, NULL, 0);]])],
       [x_ac_cv_slurm_print_topo=unit],
       [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>
#include <slurm/slurm.h>]],
          [[slurm_print_topo_info_msg (stdout, NULL, NULL, 0);]])],
          [x_ac_cv_slurm_print_topo=nodes])])])
  AS_CASE([$x_ac_cv_slurm_print_topo],
    [unit], [AC_DEFINE([HAVE_SLURM_PRINT_TOPO_UNIT], [1],
       [Define to 1 if slurm_print_topo_info_msg takes a node list and a unit (Slurm 25.05+)])],
    [nodes], [AC_DEFINE([HAVE_SLURM_PRINT_TOPO_NODES], [1],
       [Define to 1 if slurm_print_topo_info_msg takes a node list (Slurm 23.02 to 24.11)])])
  AC_CHECK_DECL([SELECT_NO_DIST_TOPO_BLOCK],
    [AC_DEFINE([HAVE_SLURM_TOPO_ORDER], [1],
       [Define to 1 if Slurm lays steps out in the topology's order (Slurm 26.05+)])],
    [], [[#include <slurm/slurm.h>]])
  CPPFLAGS=$x_ac_save_CPPFLAGS
  LDFLAGS=$x_ac_save_LDFLAGS
  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_LDFLAGS])
  AC_SUBST([SLURM_LIBS])
  AC_SUBST([SLURM_VERSION_STR])
])

# X_AC_SLURM_PMI2
# Slurm's PMI-2 client library (slurm/pmi2.h, libpmi2: Debian's
# libpmi2-0-dev), for the test program t/pmi/pmimap only: the suites'
# witness of the PMI_process_mapping srun --mpi=pmi2 serves.  Optional;
# without it the suites say so where they need it.  Sets PMI2_LIBS, the
# conditional HAVE_PMI2 and x_ac_pmi2 (yes or no).  After X_AC_SLURM.
AC_DEFUN([X_AC_SLURM_PMI2], [
  x_ac_save_CPPFLAGS=$CPPFLAGS
  x_ac_save_LDFLAGS=$LDFLAGS
  CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
  LDFLAGS="$LDFLAGS $SLURM_LDFLAGS"
  x_ac_pmi2=no
  AC_CHECK_HEADER([slurm/pmi2.h],
    [AC_CHECK_LIB([pmi2], [PMI2_Info_GetJobAttr], [x_ac_pmi2=yes; PMI2_LIBS="-lpmi2"])])
  CPPFLAGS=$x_ac_save_CPPFLAGS
  LDFLAGS=$x_ac_save_LDFLAGS
  AC_SUBST([PMI2_LIBS])
  AM_CONDITIONAL([HAVE_PMI2], [test "x$x_ac_pmi2" = xyes])
])
