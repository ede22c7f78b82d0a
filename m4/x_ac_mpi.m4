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
