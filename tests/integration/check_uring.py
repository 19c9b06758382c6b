#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks uring_trace.sh's trace: io_uring requests at the VFS layer and
the direct block reads linked to them. Prints ok:/FAIL: lines.

  check_uring.py VFS_CSV IO_CSV [--label L] [--buffered-fallback N] [--fsyncs N]

--label goes in front of every check's name. --buffered-fallback: up to N
of the direct reads may have reached the disk as buffered reads instead
(btrfs does that for a buffer whose pages are not faulted in yet, as fio's
are at their first use); they carry no call id. --fsyncs: how many fsyncs
fio says it made (default 2: one after every 4 of the 8 writes; fio
sometimes ends the job before the last one)."""
import argparse
import csv
import sys

ap = argparse.ArgumentParser()
ap.add_argument("vfs_csv")
ap.add_argument("io_csv")
ap.add_argument("--label", default="")
ap.add_argument("--buffered-fallback", type=int, default=0)
ap.add_argument("--fsyncs", type=int, default=2)
a = ap.parse_args()

FILE_SIZE = 4 << 20
LABEL = a.label
fails = 0


def check(name, cond, detail=""):
    global fails
    name = LABEL + name
    if cond:
        print("ok: " + name)
    else:
        fails += 1
        print("FAIL: %s%s" % (name, (": " + detail) if detail else ""))


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


vfs = [r for r in rows(a.vfs_csv) if r["vfs.call"].startswith("io_uring:")]
io = rows(a.io_csv)
by_call = {}
for r in vfs:
    by_call.setdefault(r["vfs.call"], []).append(r)
reads = by_call.get("io_uring:read", [])
writes = by_call.get("io_uring:write", [])
fsyncs = by_call.get("io_uring:fsync", [])

check("16 io_uring:read records", len(reads) == 16, "got %d" % len(reads))
check("8 io_uring:write records", len(writes) == 8, "got %d" % len(writes))
check("fio made 1 or 2 fsyncs (%d)" % a.fsyncs, a.fsyncs in (1, 2))
check("%d io_uring:fsync records" % a.fsyncs, len(fsyncs) == a.fsyncs, "got %d" % len(fsyncs))
check("no other io_uring calls on the file", len(vfs) == 24 + a.fsyncs, "got %s" %
      {k: len(v) for k, v in by_call.items()})
check("all on /u.dat", all(r["file.path"] == "/u.dat" for r in vfs),
      str({r["file.path"] for r in vfs}))
check("all by fio", all(r["process.comm"] in ("r", "w", "fio") for r in vfs),
      str({r["process.comm"] for r in vfs}))
check("reads: 4096 asked, 4096 returned",
      all(r["vfs.size"] == "4096" and r["vfs.result"] == "4096" for r in reads))
check("reads: 4 KiB-aligned offsets inside the file",
      all(int(r["vfs.offset"]) % 4096 == 0 and 0 <= int(r["vfs.offset"]) < FILE_SIZE
          for r in reads), str([r["vfs.offset"] for r in reads]))
check("reads: read opcode (IORING_OP_READ 22)",
      all(r["vfs.uringOpcode"] == "22" for r in reads))
check("writes: 8192 bytes each", all(r["vfs.size"] == "8192" and r["vfs.result"] == "8192"
                                     for r in writes))
check("writes: offsets 0..57344", sorted(int(r["vfs.offset"]) for r in writes) ==
      list(range(0, 65536, 8192)), str(sorted(int(r["vfs.offset"]) for r in writes)))
check("durations are positive", all(int(r["vfs.duration"]) > 0 for r in vfs))

# direct block reads of u.dat, linked to the request they serve
read_by_id = {r["vfs.id"]: r for r in reads}
block = [r for r in io if r["io.operation"] == "Read" and r["file.path"] == "/u.dat"]
direct = [r for r in block if r["io.flags.direct"] == "true"]
if a.buffered_fallback:
    check("16 block reads of /u.dat, at most %d of them buffered" % a.buffered_fallback,
          len(block) == 16 and len(direct) >= 16 - a.buffered_fallback,
          "got %d, %d direct" % (len(block), len(direct)))
    check("the block reads' file offsets are the requests' offsets",
          sorted(int(r["file.offset"]) * 512 for r in block) == sorted(int(r["vfs.offset"]) for r in reads))
else:
    check("16 direct block reads of /u.dat", len(direct) == 16, "got %d" % len(direct))
linked = [r for r in direct if r["io.vfsCallId"] in read_by_id]
check("each linked to an io_uring:read (io.vfsCallId)", len(linked) == len(direct),
      "%d of %d" % (len(linked), len(direct)))
check("block file offset == the request's offset",
      all(int(r["file.offset"]) * 512 == int(read_by_id[r["io.vfsCallId"]]["vfs.offset"])
          for r in linked))
check("one block read per request", len({r["io.vfsCallId"] for r in linked}) == len(linked))
sys.exit(1 if fails else 0)
