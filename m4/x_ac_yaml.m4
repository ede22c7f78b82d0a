# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_YAML
# libyaml, for Slurm's topology.yaml (lib/topoyaml.c), as Slurm reads it.
# Hard dependency, found with pkg-config.  Sets YAML_CFLAGS, YAML_LIBS.
AC_DEFUN([X_AC_YAML], [
  PKG_CHECK_MODULES([YAML], [yaml-0.1], [],
    [AC_MSG_ERROR([libyaml not found: install the Debian package libyaml-dev])])
])
