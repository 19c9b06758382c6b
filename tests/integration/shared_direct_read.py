#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reads PATH with O_DIRECT into a MAP_SHARED anonymous buffer, as a
database reads into its shared buffer pool: the buffer's pages belong to
a shmem file, which the tracer must not take for the I/O's file.

  shared_direct_read.py PATH [BYTES]     (default: the whole file)
"""
import mmap
import os
import sys

CHUNK = 64 * 1024


def main():
    path = sys.argv[1]
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    size = int(sys.argv[2]) if len(sys.argv) > 2 else os.fstat(fd).st_size
    buf = mmap.mmap(-1, CHUNK, flags=mmap.MAP_SHARED)
    buf.write(b"\0" * CHUNK)  # fault the pages in: shmem pages, not the zero page
    off = 0
    while off < size:
        n = os.preadv(fd, [buf], off)
        if n <= 0:
            sys.exit("short read at %d of %s" % (off, path))
        off += n
    os.close(fd)


if __name__ == "__main__":
    main()
