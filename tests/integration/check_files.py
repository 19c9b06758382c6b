#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks file and process attribution in `iotrace -P --io --raw` output.

  check_files.py EVENTS --dev DEVT --ino INO --cgroup ID --writer PID
                 --reader PID --direct-reader PID --reader2 PID

The workload (file_attribution.sh): the writer writes INO, 1 MiB at
/a/b/c/d/e/f.dat, and fsyncs; the reader reads it after drop_caches; the
direct reader reads it with O_DIRECT (attributed to the file as well); it is renamed to g.dat and reader2
reads it after drop_caches. All four run in the cgroup whose id is ID.

Prints "ok: ..." / "FAIL: ..." per check and "measure: ..." lines; exit 1
if a check failed.
"""
import argparse
import sys

from raw_events import Checks, RawTrace, covered, fid, sectors

CHECKS = Checks()
check = CHECKS.check
measure = CHECKS.measure

MIB_SECTORS = 2048


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("--dev", type=int, required=True)
    ap.add_argument("--ino", type=int, required=True)
    ap.add_argument("--cgroup", type=int, required=True)
    for who in ("writer", "reader", "direct-reader", "reader2"):
        ap.add_argument("--" + who, type=int, required=True)
    a = ap.parse_args()

    trace = RawTrace(a.events, CHECKS)
    names, ios = trace.names, trace.ios
    file_ios = [(io, m, p) for io, m, p in trace.attributed if fid(m["fileId"])[1] == a.ino]

    measure("%d events, %d io, %d filesystemFileName, %d filesystemMeta of inode %d"
            % (len(trace.events), len(ios), trace.name_events, len(file_ios), a.ino))
    check(len(file_ios) > 0, "filesystemMeta events name inode %d" % a.ino)
    if not file_ios:
        return
    check(all(int(m["fileId"]["partitionId"]) == a.dev for _, m, _ in file_ios),
          "their fileId.partitionId is the file system's device %d" % a.dev)

    def group(pid, op):
        return [(io, m, p) for io, m, p in file_ios if io["pid"] == pid and io["operation"] == op]

    want = set(range(MIB_SECTORS))
    for who, pid, op, path in (("writer", a.writer, "Write", "/a/b/c/d/e/f.dat"),
                               ("reader", a.reader, "Read", "/a/b/c/d/e/f.dat"),
                               ("reader2", a.reader2, "Read", "/a/b/c/d/e/g.dat")):
        g = group(pid, op)
        paths = sorted(set(str(p) for _, _, p in g))
        measure("%s pid %d: %d %s I/Os of the file, %d sectors, paths %s"
                % (who, pid, len(g), op, sectors(g), paths))
        check(sectors(g) >= MIB_SECTORS, "%s: >= %d sectors %s attributed to the file (got %d)"
              % (who, MIB_SECTORS, op, sectors(g)))
        check(want <= covered(g), "%s: fileOffset covers sectors 0..%d" % (who, MIB_SECTORS - 1),
              "missing %d sectors" % len(want - covered(g)))
        check(bool(g) and all(p == path for _, _, p in g), "%s: every I/O's path is %s" % (who, path),
              "got %s" % paths)
        check(bool(g) and all(io.get("comm") == "dd" for io, _, _ in g), "%s: comm is dd" % who)
        check(bool(g) and all(int(io.get("cgroupId", 0)) == a.cgroup for io, _, _ in g),
              "%s: cgroupId is the test's cgroup %d" % (who, a.cgroup))
        check(bool(g) and all(int(m["fileSize"]) == MIB_SECTORS for _, m, _ in g),
              "%s: fileSize is %d sectors" % (who, MIB_SECTORS))
        check(bool(g) and all(io.get("ioClass") == 15 for io, _, _ in g),
              "%s: ioClass is 15 (Open-CAS DSS: file <= 1 MiB)" % who)
        check(bool(g) and not any(io.get("direct") or io.get("metadata") for io, _, _ in g),
              "%s: neither direct nor metadata" % who)

    # reads of the file by anyone but the readers would be misattribution
    others = [io["pid"] for io, _, _ in file_ios
              if io["operation"] == "Read"
              and io["pid"] not in (a.reader, a.reader2, a.direct_reader)]
    check(not others, "every read of the file was issued by a reader", "pids %s" % sorted(set(others)))

    direct = [io for io in ios.values() if io["pid"] == a.direct_reader]
    dsec = sum(io["len"] for io in direct)
    measure("direct reader pid %d: %d I/Os, %d sectors" % (a.direct_reader, len(direct), dsec))
    check(dsec == MIB_SECTORS, "direct reader: %d sectors read (got %d)" % (MIB_SECTORS, dsec))
    check(bool(direct) and all(io.get("direct") and io["operation"] == "Read" for io in direct),
          "direct reader: every I/O is a Read with the direct flag")
    check(bool(direct) and all(int(io.get("cgroupId", 0)) == a.cgroup for io in direct),
          "direct reader: cgroupId is the test's cgroup")
    # direct I/O is attributed through the kernel's direct-I/O state, not
    # its pages (they are the user buffer): exactly the file, once
    g = group(a.direct_reader, "Read")
    check(sectors(g) == MIB_SECTORS and covered(g) == want,
          "direct reader: filesystemMeta covers sectors 0..%d exactly once" % (MIB_SECTORS - 1),
          "%d sectors, %d covered" % (sectors(g), len(covered(g))))
    check(bool(g) and all(p == "/a/b/c/d/e/f.dat" and io.get("direct") for io, _, p in g),
          "direct reader: every I/O is direct, on /a/b/c/d/e/f.dat")

    submitted = [io for io in ios.values() if not io.get("requestOnly")]
    zero = [io for io in submitted if not int(io.get("cgroupId", 0))]
    check(submitted and not zero, "every submitted io has a non-zero cgroupId",
          "%d of %d have 0" % (len(zero), len(submitted)))
    meta = [io for io in submitted if io.get("metadata")]
    measure("metadata I/Os: %d (%d sectors), comms %s" % (
        len(meta), sum(io["len"] for io in meta), sorted(set(io.get("comm", "") for io in meta))))
    check(len(meta) > 0 and all(io.get("ioClass") in (1, 7) for io in meta),
          "metadata I/Os exist (the journal) and have ioClass 1 or 7")
    roots = [n for n, p in names.items() if names[n][1] == n]
    check(len(roots) >= 1 and all(names[r][0] == "/" for r in roots),
          "the root is named '/' and is its own parent")


if __name__ == "__main__":
    main()
    sys.exit(1 if CHECKS.failures else 0)
