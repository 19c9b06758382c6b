#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a --vfs trace of vfs_pattern against what the pattern did.

  check_vfs.py EVENTS --dev DEVT --writer LOG --reader LOG
               --writer-cgroup ID --reader-cgroup ID
               [--writer-cgroup-path /CG --reader-cgroup-path /CG]
               [--prefix /DIR] [--traced writer,reader] [--files f,g,tmp]
               [--file-stats JSON] [--chunks FILE] [--label L]

EVENTS is `iotrace -P --io --raw` output (one JSON event per line); the
logs are vfs_pattern's output (its process, inode numbers, every traced
call with arguments and result, f.dat's extents). --prefix is the
pattern's directory relative to the file system's root ('' = the root).
--traced names the processes whose calls the trace must hold (the others
were filtered out with --pids/--cgroup), --files the files (f: f.dat, g:
the same file renamed g.dat, tmp: tmp.dat; the others were filtered out
with --paths); block I/O and file events are checked for all of them.
--file-stats is `iotrace -P --file-statistics` JSON, cross-checked.
--chunks: on btrfs, whose FIEMAP gives addresses in its own logical space,
the data chunks as "LOGICAL LENGTH PHYSICAL" lines (from the chunk tree): the
device address of a logical one.

Prints "ok: ..." / "FAIL: ..." per check and "measure: ..." lines; exit 1
if a check failed.
"""
import argparse
import json
import sys

from raw_events import Checks, fid, path_of as chain_path

CHECKS = Checks()
check = CHECKS.check
measure = CHECKS.measure

SECTOR = 512
FILE_BYTES = 1 << 20
FILE_SECTORS = FILE_BYTES // SECTOR
# the reader runs as a link of another name, for --comm (vfs_trace.sh)
COMM = {"writer": "vfs_pattern", "reader": "vfs_reader"}
READS = ("VfsRead", "VfsPread64", "VfsReadv", "VfsPreadv", "VfsPreadv2")
WRITES = ("VfsWrite", "VfsPwrite64", "VfsWritev", "VfsPwritev", "VfsPwritev2")


def ns_call(name):
    """unlink/rename family: calls by path, written after their file events"""
    return "Unlink" in name or "Rename" in name


class Log:
    """What one vfs_pattern process did, from its output."""

    def __init__(self, path):
        self.calls, self.extents, self.dirs, self.ino = [], [], {}, {}
        self.proc = None
        for line in open(path):
            line = line.strip()
            if not line.startswith("{"):
                continue
            o = json.loads(line)
            k = o["kind"]
            if k == "process":
                self.proc = o
            elif k == "call":
                self.calls.append(o)
            elif k == "extent":
                self.extents.append(o)
            elif k == "dir":
                self.dirs[o["path"]] = o["ino"]
            elif k == "file":
                self.ino[o["name"]] = o["ino"]
        if not self.proc:
            raise SystemExit("FAIL: %s has no process line" % path)
        self.pid = self.proc["pid"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("--dev", type=int, required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--reader", required=True)
    ap.add_argument("--writer-cgroup", type=int, required=True)
    ap.add_argument("--reader-cgroup", type=int, required=True)
    ap.add_argument("--writer-cgroup-path", default="")
    ap.add_argument("--reader-cgroup-path", default="")
    ap.add_argument("--prefix", default="")
    ap.add_argument("--traced", default="writer,reader")
    ap.add_argument("--files", default="f,g,tmp")
    ap.add_argument("--file-stats")
    ap.add_argument("--chunks")
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    CHECKS.label = a.label + ": " if a.label else ""

    w, r = Log(a.writer), Log(a.reader)
    roles = {"writer": (w, a.writer_cgroup), "reader": (r, a.reader_cgroup)}
    traced = [x for x in a.traced.split(",") if x]
    ino_f, ino_tmp = w.ino["f"], w.ino["tmp"]
    # --paths: the calls on the other files are not in the trace
    files = a.files.split(",")
    for lg in (w, r):
        lg.calls = [c for c in lg.calls if c["file"] in files]
    ino_of_name = {"f": ino_f, "g": ino_f, "tmp": ino_tmp}
    pre = a.prefix.rstrip("/")
    path_f = pre + "/a/b/c/d/e/f.dat"
    path_g = pre + "/a/b/c/d/e/g.dat"
    path_tmp = pre + "/a/b/tmp.dat"

    # --- the pattern did what it should (else nothing below means much) ---
    check(r.ino.get("f") == ino_f and r.ino.get("g") == ino_f,
          "the reader opened the writer's f.dat and, renamed, g.dat (inode %d)" % ino_f)
    check("f" not in files or sum(c["result"] for c in w.calls if c["call"] == "VfsPwrite64") == FILE_BYTES,
          "the writer wrote 1 MiB with pwrite64")
    check(sum(e["length"] for e in w.extents) == FILE_BYTES,
          "FIEMAP maps f.dat's 1 MiB (%d extents)" % len(w.extents))
    for who, (lg, cg) in roles.items():
        check(lg.proc["comm"] == COMM[who] and lg.proc["tid"] == lg.pid,
              "%s: pid %d, comm %s, single-threaded" % (who, lg.pid, COMM[who]))
        want_cg = getattr(a, who + "_cgroup_path")
        if want_cg:
            check(lg.proc["cgroup"] == want_cg, "%s: ran in cgroup %s" % (who, want_cg),
                  "/proc/self/cgroup says %s" % lg.proc["cgroup"])
    check(a.writer_cgroup != a.reader_cgroup, "writer and reader cgroups differ")

    # --- the trace, in sid order ---
    events = [json.loads(line) for line in open(a.events)]
    events.sort(key=lambda e: int(e["header"]["sid"]))
    names = {}          # FileId -> (name, parent FileId), latest so far
    ios = []            # (sid, ts, io, filesystemMeta or None)
    vfs = []            # (sid, ts, vfs record, path of fileId at that point)
    fsev = []           # (sid, type, FileId, path at that point)
    by_sid = {}

    def path_of(f):
        return chain_path(names, f)

    def chain_inos(f):
        out = []
        for _ in range(64):
            if f not in names:
                return out
            out.append(f[1])
            if names[f][1] == f:
                return out
            f = names[f][1]
        return out

    bad_meta = 0
    for e in events:
        sid = int(e["header"]["sid"])
        ts = int(e["header"]["timestamp"])
        by_sid[sid] = e
        if "filesystemFileName" in e:
            n = e["filesystemFileName"]
            names[fid(n["fileId"])] = (n["fileName"], fid(n["fileParentId"]))
        elif "io" in e:
            ios.append([sid, ts, e["io"], None])
        elif "filesystemMeta" in e:
            m = e["filesystemMeta"]
            if ios and ios[-1][0] == sid - 1 and ios[-1][2]["id"] == m["refSid"]:
                ios[-1][3] = m
            else:
                bad_meta += 1
        elif "vfs" in e:
            v = e["vfs"]
            vfs.append((sid, ts, v, path_of(fid(v.get("fileId")))))
        elif "filesystemFileEvent" in e:
            fe = e["filesystemFileEvent"]
            f = fid(fe["fileId"])
            fsev.append((sid, fe.get("fsEventType", "Access"), f, path_of(f)))
    check(bad_meta == 0, "every filesystemMeta directly follows its io", "%d do not" % bad_meta)
    measure("%d events: %d io, %d vfs, %d file events, %d names"
            % (len(events), len(ios), len(vfs), len(fsev), len(names)))

    # FileIds as the trace knows them: from the records naming the inodes
    def fids_of(ino):
        s = set(fid(v.get("fileId")) for _, _, v, _ in vfs if int(v.get("fileId", {}).get("id", 0)) == ino)
        s |= set(f for _, _, f, _ in fsev if f[1] == ino)
        s |= set(fid(m["fileId"]) for _, _, _, m in ios if m and int(m["fileId"]["id"]) == ino)
        return s
    fid_f_all, fid_tmp_all = fids_of(ino_f), fids_of(ino_tmp)
    check(len(fid_f_all) == 1, "f.dat (inode %d) has one FileId in every record, renamed or not" % ino_f,
          "got %s" % sorted(fid_f_all))
    tmp_in = "tmp" in files
    if tmp_in:
        check(len(fid_tmp_all) == 1, "tmp.dat (inode %d) has one FileId in every record" % ino_tmp,
              "got %s" % sorted(fid_tmp_all))
    else:
        n = len([v for _, _, v, _ in vfs if int(v.get("fileId", {}).get("id", 0)) == ino_tmp])
        check(n == 0, "tmp.dat (inode %d) has no VFS record (filtered out)" % ino_tmp, "got %d" % n)
    fid_f = next(iter(fid_f_all)) if fid_f_all else None
    fid_tmp = next(iter(fid_tmp_all)) if fid_tmp_all else None
    check(fid_f is not None and fid_f[0] == a.dev and (not tmp_in or fid_tmp is not None and fid_tmp[0] == a.dev),
          "their FileId.partitionId is the file system's device %d" % a.dev)
    fid_by_name = {"f": fid_f, "g": fid_f, "tmp": fid_tmp}

    # --- VFS records, per process: exactly the calls made ---
    pids = {lg.pid: who for who, (lg, _) in roles.items()}
    others = sorted(set(v["pid"] for _, _, v, _ in vfs if v["pid"] not in pids))
    check(not others, "every VFS record is of the pattern's processes", "also pids %s" % others)
    ids = [int(v["id"]) for _, _, v, _ in vfs]
    check(len(ids) == len(set(ids)) and 0 not in ids, "VFS record ids are unique and non-zero")
    rec_of = {}         # call id -> (sid, ts, record)
    for sid, ts, v, _ in vfs:
        rec_of[int(v["id"])] = (sid, ts, v)

    for who, (lg, cg) in roles.items():
        mine = [(sid, ts, v, p) for sid, ts, v, p in vfs if v["pid"] == lg.pid]
        if who not in traced:
            check(not mine, "%s: no VFS record (filtered out)" % who, "%d records" % len(mine))
            continue
        got, want = mine, lg.calls
        bad = []
        for i, (c, (sid, ts, v, p)) in enumerate(zip(want, got)):
            vv = {"call": v["call"], "fd": v.get("fd", 0), "offset": int(v.get("offset", 0)),
                  "size": int(v.get("size", 0)), "result": int(v.get("result", 0)),
                  "flags": v.get("flags", 0), "created": int(bool(v.get("created", False))),
                  "ino": int(v.get("fileId", {}).get("id", 0))}
            cc = {k: c[k] for k in ("call", "fd", "offset", "size", "result", "flags", "created")}
            cc["ino"] = ino_of_name[c["file"]]
            if vv != cc:
                bad.append("#%d sid %d: got %s, want %s" % (i, sid, vv, cc))
        check(len(got) == len(want) and not bad,
              "%s: its %d VFS records are exactly its calls (call, fd, inode, offset, size, result, flags, created)"
              % (who, len(want)),
              "%d records for %d calls; %s" % (len(got), len(want), "; ".join(bad[:3])))
        check(bool(mine) and all(v["tid"] == lg.pid for _, _, v, _ in mine), "%s: every record's tid is %d" % (who, lg.pid))
        check(bool(mine) and all(v.get("comm") == COMM[who] for _, _, v, _ in mine),
              "%s: every record's comm is %s" % (who, COMM[who]))
        check(bool(mine) and all(int(v.get("cgroupId", 0)) == cg for _, _, v, _ in mine),
              "%s: every record's cgroupId is its cgroup's id %d" % (who, cg),
              "got %s" % sorted(set(v.get("cgroupId") for _, _, v, _ in mine)))
        check(bool(mine) and all(int(v.get("deviceId", 0)) == a.dev and fid(v.get("fileId"))[0] == a.dev
                                 for _, _, v, _ in mine),
              "%s: every record's deviceId and fileId.partitionId are %d" % (who, a.dev))
        check(bool(mine) and all(int(v.get("duration", 0)) > 0 for _, _, v, _ in mine),
              "%s: every record has a duration > 0" % who)
        check(all(fid(v.get("fileId")) == fid_by_name[c["file"]] for c, (_, _, v, _) in zip(want, got)),
              "%s: every record's FileId is its file's" % who)
        # paths, as the trace names the FileId when the record is read
        wantp = {"f": path_f, "g": path_g, "tmp": path_tmp}
        badp = ["%s %s: %s" % (v["call"], c["file"], p) for c, (_, _, v, p) in zip(want, got) if p != wantp[c["file"]]]
        check(bool(got) and not badp, "%s: every record's path is its file's (%s)" % (
            who, ", ".join(sorted(set(wantp[c["file"]] for c in want)))), "; ".join(badp[:3]))

    # --- per-file bytes at the VFS layer ---
    def vfs_bytes(f, calls):
        return sum(max(int(v.get("result", 0)), 0) for _, _, v, _ in vfs
                   if fid(v.get("fileId")) == f and v["call"] in calls)

    def log_bytes(files, calls):
        return sum(c["result"] for who in traced for c in roles[who][0].calls
                   if c["file"] in files and c["call"] in calls)
    for name, f, files in (("f.dat/g.dat", fid_f, ("f", "g")), ("tmp.dat", fid_tmp, ("tmp",))):
        for what, calls in (("written", WRITES), ("read", READS)):
            got, want = vfs_bytes(f, calls), log_bytes(files, calls)
            check(got == want, "%s: %d bytes %s at the VFS layer (sum of results)" % (name, want, what),
                  "got %d" % got)

    # --- names ---
    roots = [n for n in names if names[n][1] == n]
    check(len(roots) == 1 and names[roots[0]][0] == "/", "one root, named '/', its own parent",
          "roots %s" % [names[x] for x in roots])
    want_chain = [ino_f] + [w.dirs[d] for d in ("a/b/c/d/e", "a/b/c/d", "a/b/c", "a/b", "a")]
    got_chain = chain_inos(fid_f) if fid_f else []
    check(got_chain[:6] == want_chain, "f.dat's name chain is its inode, then e, d, c, b, a (inodes %s)" % want_chain,
          "got %s" % got_chain)
    final = path_of(fid_f) if fid_f else None
    check(final == path_g, "at the end of the trace f.dat's inode is %s" % path_g, "got %s" % final)

    # --- file events ---
    def events_of(kind, f):
        return [x for x in fsev if x[1] == kind and x[2] == f]
    creates = [x for x in fsev if x[1] == "Create"]
    measure("file events: %s" % ", ".join("%s %s (%s)" % (k, f[1], p) for _, k, f, p in fsev))
    known = {ino_f, ino_tmp} | set(w.dirs.values())
    wopen = [x for x in vfs if x[2]["pid"] == w.pid and x[2]["call"] == "VfsOpenat"]
    first_wr = [x for x in vfs if x[2]["pid"] == w.pid and fid(x[2].get("fileId")) == fid_f and x[2]["call"] in WRITES]
    for name, f, path in (("f.dat", fid_f, path_f), ("tmp.dat", fid_tmp, path_tmp)):
        if name == "tmp.dat" and not tmp_in:
            continue
        c = events_of("Create", f)
        check(len(c) == 1, "one Create event for %s" % name, "got %d" % len(c))
        check(len(c) == 1 and c[0][3] == path, "its Create names %s" % path, "got %s" % (c[0][3] if c else None))
    c = events_of("Create", fid_f)
    if "writer" in traced:
        check(bool(c) and bool(first_wr) and c[0][0] < first_wr[0][0],
              "f.dat's Create comes before the writer's first pwrite64 record")
        opened = [x for x in wopen if x[2].get("created")]
        want_n = len([c for c in w.calls if c["call"] == "VfsOpenat" and c["created"]])
        check(len(opened) == want_n, "the writer's %d creating openat records say created" % want_n,
              "got %d" % len(opened))
    stray = sorted(set(f[1] for _, _, f, _ in creates) - known)
    check(not stray, "Create events only for the pattern's files and directories", "also inodes %s" % stray)

    d_tmp = events_of("Delete", fid_tmp) if fid_tmp else []
    d_all = [x for x in fsev if x[1] == "Delete"]
    if tmp_in:
        check(len(d_tmp) == 1, "one Delete event for tmp.dat (unlinked by the reader)", "got %d" % len(d_tmp))
        check(len(d_tmp) == 1 and d_tmp[0][3] == path_tmp, "the Delete names %s" % path_tmp,
              "got %s" % (d_tmp[0][3] if d_tmp else None))
    check(len(d_all) == len(d_tmp), "no other Delete event", "got %s" % [(f[1], p) for _, _, f, p in d_all])
    mf, mt = events_of("MoveFrom", fid_f), events_of("MoveTo", fid_f)
    check(len(mf) == 1 and len(mt) == 1, "one MoveFrom and one MoveTo event for f.dat's FileId",
          "got %d MoveFrom, %d MoveTo" % (len(mf), len(mt)))
    moves = [x for x in fsev if x[1] in ("MoveFrom", "MoveTo")]
    check(len(moves) == len(mf) + len(mt), "no other Move event", "got %s" % [(k, f[1]) for _, k, f, _ in moves])
    if mf and mt:
        check(mf[0][0] < mt[0][0], "MoveFrom comes before MoveTo")
        check(mf[0][3] == path_f, "MoveFrom names the old path %s" % path_f, "got %s" % mf[0][3])
        check(mt[0][3] == path_g, "MoveTo names the new path %s" % path_g, "got %s" % mt[0][3])
    if "reader" in traced and mf and mt and (d_tmp or not tmp_in):
        rr = [x for x in vfs if x[2]["pid"] == r.pid and not ns_call(x[2]["call"])]
        last_f = max((x[0] for x in rr if x[3] == path_f), default=None)
        first_g = min((x[0] for x in rr if x[3] == path_g), default=None)
        order = [mf[0][0], mt[0][0]] + ([d_tmp[0][0]] if d_tmp else [])
        check(last_f is not None and first_g is not None and last_f < order[0] and order == sorted(order)
              and order[-1] < first_g,
              "MoveFrom, MoveTo%s lie between the reader's last call on f.dat and its first on g.dat"
              % (" and Delete" if d_tmp else ""))

    # --- block I/O ---
    chunks = [tuple(int(x) for x in line.split()) for line in open(a.chunks)] if a.chunks else None

    def device_byte(b):
        """the device address of FIEMAP's address b"""
        if chunks is None:
            return b
        for logical, length, physical in chunks:
            if logical <= b < logical + length:
                return physical + b - logical
        return None

    def lba_of(off_sectors):
        """the disk sector of f.dat's file sector off_sectors (FIEMAP)"""
        b = off_sectors * SECTOR
        for e in w.extents:
            if e["logical"] <= b < e["logical"] + e["length"]:
                d = device_byte(e["physical"] + b - e["logical"])
                return None if d is None else d // SECTOR
        return None

    def tiles(group, start, count):
        """group's file offsets cover [start, start + count) exactly once"""
        sec = []
        for _, _, io, m in group:
            off = int(m["fileOffset"])
            sec.extend(range(off, off + io["len"]))
        return sorted(sec) == list(range(start, start + count))

    f_ios = [x for x in ios if x[3] and fid(x[3]["fileId"]) == fid_f]
    f_writes = [x for x in f_ios if x[2]["operation"] == "Write"]
    # the classes are exclusive: file data, direct (a user buffer), metadata
    both = [(x[0], x[2]["comm"], x[2]["lba"], x[2]["len"]) for x in ios
            if x[2].get("direct") and x[2].get("metadata")]
    check(not both, "no block I/O is flagged both direct and metadata",
          "%d are (sid, comm, lba, len): %s" % (len(both), both[:4]))
    # direct I/Os: attributed to a file by their own flag and meta
    direct = [x for x in ios if x[2].get("direct") and not x[2].get("metadata")]
    measure("f.dat: %d block writes (%d sectors), %d direct I/Os (%d sectors) in the trace"
            % (len(f_writes), sum(x[2]["len"] for x in f_writes), len(direct), sum(x[2]["len"] for x in direct)))

    sw = sum(x[2]["len"] for x in f_writes)
    check(sw == FILE_SECTORS, "block bytes written attributed to f.dat are 1 MiB (%d sectors)" % FILE_SECTORS,
          "got %d sectors" % sw)
    check(tiles(f_writes, 0, FILE_SECTORS), "they cover f.dat's file offsets 0..%d once each" % (FILE_SECTORS - 1))
    badl = [(int(m["fileOffset"]), int(io["lba"]), lba_of(int(m["fileOffset"]))) for _, _, io, m in f_writes
            if int(io["lba"]) != lba_of(int(m["fileOffset"]))]
    check(bool(f_writes) and not badl, "each one's LBA is FIEMAP's mapping of its fileOffset",
          "(fileOffset, lba, FIEMAP) %s" % badl[:3])
    check(bool(f_writes) and all(io["pid"] == w.pid and io.get("tid") == w.pid and io.get("comm") == COMM["writer"]
                                 and int(io.get("cgroupId", 0)) == a.writer_cgroup for _, _, io, _ in f_writes),
          "they were queued by the writer (pid, tid, comm, cgroupId) in its fsync",
          "got %s" % sorted(set((io["pid"], io.get("comm"), io.get("cgroupId")) for _, _, io, _ in f_writes)))
    fsync = [v for _, _, v, _ in vfs if v["pid"] == w.pid and v["call"] == "VfsFsync"]
    want_link = {int(fsync[0]["id"])} if "writer" in traced and fsync else {0}
    got_link = set(int(io.get("vfsCallId", 0)) for _, _, io, _ in f_writes)
    check(bool(f_writes) and got_link == want_link,
          "their vfsCallId is %s" % ("the writer's fsync record's id %s" % want_link if "writer" in traced
                                      else "0 (the writer's calls were not traced)"),
          "got %s" % sorted(got_link))

    rd = [x for x in direct if x[2]["pid"] == r.pid]
    check(len(rd) == len(direct) and bool(direct), "every direct (non-metadata) I/O is the reader's",
          "%d of %d" % (len(rd), len(direct)))
    check(bool(rd) and all(x[2]["operation"] == "Read" for x in rd), "the direct I/Os are reads")
    check(bool(rd) and all(x[3] and fid(x[3]["fileId"]) == fid_f for x in rd),
          "every direct I/O has a filesystemMeta naming f.dat's FileId")
    rd = [x for x in rd if x[3]]
    sd = sum(x[2]["len"] for x in rd)
    check(sd == FILE_SECTORS, "direct I/Os read 1 MiB (%d sectors)" % FILE_SECTORS, "got %d" % sd)
    check(tiles(rd, 0, FILE_SECTORS), "direct I/Os' fileOffsets cover 0..%d once each" % (FILE_SECTORS - 1))
    reads = [c for c in r.calls if c["file"] == "f" and c["call"] in READS]
    got_offs = sorted((int(m["fileOffset"]), io["len"]) for _, _, io, m in rd)
    measure("direct I/O (fileOffset, sectors): %s" % got_offs)
    # a read crossing an extent boundary is more than one bio
    bad = []
    for c in reads:
        off, size = c["offset"] // SECTOR, c["size"] // SECTOR
        g = [x for x in rd if off <= int(x[3]["fileOffset"]) < off + size]
        if not tiles(g, off, size):
            bad.append("read at %d+%d: I/Os %s" % (off, size, [(int(m["fileOffset"]), io["len"]) for _, _, io, m in g]))
    check(len(reads) == 24 and not bad,
          "direct I/Os' fileOffsets are exactly the reads' offsets: each of the %d reads' ranges is "
          "covered once by the I/Os that start in it" % len(reads), "; ".join(bad[:3]))
    badl = [(int(m["fileOffset"]), int(io["lba"]), lba_of(int(m["fileOffset"]))) for _, _, io, m in rd
            if int(io["lba"]) != lba_of(int(m["fileOffset"]))]
    check(bool(rd) and not badl, "each direct I/O's LBA is FIEMAP's mapping of its fileOffset",
          "(fileOffset, lba, FIEMAP) %s" % badl[:3])
    check(bool(rd) and all(io.get("tid") == r.pid and io.get("comm") == COMM["reader"]
                           and int(io.get("cgroupId", 0)) == a.reader_cgroup for _, _, io, _ in rd),
          "direct I/Os: tid %d, comm %s, cgroupId %d (the reader's)" % (r.pid, COMM["reader"], a.reader_cgroup))
    check(bool(rd) and all(int(m["fileSize"]) == FILE_SECTORS for _, _, _, m in rd),
          "direct I/Os: fileSize is %d sectors" % FILE_SECTORS)
    if "reader" in traced:
        # the O_DIRECT reads: those of the file while it was f.dat
        rrec = {int(v["id"]): v for _, _, v, p in vfs
                if v["pid"] == r.pid and v["call"] in READS and p == path_f}
        bad = []
        for cid, v in rrec.items():
            g = [x for x in rd if int(x[2].get("vfsCallId", 0)) == cid]
            off, size = int(v["offset"]) // SECTOR, int(v["size"]) // SECTOR
            if not tiles(g, off, size):
                bad.append("call %d %s at %d: I/Os %s" % (cid, v["call"], off,
                           [(int(m["fileOffset"]), io["len"]) for _, _, io, m in g]))
        check(len(rrec) == len(reads) and not bad,
              "each O_DIRECT read record's direct I/Os (by vfsCallId) cover exactly its offset and size",
              "%d records for %d reads; %s" % (len(rrec), len(reads), "; ".join(bad[:3])))
        unlinked = [x for x in rd if int(x[2].get("vfsCallId", 0)) not in rrec]
        check(not unlinked, "every direct I/O's vfsCallId is one of the reader's read/pread64 records",
              "%d are not: %s" % (len(unlinked), sorted(set(int(x[2].get("vfsCallId", 0)) for x in unlinked))))
        late = []
        for sid, ts, io, m in rd:
            c = rec_of.get(int(io.get("vfsCallId", 0)))
            if c and not (c[1] - int(c[2]["duration"]) <= ts <= c[1]):
                late.append((sid, ts, c[1]))
        check(bool(rd) and not late, "each direct I/O was queued while its call ran (start <= ts <= end)",
              "%s" % late[:3])
        # a buffered read of g.dat that missed the cache would be its pread64's
        gp = [v for _, _, v, p in vfs if v["pid"] == r.pid and p == path_g and v["call"] in READS]
        other = [x for x in f_ios if x[2]["pid"] == r.pid and not x[2].get("direct")]
        check(all(gp and int(x[2].get("vfsCallId", 0)) == int(gp[0]["id"]) for x in other),
              "the reader's buffered block reads of g.dat (%d) belong to its pread64" % len(other))
    else:
        check(bool(rd) and all(int(io.get("vfsCallId", 0)) == 0 for _, _, io, _ in rd),
              "direct I/Os carry no vfsCallId (the reader's calls were not traced)")

    # I/O of the pattern's processes, whatever it is, is in their cgroups
    for who, (lg, cg) in roles.items():
        mine = [io for _, _, io, _ in ios if io["pid"] == lg.pid]
        check(all(int(io.get("cgroupId", 0)) == cg and io.get("comm") == COMM[who] for io in mine),
              "%s: each of its %d block I/Os has its cgroupId and comm" % (who, len(mine)))

    # --- iotrace -P --file-statistics, when the parser has it ---
    if a.file_stats:
        fs = json.load(open(a.file_stats))
        rows = {x["file"]["path"]: x for x in fs.get("files", [])}
        measure("--file-statistics paths: %s" % sorted(rows))

        def cnt(path, *keys):
            v = rows.get(path, {})
            for k in keys:
                v = v.get(k, {}) if isinstance(v, dict) else {}
            return int(v) if not isinstance(v, dict) else 0

        def nlog(files, calls, field=None):
            return sum((c[field] if field else 1) for who in traced for c in roles[who][0].calls
                       if c["file"] in files and c["call"] in calls)
        # the parser may key a file by its path at each call or by its
        # last path: f.dat and g.dat are one file, so their rows are summed
        for paths, files in (((path_f, path_g), ("f", "g")), ((path_tmp,), ("tmp",))):
            for key, calls in (("open", ("VfsOpenat",)), ("close", ("VfsClose",)), ("read", READS),
                               ("write", WRITES), ("seek", ("VfsLseek",)), ("sync", ("VfsFsync",))):
                want_n = nlog(files, calls)
                want_b = nlog(files, calls, "result") if key in ("read", "write") else 0
                got_n = sum(cnt(p, "vfs", key, "count") for p in paths)
                got_b = sum(cnt(p, "vfs", key, "bytes") for p in paths)
                check(got_n == want_n and got_b == want_b,
                      "--file-statistics %s: vfs.%s count %d, bytes %d" % (" + ".join(paths), key, want_n, want_b),
                      "got %d, %d" % (got_n, got_b))
        bw = sum(cnt(p, "block", "write", "bytes") for p in (path_f, path_g))
        br = sum(cnt(p, "block", "read", "bytes") for p in (path_f, path_g))
        check(bw == FILE_BYTES and br == FILE_BYTES,
              "--file-statistics %s + %s: block read and written 1 MiB each" % (path_f, path_g),
              "got read %d, written %d" % (br, bw))
        check(cnt(path_tmp, "block", "write", "bytes") == 0 and cnt(path_tmp, "block", "read", "bytes") == 0,
              "--file-statistics %s: no block I/O (unlinked before writeback)" % path_tmp)

if __name__ == "__main__":
    main()
    sys.exit(1 if CHECKS.failures else 0)
