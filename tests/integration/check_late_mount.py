#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the calls on file systems mounted after tracing started.

  check_late_mount.py EVENTS --kept DEVT:INO [--kept ...] --dropped DEVT:INO [...]

EVENTS: `iotrace -P --io --raw` output of a trace with --vfs and --paths.
--kept: a file (stat's device, kernel encoding, and inode) created by
dd (4 writes of 4 KiB, fsync) under a --paths pattern; --dropped: one
written the same way outside every pattern.

Prints "ok: ..." / "FAIL: ..." per check; exit 1 if a check failed.
"""
import argparse
import sys

from raw_events import Checks, RawTrace, fid, ints

CHECKS = Checks()
check = CHECKS.check


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("--kept", type=ints, action="append", required=True)
    ap.add_argument("--dropped", type=ints, action="append", required=True)
    a = ap.parse_args()

    trace = RawTrace(a.events, CHECKS)
    calls = [e["vfs"] for e in trace.events if "vfs" in e]
    created = [e["filesystemFileEvent"] for e in trace.events
               if e.get("filesystemFileEvent", {}).get("fsEventType") == "Create"]

    def of(f, what):
        return [x for x in what if fid(x.get("fileId"))[:2] == f]

    for f in a.kept:
        mine = [c["call"] for c in of(f, calls)]
        check(mine.count("VfsWrite") == 4 and "VfsFsync" in mine and "VfsOpenat" in mine,
              "file %d:%d: its open, 4 writes and fsync are recorded" % f, str(mine))
        check(len(of(f, created)) == 1, "file %d:%d: its Create is sent" % f,
              "%d Create events" % len(of(f, created)))
    for f in a.dropped:
        check(not of(f, calls) and not of(f, created),
              "file %d:%d, outside --paths: no call, no file event" % f,
              "%d calls, %d Create" % (len(of(f, calls)), len(of(f, created))))
    return 1 if CHECKS.failures else 0


if __name__ == "__main__":
    sys.exit(main())
