# SPDX-License-Identifier: BSD-3-Clause
"""The write the file-event tests make: 4 KiB (at offset 0 unless told),
fsynced, so that the file's block I/O, and with it the file's name,
reaches the trace at once. Imported by the python of the tests' heredocs
(PYTHONPATH)."""
import os


def write(path, create=False, offset=0):
    fd = os.open(path, os.O_WRONLY | (os.O_CREAT if create else 0), 0o644)
    try:
        os.pwrite(fd, b"w" * 4096, offset)
        os.fsync(fd)
    finally:
        os.close(fd)
