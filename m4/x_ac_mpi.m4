# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_MPI
# An MPI compiler wrapper for the probe and the MPI test programs: Open MPI's
# mpicc by default, MPICH's accepted (MPICC=mpicc.mpich).  Hard dependency.
# Sets MPICC and x_ac_mpi_flavor (openmpi, mpich or unknown).
AC_DEFUN([X_AC_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper])
  AC_CHECK_PROGS([MPICC], [mpicc mpicc.openmpi mpicc.mpich], [no])
  AS_IF([test "x$MPICC" = xno],
    [AC_MSG_ERROR([no MPI compiler wrapper (mpicc) found: install the Debian packages openmpi-bin and libopenmpi-dev])])
  AC_MSG_CHECKING([which MPI $MPICC builds for])
  x_ac_save_CC=$CC
  CC=$MPICC
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifndef OPEN_MPI
#error not Open MPI
#endif]], [])], [x_ac_mpi_flavor=openmpi],
    [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifndef MPICH_VERSION
#error not MPICH
#endif]], [])], [x_ac_mpi_flavor=mpich], [x_ac_mpi_flavor=unknown])])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[return MPI_Init (0, 0);]])], [],
    [AC_MSG_RESULT([broken])
     AC_MSG_ERROR([$MPICC cannot build an MPI program: install the Debian package libopenmpi-dev])])
  CC=$x_ac_save_CC
  AC_MSG_RESULT([$x_ac_mpi_flavor])
  AS_IF([test "x$x_ac_mpi_flavor" = xunknown],
    [AC_MSG_ERROR([$MPICC is neither Open MPI nor MPICH])])
])

# X_AC_MPI_RECORDERS
# The PMPI recorder is built once for every MPI found, since Open MPI and
# MPICH differ in ABI: Open MPI through pkg-config ompi-c, MPICH through
# pkg-config mpich (Debian's libopenmpi-dev and libmpich-dev).  Neither is
# required; without one, its recorder and its tests are left out.  MPICH's
# wrapper (mpicc.mpich) builds the MPICH test programs.  Sets OMPI_CFLAGS,
# OMPI_LIBS, MPICH_CFLAGS, MPICH_LIBS, MPICC_MPICH, the conditionals
# HAVE_OPENMPI and HAVE_MPICH, and x_ac_mpi_recorders.
AC_DEFUN([X_AC_MPI_RECORDERS], [
  x_ac_mpi_recorders=
  PKG_CHECK_MODULES([OMPI], [ompi-c], [x_ac_mpi_recorders="openmpi"], [:])
  PKG_CHECK_MODULES([MPICH], [mpich],
    [AC_CHECK_PROGS([MPICC_MPICH], [mpicc.mpich], [no])
     AS_IF([test "x$MPICC_MPICH" != xno],
       [x_ac_mpi_recorders="$x_ac_mpi_recorders mpich"])], [:])
  AM_CONDITIONAL([HAVE_OPENMPI], [echo "$x_ac_mpi_recorders" | grep -q openmpi])
  AM_CONDITIONAL([HAVE_MPICH], [echo "$x_ac_mpi_recorders" | grep -q mpich])
  AS_IF([test -z "$x_ac_mpi_recorders"], [x_ac_mpi_recorders=none])
])
