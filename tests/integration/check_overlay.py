#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks calls on an overlayfs in `iotrace -P --io --raw` output (--vfs).

  check_overlay.py EVENTS --dev DEVT --reader INO:PID --writer INO:PID
                   --editor INO:PID --gone INO

DEVT: the ext4's device (kernel encoding), which holds the overlay's lower
(/lower), upper (/upper) and work (/work) directories. The workload
(overlay_files.sh), through the overlay:
--reader: PID read etc/app.conf (64 KiB), lower inode INO, cold cache;
--writer: PID created etc/new.dat (64 KiB, 4 writes, fsync), upper inode
INO; it was then renamed to etc/renamed.dat and removed;
--editor: PID appended 4 KiB to etc/edit.conf, a lower file, and fsynced:
the open copied it up to upper inode INO;
--gone: lower inode INO (etc/gone.conf), removed through the overlay.

Prints "ok: ..." / "FAIL: ..." per check and "measure: ..." lines; exit 1
if a check failed.
"""
import argparse
import sys

from raw_events import Checks, RawTrace, covered, fid, ints, path_of

CHECKS = Checks()
check = CHECKS.check
measure = CHECKS.measure


class Timeline:
    """vfs records and file events, each with the path its FileId had
    when it was written (names as sent up to its sid)."""

    def __init__(self, trace):
        names = {}
        self.vfs, self.fs = [], []
        for e in trace.events:
            sid = int(e["header"]["sid"])
            if "filesystemFileName" in e:
                n = e["filesystemFileName"]
                names[fid(n["fileId"])] = (n["fileName"], fid(n["fileParentId"]))
            elif "vfs" in e:
                v = e["vfs"]
                self.vfs.append((sid, v, path_of(names, fid(v.get("fileId")))))
            elif "filesystemFileEvent" in e:
                f = e["filesystemFileEvent"]
                self.fs.append((sid, f, path_of(names, fid(f["fileId"]))))

    def calls(self, pid):
        return [(sid, v, p) for sid, v, p in self.vfs if v["pid"] == pid]

    def events(self, kind, ino):
        return [(sid, f, p) for sid, f, p in self.fs
                if f["fsEventType"] == kind and int(f["fileId"]["id"]) == ino]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("--dev", type=int, required=True)
    for what in ("reader", "writer", "editor"):
        ap.add_argument("--" + what, type=ints, required=True)
    ap.add_argument("--gone", type=int, required=True)
    ap.add_argument("--victim", type=int, required=True)
    a = ap.parse_args()

    trace = RawTrace(a.events, CHECKS)
    tl = Timeline(trace)
    measure("%d io, %d attributed, %d vfs records, %d file events"
            % (len(trace.ios), len(trace.attributed), len(tl.vfs), len(tl.fs)))

    def real(ino):
        return lambda f: f[0] == a.dev and f[1] == ino

    def block(ino, op):
        return [(io, m, p) for io, m, p in trace.attributed
                if real(ino)(fid(m["fileId"])) and io["operation"] == op]

    def named(calls, ino, path):
        bad = [(v["call"], fid(v.get("fileId")), p) for _, v, p in calls
               if not real(ino)(fid(v.get("fileId"))) or p != path]
        return not bad, "%d of %d: %s" % (len(bad), len(calls), bad[:3])

    # a file only the lower layer has: the lower file is read
    ino, pid = a.reader
    calls = tl.calls(pid)
    reads = [v for _, v, _ in calls if v["call"] == "VfsRead"]
    check(any(v["call"] == "VfsOpenat" for _, v, _ in calls) and reads,
          "reader: its openat and reads are recorded", "%d records" % len(calls))
    ok, why = named(calls, ino, "/lower/etc/app.conf")
    check(calls and ok, "reader: its calls name the lower file (%d:%d) as /lower/etc/app.conf"
          % (a.dev, ino), why)
    g = [x for x in block(ino, "Read") if x[0]["pid"] == pid]
    check(len(covered(g)) >= 128, "reader: its block reads cover the lower file's 128 sectors",
          "%d covered" % len(covered(g)))
    fids = {fid(v["fileId"]) for v in reads}
    check(g and all(fid(m["fileId"]) in fids for _, m, _ in g),
          "reader: block reads and read calls name one FileId", "%s vs %s"
          % ({fid(m["fileId"]) for _, m, _ in g}, fids))
    ids = {v["id"] for v in reads}
    check(g and all(io.get("vfsCallId") in ids for io, _, _ in g),
          "reader: each block read carries the id of the read call that caused it",
          str([io.get("vfsCallId") for io, _, _ in g][:4]))

    # a file created through the overlay: the upper file
    ino, pid = a.writer
    calls = tl.calls(pid)
    writes = [v for _, v, _ in calls if v["call"] == "VfsWrite"]
    fsyncs = [v for _, v, _ in calls if v["call"] == "VfsFsync"]
    check(len(writes) == 4 and len(fsyncs) == 1, "writer: 4 writes and an fsync recorded",
          "%d writes, %d fsyncs" % (len(writes), len(fsyncs)))
    ok, why = named(calls, ino, "/upper/etc/new.dat")
    check(calls and ok, "writer: its calls name the upper file (%d:%d) as /upper/etc/new.dat"
          % (a.dev, ino), why)
    created = tl.events("Create", ino)
    check(len(created) == 1 and created[0][2] == "/upper/etc/new.dat" and real(ino)(fid(created[0][1]["fileId"])),
          "writer: one Create of the upper file, /upper/etc/new.dat", str(created))
    g = block(ino, "Write")
    fsync_ids = {v["id"] for v in fsyncs}
    check(len(covered(g)) >= 128 and all(io.get("vfsCallId") in fsync_ids for io, _, _ in g),
          "writer: the fsync's block writes cover the file and carry the fsync's id",
          "%d sectors covered, ids %s" % (len(covered(g)), [io.get("vfsCallId") for io, _, _ in g][:4]))

    # a lower file copied up by an open for writing
    ino, pid = a.editor
    calls = tl.calls(pid)
    kinds = [v["call"] for _, v, _ in calls]
    check("VfsOpenat" in kinds and "VfsWrite" in kinds and "VfsFsync" in kinds,
          "editor: its open, write and fsync are recorded", str(kinds))
    ok, why = named(calls, ino, "/upper/etc/edit.conf")
    check(calls and ok, "editor: its calls name the copied-up file (%d:%d) as /upper/etc/edit.conf"
          % (a.dev, ino), why)
    opened = min([sid for sid, v, _ in calls if v["call"] == "VfsOpenat"] or [0])
    g = block(ino, "Write")
    sid_of = {id(io): sid for sid, io in trace.ios.items()}
    before = [p for io, _, p in g if sid_of[id(io)] < opened]
    after = [p for io, _, p in g if sid_of[id(io)] > opened]
    measure("editor: copied-up file's block writes: %d during the open, named %s; %d after"
            % (len(before), sorted(set(map(str, before))), len(after)))
    check(after and all(p == "/upper/etc/edit.conf" for p in after),
          "editor: block writes after the copy-up are named by the file's new path, /upper/etc/edit.conf",
          str(sorted(set(map(str, after)))))

    # renamed twice, the second time over an upper file, and removed
    # through the overlay: the upper files
    ino = a.writer[0]
    mfrom, mto = tl.events("MoveFrom", ino), tl.events("MoveTo", ino)
    check([m[2] for m in mfrom] == ["/upper/etc/new.dat", "/upper/etc/renamed.dat"],
          "renames: MoveFrom names /upper/etc/new.dat, then /upper/etc/renamed.dat", str(mfrom))
    check([m[2] for m in mto] == ["/upper/etc/renamed.dat", "/upper/etc/victim.dat"],
          "renames: MoveTo names /upper/etc/renamed.dat, then /upper/etc/victim.dat", str(mto))
    deleted = tl.events("Delete", ino)
    check(len(deleted) == 1 and deleted[0][2] == "/upper/etc/victim.dat",
          "remove: one Delete of /upper/etc/victim.dat", str(deleted))
    replaced = tl.events("Delete", a.victim)
    check(len(replaced) == 1 and replaced[0][2] == "/upper/etc/victim.dat",
          "rename over an upper file: one Delete of the file replaced, /upper/etc/victim.dat",
          str(replaced))
    check(not tl.events("Delete", a.reader[0]),
          "rename over a lower-only file: no Delete (the lower file stays)",
          str(tl.events("Delete", a.reader[0])))
    check(not tl.events("Delete", a.gone),
          "remove of a lower-only file: no Delete (the lower file stays)", str(tl.events("Delete", a.gone)))

    foreign = [(v["call"], v["deviceId"]) for _, v, _ in tl.vfs if int(v["deviceId"]) != a.dev]
    foreign += [(f["fsEventType"], f["fileId"]["partitionId"]) for _, f, _ in tl.fs
                if int(f["fileId"]["partitionId"]) != a.dev]
    check(tl.vfs and not foreign, "every vfs record and file event is on the ext4, none on the overlay's device",
          str(foreign[:4]))

    return 1 if CHECKS.failures else 0


if __name__ == "__main__":
    sys.exit(main())
