#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A seeded random churn of a file system, and the check of its trace.

  churn.py run MNT SEED OPS DROP LOG [TOP...]
      the churn, under trace, in MNT/TOP (default: a and b), dropping the
      kernel's caches every DROP operations (0: never); LOG: what it did.
      With IOTRACE_URING_NS set (the path of tests/integration/uring_ns.c),
      a quarter of its renames, renames onto files, exchanges, unlinks and
      directory renames go through io_uring: a third of those alone, a
      third linked after a nop, a third linked after an unlink of a file
      in /dev/shm, which the io-wq worker runs first
  churn.py check MNT CSV VFS UNRESOLVED LOG...
      the trace's -P --io CSV against the LOGs, and its -P --vfs CSV (a
      --vfs trace's; - for none); LOGs of churns run at once, each in
      directories of its own; UNRESOLVED: the calls the trace's summary
      counts as unresolved (tags.unresolvedFileEvents), which may each be
      missing

The churn works on the files of MNT/a and MNT/b and of the directories
in them: fsynced 4 KiB writes, renames to new names, renames onto other
files, exchanges (RENAME_EXCHANGE), unlinks, creates, and renames of
those directories, and drops the kernel's caches every DROP operations,
so that the tracer's walk of the dentry cache meets cold directories too.
Which calls go through io_uring is drawn apart, from SEED + 1: the churn
is the same with them or without.

