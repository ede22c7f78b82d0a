# SPDX-License-Identifier: GPL-2.0-or-later
# X_AC_FUZZ
# `make fuzz` builds libFuzzer harnesses of lib/'s readers with clang
# (FUZZ_CC, default the first of clang, clang-19, clang-14 on PATH that
# links -fsanitize=fuzzer,address,undefined).  Without one, FUZZ_CC is
# empty and `make fuzz` says what to install; nothing else needs it.
AC_DEFUN([X_AC_FUZZ], [
  AC_ARG_VAR([FUZZ_CC], [clang for make fuzz (libFuzzer)])
  AS_IF([test -z "$FUZZ_CC"], [AC_CHECK_PROGS([FUZZ_CC], [clang clang-19 clang-14])])
  AS_IF([test -n "$FUZZ_CC"], [
    AC_CACHE_CHECK([whether $FUZZ_CC links libFuzzer with ASan and UBSan], [x_ac_cv_fuzz_cc], [
      AC_LANG_CONFTEST([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput (const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput (const uint8_t *d, size_t n) { return d && n ? 0 : 0; }
]])])
      AS_IF([$FUZZ_CC -fsanitize=fuzzer,address,undefined -o conftest$EXEEXT conftest.c >&AS_MESSAGE_LOG_FD 2>&1],
            [x_ac_cv_fuzz_cc=yes], [x_ac_cv_fuzz_cc=no])
      rm -f conftest.c conftest$EXEEXT])
    AS_IF([test "x$x_ac_cv_fuzz_cc" != xyes], [FUZZ_CC=])
  ])
  x_ac_fuzz=${FUZZ_CC:-no (make fuzz needs the Debian packages clang and libclang-rt-dev)}
])
