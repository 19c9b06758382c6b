#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the file attribution of btrfs I/O in `iotrace -P --io --raw` output.

  check_btrfs.py EVENTS --fs-dev DEVT --direct INO:PID --shared INO:PID
                 --raw-shared PID --dup INO:PID
                 --compressed INO:PID --subvolume INO:DEVT:PID
                 --snapshot INO:DEVT:PID

DEVT: a device number as stat shows it (st_dev), in the kernel's encoding:
btrfs gives each subvolume its own, not the disk's. --fs-dev: the top
level's, where the first three files are.

The workload (btrfs_files.sh), on a btrfs with two copies of everything:
--direct: PID read the 1 MiB file INO (/data.dat) with O_DIRECT;
--shared: PID read it so again, into a MAP_SHARED buffer (a shmem file's
pages);
--raw-shared: PID read the device's first MiB so;
--dup: PID wrote the 1 MiB file INO (/dup.dat) and fsynced it;
--compressed: PID read the 4 MiB file INO (/z/text.log), stored compressed;
--subvolume: PID read the 256 KiB file INO (/sv/s.dat) with O_DIRECT;
--snapshot: PID read its copy in a snapshot of /sv (/snap/s.dat), inode
INO too, with O_DIRECT.

Prints "ok: ..." / "FAIL: ..." per check and "measure: ..." lines; exit 1
if a check failed.
"""
import argparse
import sys

from raw_events import Checks, RawTrace, covered, fid, ints, sectors

CHECKS = Checks()
check = CHECKS.check
measure = CHECKS.measure

MIB_SECTORS = 2048
BTRFS_BTREE_INO = 1


def unattributed_data(ios, pid, op):
    """the pid's I/Os of op with data that name no file and are not metadata"""
    return [io for io in ios.values()
            if io["pid"] == pid and io["operation"] == op and io["len"]
            and "_file" not in io and not io.get("metadata")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("--fs-dev", type=int, required=True)
    for what in ("direct", "shared", "dup", "compressed", "subvolume", "snapshot"):
        ap.add_argument("--" + what, type=ints, required=True)
    ap.add_argument("--raw-shared", type=int, required=True)
    a = ap.parse_args()

    trace = RawTrace(a.events, CHECKS)
    ios, attributed = trace.ios, trace.attributed
    for io, m, _ in attributed:
        io["_file"] = m
    measure("%d io, %d attributed to regular files" % (len(ios), len(attributed)))

    def of(ino, op, pid=None):
        return [(io, m, p) for io, m, p in attributed
                if int(m["fileId"]["id"]) == ino and io["operation"] == op
                and (pid is None or io["pid"] == pid)]

    # O_DIRECT reads: only the bio names the file (the pages are the user's,
    # private or a shmem file's)
    for what, (ino, pid) in (("direct reader", a.direct), ("shared-buffer reader", a.shared)):
        g = of(ino, "Read", pid)
        mine = [io for io in ios.values() if io["pid"] == pid and io["len"]]
        direct = [io for io in mine if io.get("direct")]
        measure("%s pid %d: %d I/Os, %d direct, %d of the file, %d sectors"
                % (what, pid, len(mine), len(direct), len(g), sectors(g)))
        # btrfs may serve a direct read from the page cache (a buffered
        # fallback), flagged as such and of the file all the same
        check(bool(direct), "%s: I/Os with the direct flag" % what)
        check(bool(mine) and all("_file" in io and int(io["_file"]["fileId"]["id"]) == ino
                                 for io in mine),
              "%s: every I/O is attributed to data.dat (inode %d)" % (what, ino),
              "%d of %d; others: %s" % (len(g), len(mine), sorted(set(
                  str(io["_file"]["fileId"]) for io in mine if "_file" in io
                  and int(io["_file"]["fileId"]["id"]) != ino))))
        check(covered(g) >= set(range(MIB_SECTORS)),
              "%s: fileOffset covers sectors 0..%d" % (what, MIB_SECTORS - 1),
              "missing %d" % len(set(range(MIB_SECTORS)) - covered(g)))
        check(bool(g) and all(int(m["fileOffset"]) + io["len"] <= MIB_SECTORS for io, m, _ in g),
              "%s: every I/O lies within the file" % what)
        check(bool(g) and all(p == "/data.dat" for _, _, p in g), "%s: path /data.dat" % what,
              str(sorted(set(str(p) for _, _, p in g))))

    # the device read directly into a shared buffer: no file at all
    pid = a.raw_shared
    mine = [io for io in ios.values() if io["pid"] == pid and io["len"]]
    measure("raw shared-buffer reader pid %d: %d I/Os, %d sectors"
            % (pid, len(mine), sum(io["len"] for io in mine)))
    check(sum(io["len"] for io in mine) >= MIB_SECTORS,
          "raw shared-buffer reader: its MiB of the device is in the trace")
    check(bool(mine) and all("_file" not in io and io.get("direct") for io in mine),
          "raw shared-buffer reader: direct I/Os of no file (not the buffer's shmem file)",
          "%d with a file, %d without the direct flag" % (
              sum("_file" in io for io in mine), sum(not io.get("direct") for io in mine)))

    # two copies of each block: the first written through a clone of the bio
    ino, pid = a.dup
    g = of(ino, "Write")
    copies = {}
    for io, m, _ in g:
        off, lba = int(m["fileOffset"]), int(io["lba"])
        for k in range(io["len"]):
            copies.setdefault(off + k, set()).add(lba + k)
    short = [s for s in range(MIB_SECTORS) if len(copies.get(s, ())) < 2]
    measure("dup.dat: %d write I/Os of the file, %d sectors, pids %s"
            % (len(g), sectors(g), sorted(set(io["pid"] for io, _, _ in g))))
    check(bool(g) and not short,
          "dup.dat: each of its %d sectors is written at two LBAs (both copies attributed)"
          % MIB_SECTORS, "%d sectors with fewer" % len(short))
    check(bool(g) and all(p == "/dup.dat" for _, _, p in g), "dup.dat: path /dup.dat",
          str(sorted(set(str(p) for _, _, p in g))))
    lost = unattributed_data(ios, pid, "Write")
    check(not lost, "dup.dat writer: no data written without a file", "%d I/Os" % len(lost))

    # compressed extents are read into btrfs's own pages
    ino, pid = a.compressed
    g = of(ino, "Read", pid)
    measure("compressed reader pid %d: %d I/Os of the file, %d sectors for %d of file"
            % (pid, len(g), sectors(g), 4 * MIB_SECTORS))
    check(0 < sectors(g) < 4 * MIB_SECTORS // 4,
          "text.log: read, compressed to less than a quarter (%d sectors)" % sectors(g))
    check(bool(g) and all(0 <= int(m["fileOffset"]) < 4 * MIB_SECTORS for _, m, _ in g),
          "text.log: every fileOffset lies within the file")
    check(bool(g) and all(p == "/z/text.log" for _, _, p in g), "text.log: path /z/text.log",
          str(sorted(set(str(p) for _, _, p in g))))
    lost = unattributed_data(ios, pid, "Read")
    check(not lost, "text.log reader: no data read without a file", "%d I/Os" % len(lost))

    # the trees live in the page cache of an internal inode: metadata, no file
    tree = [io for io, m, _ in attributed if int(m["fileId"]["id"]) == BTRFS_BTREE_INO]
    meta = [io for io in ios.values() if io.get("metadata") and io["operation"] == "Write"]
    measure("metadata writes: %d, %d sectors" % (len(meta), sum(io["len"] for io in meta)))
    check(bool(meta), "btrfs wrote metadata while traced")
    check(not tree, "no I/O is attributed to btrfs's tree inode (%d)" % BTRFS_BTREE_INO,
          "%d I/Os" % len(tree))
    top = [m for _, m, _ in attributed
           if int(m["fileId"]["id"]) in (a.direct[0], a.dup[0], a.compressed[0])]
    check(bool(top) and all(int(m["fileId"]["partitionId"]) == a.fs_dev for m in top),
          "the top level's files: fileId.partitionId is its device %d (stat's st_dev)" % a.fs_dev,
          str(sorted(set(int(m["fileId"]["partitionId"]) for m in top))))

    # a file and its snapshot's copy: one inode number, generation and times
    fids = {}
    for what, (ino, dev, pid), path in (("subvolume", a.subvolume, "/sv/s.dat"),
                                        ("snapshot", a.snapshot, "/snap/s.dat")):
        g = of(ino, "Read", pid)
        fids[what] = set(fid(m["fileId"]) for _, m, _ in g)
        measure("%s reader pid %d: %d I/Os of inode %d, %d sectors, FileIds %s"
                % (what, pid, len(g), ino, sectors(g), sorted(fids[what])))
        check(covered(g) >= set(range(MIB_SECTORS // 4)),
              "%s: fileOffset covers sectors 0..%d" % (what, MIB_SECTORS // 4 - 1),
              "missing %d" % len(set(range(MIB_SECTORS // 4)) - covered(g)))
        check(bool(g) and all(int(m["fileId"]["partitionId"]) == dev for _, m, _ in g),
              "%s: fileId.partitionId is its subvolume's device %d (stat's st_dev)" % (what, dev),
              str(sorted(set(int(m["fileId"]["partitionId"]) for _, m, _ in g))))
        check(bool(g) and all(p == path for _, _, p in g), "%s: path %s" % (what, path),
              str(sorted(set(str(p) for _, _, p in g))))
    check(len(fids["subvolume"]) == 1 and len(fids["snapshot"]) == 1
          and not fids["subvolume"] & fids["snapshot"],
          "the snapshot's copy has a FileId of its own")


if __name__ == "__main__":
    main()
    sys.exit(1 if CHECKS.failures else 0)
