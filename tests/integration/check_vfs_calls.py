#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a --vfs trace of vfs_calls against what the program did.

  check_vfs_calls.py EVENTS CSV --calls LOG --dev DEVT [--prefix /DIR]

EVENTS is `iotrace -P --io --raw` output (one JSON event per line), CSV
`iotrace -P --vfs -f csv`, LOG vfs_calls' output (its process, inode
numbers, every call on a traced file with the record the tracer should
write). --prefix is the program's directory relative to the file
system's root.

For each call of the program: exactly one record of its pid with that
call name, fd and size (sizes differ per call), and every field of it
as the program printed it (raw: fd, fd2, offset, offset2, size, result,
flags, created, fileId, fileId2, tid, comm, deviceId, duration; CSV: the
same, the call's name, file.path and file2.path). A call that has no
output side (fd2 -1 in LOG) has no fd2, offset2 nor fileId2 in the raw
record (proto defaults: 0, 0, absent) and empty columns in the CSV.
Then: the records come in the program's order and there is no other;
the Create, MoveFrom, MoveTo and Delete events and their paths.

Prints "ok: ..." / "FAIL: ..." per check; exit 1 if a check failed.
"""
import argparse
import csv
import json
import re
import sys

from raw_events import Checks, fid, path_of as chain_path

CHECKS = Checks()
check = CHECKS.check
measure = CHECKS.measure

COMM = "vfs_calls"


def csv_name(call):
    """VfsSyncFileRange -> sync_file_range: the parser's name of a call"""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", call[3:]).lower()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("csv")
    ap.add_argument("--calls", required=True)
    ap.add_argument("--dev", type=int, required=True)
    ap.add_argument("--prefix", default="")
    a = ap.parse_args()
    pre = a.prefix.rstrip("/")

    proc, calls, ino = None, [], {}
    for line in open(a.calls):
        line = line.strip()
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        if o["kind"] == "process":
            proc = o
        elif o["kind"] == "call":
            calls.append(o)
        elif o["kind"] == "file":
            ino[o["name"]] = o["ino"]
    if not proc:
        print("FAIL: %s has no process line (did vfs_calls run?)" % a.calls)
        return
    pid = proc["pid"]
    path = {"a": pre + "/a.dat", "c": pre + "/c.dat", "d": pre + "/d.dat"}
    check(proc["comm"] == COMM and proc["tid"] == pid, "vfs_calls: pid %d, comm %s, single-threaded" % (pid, COMM),
          "got %s" % proc)
    check(set(ino) == {"a", "c", "d"} and ino["c"] == ino["d"] and ino["a"] != ino["c"],
          "vfs_calls: a.dat is inode %s, c.dat (renamed d.dat) inode %s" % (ino.get("a"), ino.get("c")))
    keys = [(c["call"], c["fd"], c["size"]) for c in calls]
    check(len(keys) == len(set(keys)), "vfs_calls: each call is told apart by (call, fd, size)",
          "duplicates %s" % sorted(k for k in keys if keys.count(k) > 1))

    # --- the trace, in sid order ---
    events = [json.loads(line) for line in open(a.events)]
    events.sort(key=lambda e: int(e["header"]["sid"]))
    names = {}      # FileId -> (name, parent FileId), latest so far
    vfs = []        # (sid, record)
    fsev = []       # (sid, type, FileId, path at that point)

    def path_of(f):
        return chain_path(names, f)

    for e in events:
        sid = int(e["header"]["sid"])
        if "filesystemFileName" in e:
            n = e["filesystemFileName"]
            names[fid(n["fileId"])] = (n["fileName"], fid(n["fileParentId"]))
        elif "vfs" in e:
            vfs.append((sid, e["vfs"]))
        elif "filesystemFileEvent" in e:
            fe = e["filesystemFileEvent"]
            f = fid(fe["fileId"])
            fsev.append((sid, fe.get("fsEventType", "Access"), f, path_of(f)))

    rows = list(csv.DictReader(open(a.csv, newline="")))
    row_of = {}
    for r in rows:
        row_of.setdefault(r["vfs.id"], []).append(r)
    check(len(rows) == len(vfs), "-P --vfs has one CSV row per raw VFS record (%d)" % len(vfs),
          "got %d rows" % len(rows))
    ids = [int(v["id"]) for _, v in vfs]
    check(len(ids) == len(set(ids)) and 0 not in ids, "VFS record ids are unique and non-zero")
    others = sorted(set(v["pid"] for _, v in vfs if v["pid"] != pid))
    check(not others, "every VFS record is of vfs_calls (pid %d)" % pid, "also pids %s" % others)
    mine = [(sid, v) for sid, v in vfs if v["pid"] == pid]

    # FileIds of the two files: from the records naming their inodes
    def fids_of(i):
        s = set(fid(v.get("fileId")) for _, v in mine if int(v.get("fileId", {}).get("id", 0)) == i)
        s |= set(fid(v.get("fileId2")) for _, v in mine if int(v.get("fileId2", {}).get("id", 0)) == i)
        s |= set(f for _, _, f, _ in fsev if f[1] == i)
        return s
    fids = {}
    for n in ("a", "c"):
        s = fids_of(ino[n])
        check(len(s) == 1 and next(iter(s))[0] == a.dev,
              "%s (inode %d) has one FileId in every record, on device %d" % (path[n], ino[n], a.dev),
              "got %s" % sorted(s))
        fids[n] = next(iter(s)) if s else None
    fids["d"] = fids["c"]

    # --- each call: exactly one record, every field ---
    matched = []
    for i, c in enumerate(calls):
        name = "#%d %s(fd %d, size %d)" % (i, c["call"], c["fd"], c["size"])
        cand = [(sid, v) for sid, v in mine if v["call"] == c["call"] and v.get("fd", 0) == c["fd"]
                and int(v.get("size", 0)) == c["size"]]
        if len(cand) != 1:
            same = [(sid, v) for sid, v in mine if v["call"] == c["call"]]
            check(False, name + ": exactly one record of pid %d" % pid,
                  "got %d; records of %s: %s" % (len(cand), c["call"],
                                                 [{k: v.get(k) for k in ("fd", "size", "offset", "result")}
                                                  for _, v in same]))
            continue
        sid, v = cand[0]
        matched.append((i, sid, v))
        pair = c["fd2"] >= 0
        got = {"fd": v.get("fd", 0), "fd2": v.get("fd2", 0), "offset": int(v.get("offset", 0)),
               "offset2": int(v.get("offset2", 0)), "size": int(v.get("size", 0)),
               "result": int(v.get("result", 0)), "flags": v.get("flags", 0),
               "created": int(bool(v.get("created", False))),
               "fileId": fid(v.get("fileId")) if "fileId" in v else None,
               "fileId2": fid(v.get("fileId2")) if "fileId2" in v else None,
               "tid": v.get("tid"), "comm": v.get("comm"), "deviceId": int(v.get("deviceId", 0)),
               "uringOpcode": v.get("uringOpcode", 0)}
        want = {"fd": c["fd"], "fd2": c["fd2"] if pair else 0, "offset": c["offset"],
                "offset2": c["offset2"] if pair else 0, "size": c["size"], "result": c["result"],
                "flags": c["flags"], "created": c["created"],
                "fileId": fids[c["file"]] if c["file"] else None,
                "fileId2": fids[c["file2"]] if c["file2"] else None,
                "tid": pid, "comm": COMM, "deviceId": a.dev, "uringOpcode": 0}
        bad = ["%s %s (want %s)" % (k, got[k], want[k]) for k in want if got[k] != want[k]]
        dur = int(v.get("duration", 0))
        if dur <= 0:
            bad.append("duration %d" % dur)
        opens = c["call"] in ("VfsOpen", "VfsOpenat", "VfsOpenat2", "VfsCreat")
        check(not bad, name + ": raw record %s exact (fd %d, fd2 %d, offset %d, offset2 %d, result %d, "
              "flags %s, created %d, fileId %s, fileId2 %s)"
              % (v["id"], c["fd"], c["fd2"], c["offset"], c["offset2"], c["result"],
                 ("%#o" if opens else "%d") % c["flags"], c["created"], path.get(c["file"], "-"),
                 path.get(c["file2"], "-")), "; ".join(bad))

        # the same record in -P --vfs -f csv
        rs = row_of.get(str(v["id"]), [])
        if len(rs) != 1:
            check(False, name + ": one CSV row with vfs.id %s" % v["id"], "got %d" % len(rs))
            continue
        r = rs[0]
        wcsv = {"vfs.call": csv_name(c["call"]), "vfs.fd": str(c["fd"]), "vfs.offset": str(c["offset"]),
                "vfs.size": str(c["size"]), "vfs.result": str(c["result"]), "vfs.flags": str(c["flags"]),
                "vfs.fd2": str(c["fd2"]) if pair else "", "vfs.offset2": str(c["offset2"]) if pair else "",
                "process.pid": str(pid), "process.tid": str(pid), "process.comm": COMM,
                "device.id": str(a.dev),
                "file.id": str(ino[c["file"]]) if c["file"] else "",
                "file.path": path[c["file"]] if c["file"] else "",
                "file2.id": str(ino[c["file2"]]) if c["file2"] else "",
                "file2.path": path[c["file2"]] if c["file2"] else ""}
        if opens:
            wcsv["vfs.created"] = "true" if c["created"] else "false"
        bad = ["%s '%s' (want '%s')" % (k, r.get(k), w) for k, w in wcsv.items() if r.get(k) != w]
        check(not bad, name + ": CSV row exact (call '%s', file.path '%s', file2.path '%s', ...)"
              % (wcsv["vfs.call"], wcsv["file.path"], wcsv["file2.path"]), "; ".join(bad))

    # --- no other record, the program's order ---
    check(len(mine) == len(calls), "vfs_calls: %d records for its %d calls" % (len(mine), len(calls)),
          "unmatched: %s" % [(v["call"], v.get("fd"), v.get("size")) for sid, v in mine
                             if sid not in set(s for _, s, _ in matched)])
    sids = [sid for _, sid, _ in matched]
    check(sids == sorted(sids), "the records come in the order of the calls")
    for n in sorted(set(c["call"] for c in calls)):
        want = sum(1 for c in calls if c["call"] == n)
        got = sum(1 for _, v in mine if v["call"] == n)
        check(got == want, "%s: %d record(s) of pid %d" % (n, want, pid), "got %d" % got)

    # --- file events ---
    rec_sid = {calls[i]["call"]: sid for i, sid, _ in matched}

    def one(kind, n):
        return [x for x in fsev if x[1] == kind and x[2] == fids[n]]
    for kind, n, p, call in (("Create", "a", path["a"], "VfsOpen"), ("Create", "c", path["c"], "VfsCreat"),
                             ("MoveFrom", "c", path["c"], "VfsRename"), ("MoveTo", "c", path["d"], "VfsRename"),
                             ("Delete", "a", path["a"], "VfsUnlink")):
        if call not in rec_sid:
            call = {"VfsOpen": "VfsOpenat", "VfsCreat": "VfsOpenat", "VfsRename": "VfsRenameat",
                    "VfsUnlink": "VfsUnlinkat"}[call]
        ev = one(kind, n)
        check(len(ev) == 1 and ev[0][3] == p and call in rec_sid and ev[0][0] < rec_sid[call],
              "one %s event for %s, naming %s, before its %s record" % (kind, path[n], p, call),
              "got %s" % [(s, x) for s, _, _, x in ev])
    kinds = sorted((k, f[1]) for _, k, f, _ in fsev if k != "Access")
    want = sorted([("Create", ino["a"]), ("Create", ino["c"]), ("MoveFrom", ino["c"]), ("MoveTo", ino["c"]),
                   ("Delete", ino["a"])])
    check(kinds == want, "no other file event", "got %s" % kinds)
    mf, mt = one("MoveFrom", "c"), one("MoveTo", "c")
    check(bool(mf) and bool(mt) and mf[0][0] < mt[0][0], "MoveFrom comes before MoveTo")


if __name__ == "__main__":
    main()
    sys.exit(1 if CHECKS.failures else 0)
