# SPDX-License-Identifier: BSD-3-Clause
"""renameat2(2) with RENAME_EXCHANGE, which python's os lacks: the two
names swap their files. Imported by the file-event tests' python
(PYTHONPATH, or the directory of churn.py)."""
import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a, b):
    if _libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE):
        err = ctypes.get_errno()
        raise OSError(err, "renameat2 exchange: " + os.strerror(err), a, None, b)