The check wants, exactly and in order (per LOG, where there are
several): a Delete for each unlink and each file a rename replaced, a
MoveFrom and MoveTo for each file moved (both files of an exchange),
each under the path the file had then, none for a directory; for what
io_uring did, those events, or none at all (it prints how many of its
calls other than directory renames left no event, which the tracer
counts in tags.uringCallsNotFollowed, with those of its directory
renames it could not resolve, and how many of its unlinks and renames
had their events); and each fsynced write's data I/O under the path its
file had at that time, after io_uring's renames too. In
the --vfs view, each write, rename, exchange and unlink call in order,
under the path its file had when the call returned (an unlinked file's
last); a directory's rename is no file's call, and io_uring's calls have
none there. An
unlink or rename the tracer counted as unresolved leaves neither events
nor a call: up to UNRESOLVED of them may be missing, each whole, and
nothing else. It prints what differs first and exits 1.
"""
import csv
import json
import os
import random
import subprocess
import sys

from exchange import exchange


def run(mnt, seed, nops, drop, log_path, tops):
    rnd = random.Random(seed)
    uring_ns = os.environ.get("IOTRACE_URING_NS")
    via = random.Random(seed + 1)

    # a file elsewhere (no traced device) whose io_uring unlink goes first
    scratch = "/dev/shm/churn-%d-%d" % (os.getpid(), seed)

    def call(kind, *paths):
        """kind (rename, exchange or unlink) of paths, through io_uring a time in four:
        the log's prefix. Of those, a third alone, a third linked after a nop (handed
        off to io-wq as alone), a third linked after an unlink elsewhere (run next
        by the worker that ran that, never handed off)."""
        if uring_ns and via.random() < 0.25:
            how = via.randrange(3)
            if how == 2:
                open(scratch, "w").close()
            ahead = [[], ["nop"], ["unlink", scratch]][how]
            subprocess.run([uring_ns, *ahead, ("+" if ahead else "") + kind, *paths], check=True)
            return "uring_"
        if kind == "rename":
            os.rename(*paths)
        elif kind == "exchange":
            exchange(*paths)
        else:
            os.unlink(*paths)
        return ""
    dirs = [mnt + "/" + t for t in tops]
    subdirs = sorted(d + "/" + n for d in dirs for n in os.listdir(d) if os.path.isdir(d + "/" + n))
    live = sorted(os.path.join(top, n) for d in dirs for top, _, names in os.walk(d) for n in names)
    log = []
    serial = 0
    for i in range(nops):
        if drop and i % drop == drop - 1:
            os.sync()
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3")
        p = rnd.choice(live)
        q = rnd.choice(live)
        op = rnd.random()
        if op < 0.3:
            fd = os.open(p, os.O_WRONLY)
            os.pwrite(fd, b"c" * 4096, rnd.randrange(4) * 4096)
            os.fsync(fd)
            os.close(fd)
            log.append(["write", p])
        elif op < 0.47 or (op < 0.72 and q == p):
            serial += 1
            q = "%s/n%d" % (rnd.choice(dirs), serial)
            via_uring = call("rename", p, q)
            live[live.index(p)] = q
            log.append([via_uring + "rename", p, q])
        elif op < 0.62:
            via_uring = call("rename", p, q)
            live.remove(p)
            log.append([via_uring + "onto", p, q])
        elif op < 0.72:
            via_uring = call("exchange", p, q)
            log.append([via_uring + "exchange", p, q])
        elif op < 0.87:
            via_uring = call("unlink", p)
            live.remove(p)
            log.append([via_uring + "unlink", p])
        elif op < 0.97 or not subdirs:
            serial += 1
            q = "%s/n%d" % (rnd.choice(dirs), serial)
            open(q, "w").close()
            live.append(q)
            log.append(["create", q])
        else:
            d = rnd.choice(subdirs)
            serial += 1
            q = "%s/d%d" % (rnd.choice(dirs), serial)
            via_uring = call("rename", d, q)
            subdirs[subdirs.index(d)] = q
            live = [q + f[len(d):] if f.startswith(d + "/") else f for f in live]
            log.append([via_uring + "dirmove", d, q])
        live.sort()
    with open(log_path, "w") as f:
        json.dump(log, f)


def first_difference(what, got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print("%s: first difference at %d of %d: trace %s, expected %s"
                  % (what, i, len(want), got[max(0, i - 2):i + 3], want[max(0, i - 2):i + 3]))
            return
    print("%s: trace has %d, expected %d" % (what, len(got), len(want)))


CALLS = {"write": "pwrite64", "rename": "rename", "onto": "rename", "exchange": "renameat2",
         "unlink": "unlink"}


def check(mnt, csv_path, vfs_path, unresolved, log_paths):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    vfs = None
    if vfs_path != "-":
        with open(vfs_path) as f:
            vfs = list(csv.DictReader(f))
    # by sid: an I/O whose completion the trace lacks is listed last
    rows.sort(key=lambda r: int(r["header.sid"]))
    ok = True
    missed = 0
    uring_calls = uring_dirmoves = 0
    uring_followed = {"unlink": 0, "rename": 0}
    uring_made = {"unlink": 0, "rename": 0}
    for log_path in log_paths:
        with open(log_path) as f:
            log = json.load(f)
        uring_calls += sum(op[0].startswith("uring_") for op in log)
        uring_dirmoves += sum(op[0] == "uring_dirmove" for op in log)
        for op in log:
            if op[0].startswith("uring_") and op[0] != "uring_dirmove":
                uring_made["unlink" if op[0] == "uring_unlink" else "rename"] += 1
        tops = tuple(sorted(set("/" + p[len(mnt):].split("/")[1] + "/"
                                for op in log for p in op[1:])))
        if len(log_paths) > 1:
            print("%s (%s):" % (log_path, " ".join(tops)))
        one_ok, one_missed, followed = check_one(mnt, log, rows, vfs, tops, unresolved - missed)
        ok = one_ok and ok
        missed += one_missed
        for k in followed:
            uring_followed[k] += followed[k]
    if unresolved:
        print("%d unlinks and renames missing, %d counted unresolved" % (missed, unresolved))
    without = sum(uring_made.values()) - sum(uring_followed.values())
    print("%d io_uring calls, %d without events, %d directory renames; "
          "%d of %d unlinks and %d of %d renames followed"
          % (uring_calls, without, uring_dirmoves, uring_followed["unlink"], uring_made["unlink"],
             uring_followed["rename"], uring_made["rename"]))
    return 0 if ok else 1


def expected(mnt, op):
    """What op leaves in the trace: its file events, and its call (or None)."""
    kind, paths = op[0], [p[len(mnt):] for p in op[1:]]
    call = None
    if kind in CALLS:
        # where the file is when the call returns; an unlinked file's last name
        call = (CALLS[kind], paths[0] if kind in ("write", "unlink") else paths[1])
    events = []
    if kind == "rename":
        events = [("MoveFrom", paths[0]), ("MoveTo", paths[1])]
    elif kind == "onto":
        events = [("Delete", paths[1]), ("MoveFrom", paths[0]), ("MoveTo", paths[1])]
    elif kind == "exchange":
        events = [("MoveFrom", paths[0]), ("MoveTo", paths[1]),
                  ("MoveFrom", paths[1]), ("MoveTo", paths[0])]
    elif kind == "unlink":
        events = [("Delete", paths[0])]
    return events, call


def check_one(mnt, log, rows, vfs, tops, may_miss):
    """
    The trace against one churn's log: True if it matches, how many of the
    log's unlinks and renames it lacks, and how many of io_uring's unlinks
    and renames (exchanges and renames onto files too) it has the events
    of, by kind ("unlink", "rename"). A call the tracer counted as unresolved leaves no
    event and no record; up to may_miss such calls may be missing, each
    whole, and nothing else.
    """
    got_events = [(r["file.eventType"], r["file.path"]) for r in rows
                  if r["file.eventType"] in ("Delete", "MoveFrom", "MoveTo")
                  and r["file.path"].startswith(tops)]
    got_calls = None
    if vfs is not None:
        got_calls = [(r["vfs.call"], r["file.path"]) for r in vfs
                     if r["vfs.call"] in CALLS.values() and r["file.path"].startswith(tops)]
    want_events, want_calls, want_writes = [], [], []
    ie = ic = 0
    missed = 0
    followed = {"unlink": 0, "rename": 0}
    ok = True
    for op in log:
        uring = op[0].startswith("uring_")
        events, call = expected(mnt, [op[0][len("uring_"):] if uring else op[0]] + op[1:])
        if op[0] == "write":
            want_writes.append(op[1][len(mnt):])
        if uring:
            # the events of a call io_uring made, or none (counted); no --vfs record
            if events and got_events[ie:ie + len(events)] == events:
                want_events += events
                ie += len(events)
                followed["unlink" if op[0] == "uring_unlink" else "rename"] += 1
            continue
        there = got_events[ie:ie + len(events)] == events and (
            got_calls is None or call is None or got_calls[ic:ic + 1] == [call])
        if not there and events and missed < may_miss:
            missed += 1
            continue
        want_events += events
        ie += len(events)
        if call is not None:
            want_calls.append(call)
            ic += 1
    # one fsync writes the file's page once; consecutive writes of one file merge
    got_writes = []
    for r in rows:
        if r["io.lba"] and r["io.operation"] == "Write" and r["file.path"].startswith(tops):
            if not got_writes or got_writes[-1] != r["file.path"]:
                got_writes.append(r["file.path"])
    merged = [w for i, w in enumerate(want_writes) if i == 0 or want_writes[i - 1] != w]
    if got_events != want_events:
        first_difference("file events", got_events, want_events)
        ok = False
    if got_writes != merged:
        first_difference("writes", got_writes, merged)
        ok = False
    if got_calls is not None and got_calls != want_calls:
        first_difference("calls", got_calls, want_calls)
        ok = False
    print("%d file events, %d writes (%d files in a row)%s"
          % (len(want_events), len(want_writes), len(merged),
             ", %d calls" % len(want_calls) if got_calls is not None else ""))
    return ok, missed, followed


if __name__ == "__main__":
    if len(sys.argv) >= 7 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6],
            sys.argv[7:] or ["a", "b"])
    elif len(sys.argv) >= 7 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:]))
    else:
        sys.exit(__doc__)
