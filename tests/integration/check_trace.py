#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the events of a trace, as printed by `iotrace -P --io --raw`.

Reads JSON Lines (one event per line) from a file and prints one line per
check, "ok: ..." or "FAIL: ...", and "measure: ..." lines with the numbers
it found. The caller counts the ok/FAIL lines. Exit status: 0 if every
check passed, 1 otherwise, 2 on bad usage.

  check_trace.py EVENTS --dev DEVT --name NAME
                 [--read-sectors N] [--write-sectors N] [--discard-sectors N]
                 [--min-io N] [--min-split N] [--min-dispatch N]
                 [--allow-incomplete | --truncated] [--phases FILE]
                 [--busy] [--kernel-completions FILE]

DEVT is the traced whole disk in the kernel's dev_t encoding
(major << 20 | minor). The sector arguments are the deltas of
/sys/block/NAME/stat over the traced window; the sums over the trace must
match them exactly.

Semantics checked (see bpf/iotrace_event.h):
- every `io` (id = bio or, with requestOnly, request address) and every
  `ioSplit` child gets exactly one `ioCompletion` whose refId is its id,
  after it and before the id is used again; addresses are reused, so the
  matching is done in sid order;
- a split child's parent is in flight when it is split; the parent's own
  `io.len` already covers the children, so children are not added to sums;
- header.sid strictly increases; all device ids are DEVT.

A completion the trace lacks (its id submitted again while in flight, or
never completed) fails, unless --kernel-completions shows that the kernel
completed the I/O in PID 1's context, where the kernel of this project's
VMs runs no BPF program (see kernel_completions.py).
"""
import argparse
import json
import sys
from collections import Counter

from kernel_completions import KernelCompletions

EVENT_TYPES = ("io", "ioCompletion", "ioSplit", "ioDispatch", "deviceDescription",
               "filesystemMeta", "filesystemFileName", "filesystemFileEvent")

failures = 0


def ok(msg):
    print("ok: " + msg)


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def check(cond, msg, detail=""):
    if cond:
        ok(msg)
    else:
        fail(msg + (": " + detail if detail else ""))


def measure(msg):
    print("measure: " + msg)


def as_int(v):
    return int(v) if v is not None else None


def print_phases(path, io_times):
    """Sectors per workload step: stat delta vs trace (by submission time)."""
    snaps = []
    with open(path) as f:
        for line in f:
            p = line.split()
            st = [int(x) for x in p[2:]]
            snaps.append((p[0], int(p[1]), st[2], st[6], st[13] if len(st) >= 15 else 0))
    if not snaps:
        return
    col = {"Read": 0, "Write": 1, "WriteZeroes": 1, "Discard": 2}

    def trace_sums(lo, hi):
        tr, who = [0, 0, 0], Counter()
        for t, cls, length, pid in io_times:
            if cls in col and (lo is None or t >= lo) and (hi is None or t < hi):
                tr[col[cls]] += length
                who["%s pid %d" % (cls, pid)] += length
        return tr, who

    measure("%-18s %21s %21s %21s" % ("step: stat|trace", "read", "write", "discard"))
    tr, who = trace_sums(None, snaps[0][1])
    if any(tr):
        measure("%-18s %10s|%-10d %10s|%-10d %10s|%-10d   <-- traced before the first snapshot (%s)" % (
            "(before " + snaps[0][0] + ")", "", tr[0], "", tr[1], "", tr[2],
            ", ".join("%s: %d" % kv for kv in who.items())))
    for i in range(1, len(snaps)):
        st = [snaps[i][k] - snaps[i - 1][k] for k in (2, 3, 4)]
        tr, who = trace_sums(snaps[i - 1][1], snaps[i][1])
        mark = "" if st == tr else "   <-- differs (%s)" % ", ".join("%s: %d" % kv for kv in who.items())
        measure("%-18s %10d|%-10d %10d|%-10d %10d|%-10d%s" % (
            snaps[i][0], st[0], tr[0], st[1], tr[1], st[2], tr[2], mark))
    tr, who = trace_sums(snaps[-1][1], None)
    if any(tr):
        measure("%-18s %10s|%-10d %10s|%-10d %10s|%-10d   <-- traced after the last snapshot (%s)" % (
            "(after " + snaps[-1][0] + ")", "", tr[0], "", tr[1], "", tr[2],
            ", ".join("%s: %d" % kv for kv in who.items())))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("events")
    ap.add_argument("--dev", type=int, required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--read-sectors", type=int)
    ap.add_argument("--write-sectors", type=int)
    ap.add_argument("--discard-sectors", type=int)
    ap.add_argument("--discard-from",
                    help="where --discard-sectors comes from (default: the device's stat)")
    ap.add_argument("--part",
                    help="DEVT:START:SIZE: a partition of the disk was traced, not the disk: "
                         "every io is of that partition (its dev_t) and lies in its sectors")
    ap.add_argument("--stat-name",
                    help="the block device the sector arguments are the stat deltas of "
                         "(default: --name)")
    ap.add_argument("--min-io", type=int, default=1)
    ap.add_argument("--min-split", type=int, default=0)
    ap.add_argument("--min-dispatch", type=int, default=0)
    ap.add_argument("--no-dispatch", action="store_true",
                    help="the trace was taken without --dispatch: no ioDispatch at all")
    ap.add_argument("--phases",
                    help="file of 'NAME MONOTONIC_NS <stat fields>' lines, one per workload "
                         "step: prints the sectors per step, trace vs stat")
    ap.add_argument("--kernel-completions",
                    help="the kernel's completions of the disk over the traced window, from "
                         "tracer-lib.sh's iotrace_kernel_completions_take: a completion the trace "
                         "lacks passes when the kernel completed that I/O in PID 1's context")
    ap.add_argument("--allow-incomplete", action="store_true",
                    help="I/Os may lack a completion (at the end of the trace)")
    ap.add_argument("--busy", action="store_true",
                    help="a workload kept the device busy when tracing began and ended: "
                         "completions and splits of I/Os from before the trace are measured, "
                         "not failed; at the end, every I/O of the trace must have completed")
    ap.add_argument("--truncated", action="store_true",
                    help="the per-CPU streams may end at different sids (a killed or "
                         "size-limited tracer): the I/O/completion pairing is only measured")
    a = ap.parse_args()
    part = tuple(int(x) for x in a.part.split(":")) if a.part else None
    stat_name = a.stat_name or a.name

    counts = Counter()
    bad_lines = []
    sid_errors = []
    dev_errors = []
    prev_sid = None
    inflight = {}            # id -> ("io"|"split", sid, ns, lba, len)
    dup_submit = []          # (what, inflight value, ns of the reuse, split parent?): an id submitted again while in flight
    orphan_completions = []  # completion whose refId is not in flight
    seen = set()             # ids submitted (io or split child) so far
    before_trace = Counter() # with --busy: completions and splits of I/Os from before the trace
    split_parent_missing = []
    split_parents = set()    # ids in flight that had a child split off
    preflush = set()         # ids in flight of a write with a preflush
    range_errors = []        # completions whose range is not their I/O's
    ranges = Counter()       # completions by how their range relates to their I/O's
    completion_errors = []
    part_errors = []
    no_task = []             # io events without the comm of their task
    sums = Counter()         # sectors by class
    ios = Counter()          # io events by class
    dispatch_sectors = 0
    dispatch_bios = 0
    descriptions = []
    extents = []             # (sid, lba, len) of every io
    io_times = []            # (timestamp, class, len) of every io, for --phases
    nlines = 0

    def submitted(kind, iid, sid, ns, body):
        """An io or split child (kind "io" or "split"): in flight from now on, by its id."""
        if iid in inflight:
            dup_submit.append(("sid %d %s id %s (in flight since sid %d)" % (
                sid, "io" if kind == "io" else "split child", iid, inflight[iid][1]), inflight[iid], ns,
                iid in split_parents))
        inflight[iid] = (kind, sid, ns, int(body.get("lba", 0)), int(body.get("len", 0)))
        seen.add(iid)
        split_parents.discard(iid)
        preflush.discard(iid)
        if body.get("flush") and int(body.get("len", 0)):
            preflush.add(iid)

    def completed(sid, rid, body):
        """The range a completion reports against its I/O's."""
        _, _, _, lba, length = inflight[rid]
        clba, clen = int(body.get("lba", 0)), int(body.get("len", 0))
        if (clba, clen) == (lba, length):
            ranges["the I/O's"] += 1
        elif rid in split_parents and lba < clba and clba + clen == lba + length:
            # bio_split() cuts the children off the front of the parent
            ranges["a split parent's rest"] += 1
        elif rid in preflush and (clba, clen) == (lba, 0):
            # the flush sequence wrote the data before it ends the bio
            ranges["a preflush write's LBA, length 0"] += 1
        else:
            range_errors.append("sid %d refId %s: %d+%d, its I/O %d+%d" % (
                sid, rid, clba, clen, lba, length))

    with open(a.events) as f:
        for lineno, line in enumerate(f, 1):
            nlines += 1
            try:
                ev = json.loads(line)
                sid = int(ev["header"]["sid"])
            except (ValueError, KeyError, TypeError) as e:
                bad_lines.append("line %d: %s" % (lineno, e))
                continue
            if prev_sid is not None and sid <= prev_sid:
                sid_errors.append("line %d: sid %d after %d" % (lineno, sid, prev_sid))
            prev_sid = sid
            kinds = [k for k in ev if k != "header"]
            if len(kinds) != 1:
                bad_lines.append("line %d: %d event bodies" % (lineno, len(kinds)))
                continue
            kind = kinds[0]
            body = ev[kind]
            counts[kind] += 1
            ns = int(ev["header"].get("timestamp", 0))

            if kind == "deviceDescription":
                descriptions.append(body)
                if as_int(body.get("id")) not in (a.dev, part[0] if part else a.dev):
                    dev_errors.append("sid %d deviceDescription.id %s" % (sid, body.get("id")))
                continue
            if kind in ("io", "ioCompletion", "ioSplit", "ioDispatch"):
                if as_int(body.get("deviceId")) != a.dev:
                    dev_errors.append("sid %d %s.deviceId %s" % (sid, kind, body.get("deviceId")))

            if kind == "io":
                submitted("io", body["id"], sid, ns, body)
                if body.get("partitionId", "0") != (str(part[0]) if part else "0"):
                    part_errors.append("sid %d partitionId %s" % (sid, body.get("partitionId")))
                op = body.get("operation")
                length = int(body.get("len", 0))
                extents.append((sid, int(body.get("lba", 0)), length))
                # pid 0 is the idle task (swapper/N): I/O issued from an interrupt on an idle CPU
                if not body.get("comm"):
                    no_task.append("sid %d id %s%s" % (
                        sid, body["id"], " (requestOnly)" if body.get("requestOnly") else ""))
                if body.get("requestOnly"):
                    cls = "requestOnly"
                elif body.get("writeZeroes"):
                    cls = "WriteZeroes"
                else:
                    cls = str(op)
                ios[cls] += 1
                sums[cls] += length
                io_times.append((int(ev["header"]["timestamp"]), cls, length, int(body.get("pid", 0))))
                if body.get("flush"):
                    ios["flag:flush"] += 1
                if body.get("fua"):
                    ios["flag:fua"] += 1
            elif kind == "ioSplit":
                cid, pid = body["id"], body["parentId"]
                if pid in inflight:
                    split_parents.add(pid)
                elif a.busy and pid not in seen:
                    before_trace["ioSplit"] += 1
                else:
                    split_parent_missing.append("sid %d split child %s parent %s" % (sid, cid, pid))
                submitted("split", cid, sid, ns, body)
            elif kind == "ioCompletion":
                rid = body["refId"]
                if rid in inflight:
                    completed(sid, rid, body)
                    del inflight[rid]
                elif a.busy and rid not in seen:
                    before_trace["ioCompletion"] += 1
                else:
                    orphan_completions.append("sid %d refId %s" % (sid, rid))
                if body.get("error") or int(body.get("status", 0)) != 0:
                    completion_errors.append("sid %d refId %s status %s" % (sid, rid, body.get("status")))
            elif kind == "ioDispatch":
                dispatch_sectors += int(body.get("len", 0))
                dispatch_bios += int(body.get("bioCount", 0))

    measure("events: %d lines; %s" % (nlines, ", ".join("%s %d" % (k, counts[k]) for k in EVENT_TYPES if counts[k])))
    measure("io by class: %s" % ", ".join("%s %d" % kv for kv in sorted(ios.items())))
    measure("sectors by class: %s" % ", ".join("%s %d" % kv for kv in sorted(sums.items())))
    measure("dispatch: %d requests, %d sectors, %d bios" % (counts["ioDispatch"], dispatch_sectors, dispatch_bios))
    measure("never completed: %d (%d io, %d split); orphan completions: %d" % (
        len(inflight), sum(1 for v in inflight.values() if v[0] == "io"),
        sum(1 for v in inflight.values() if v[0] == "split"), len(orphan_completions)))
    if a.busy:
        measure("of I/Os from before the trace: %d completions, %d splits" % (
            before_trace["ioCompletion"], before_trace["ioSplit"]))

    if a.phases:
        print_phases(a.phases, io_times)

    def first(lst, n=3):
        return "; ".join(lst[:n]) + (" ..." if len(lst) > n else "")

    check(not bad_lines, "every line is one JSON event with a header.sid", first(bad_lines))
    check(not sid_errors, "header.sid strictly increasing", first(sid_errors))
    check(counts["io"] >= a.min_io, "at least %d io events (got %d)" % (a.min_io, counts["io"]))
    check(any(d.get("name") == a.name for d in descriptions),
          "a deviceDescription names %s" % a.name, str(descriptions))
    # a request without a bio (a cache flush) has no sector: 0, as the kernel's tracepoints say
    size = max([as_int(d.get("size")) for d in descriptions if d.get("name") == a.name] or [0])
    lo, hi, where = 0, size, "the device (%d sectors)" % size
    if part:
        lo, hi, where = part[1], part[1] + part[2], "the partition (sectors %d-%d)" % (
            part[1], part[1] + part[2] - 1)
    # an empty flush touches no sector: the block layer leaves its LBA 0
    outside = ["sid %d lba %d len %d" % x for x in extents
               if x[2] and (x[1] < lo or x[1] + x[2] > hi)]
    check(bool(extents) and not outside, "every io lies within " + where, first(outside))
    check(not dev_errors, "every device id is %d (%s)" % (a.dev, a.name), first(dev_errors))
    check(not part_errors, "io.partitionId is %s everywhere" % (
        "%d (the partition)" % part[0] if part else "0 (whole disk)"), first(part_errors))
    check(not no_task, "every io names its task's comm (a bio-less request: the task that "
          "dispatched it)", first(no_task))
    if a.truncated:
        measure("pairing not checked (truncated trace): %d ids reused while in flight, %d splits "
                "of a parent not in flight, %d orphan completions" % (
                    len(dup_submit), len(split_parent_missing), len(orphan_completions)))
    else:
        # A completion the trace lacks shows up as its id submitted again
        # while in flight, or as an I/O still in flight at the end.
        missing = list(dup_submit)
        if not a.allow_incomplete:
            missing += [("%s %s (sid %d) never completed" % (v[0], k, v[1]), v, None, k in split_parents)
                        for k, v in inflight.items()]
        total = counts["io"] + counts["ioSplit"]
        measure("completions missing: %d of %d I/Os (%.1f per 100k)" % (
            len(missing), total, len(missing) * 100000.0 / max(total, 1)))
        if a.kernel_completions:
            kc = KernelCompletions(a.kernel_completions)
            measure("the kernel's completions of the disk: %d, of which in PID 1's context: %d" % (
                kc.total, len(kc.in_init)))
            check(not kc.bad_lines and kc.total > 0,
                  "the kernel's completion record holds %d events and nothing else" % kc.total,
                  first(kc.bad_lines))
            lost = ["%s: %s" % (what, kc.why_not(lba, length, ns, until, parent))
                    for what, (_, _, ns, lba, length), until, parent in missing
                    if not kc.explains(lba, length, ns, until, parent)]
            check(not lost, "every I/O without its completion in the trace (%d) was completed by the "
                  "kernel in PID 1's context, where this kernel runs no BPF program" % len(missing),
                  first(lost))
        else:
            check(not dup_submit, "no id submitted twice while in flight", first([d[0] for d in dup_submit]))
            if not a.allow_incomplete:
                left = ["%s %s (sid %d)" % (v[0], k, v[1]) for k, v in inflight.items()]
                check(not left, "every io and split child has exactly one ioCompletion", first(left))
        check(not split_parent_missing, "every split's parent is in flight", first(split_parent_missing))
        check(not orphan_completions, "every ioCompletion matches an io or split in flight",
              first(orphan_completions))
    check(not completion_errors, "no completion reports an error", first(completion_errors))
    measure("completion ranges: %s" % ", ".join("%s %d" % kv for kv in sorted(ranges.items())))
    if a.truncated:
        # a cut stream may have lost an id's latest io: its completion meets an older one
        measure("ranges not checked (truncated trace): %d completions unlike the io of their id "
                "in flight" % len(range_errors))
    else:
        check(not range_errors, "every ioCompletion has its I/O's range (a split parent's: the "
              "rest of it; a write with a preflush: its LBA, length 0)", first(range_errors))
    if a.min_split:
        check(counts["ioSplit"] >= a.min_split, "at least %d ioSplit (got %d)" % (a.min_split, counts["ioSplit"]))
    if a.min_dispatch:
        check(counts["ioDispatch"] >= a.min_dispatch,
              "at least %d ioDispatch (got %d)" % (a.min_dispatch, counts["ioDispatch"]))
    if a.no_dispatch:
        check(counts["ioDispatch"] == 0, "no ioDispatch without --dispatch (got %d)" % counts["ioDispatch"])

    # The kernel's /sys/block stat counts REQ_OP_WRITE_ZEROES as writes
    # (op_stat_group: every odd op that is not a discard is STAT_WRITE).
    if a.read_sectors is not None:
        check(sums["Read"] == a.read_sectors,
              "read sectors: trace %d == /sys/class/block/%s/stat %d" % (sums["Read"], stat_name, a.read_sectors))
    if a.write_sectors is not None:
        w = sums["Write"] + sums["WriteZeroes"]
        check(w == a.write_sectors,
              "write sectors: trace %d (Write %d + WriteZeroes %d) == /sys/class/block/%s/stat %d" % (
                  w, sums["Write"], sums["WriteZeroes"], stat_name, a.write_sectors))
    if a.discard_sectors is not None:
        check(sums["Discard"] == a.discard_sectors,
              "discard sectors: trace %d == %s %d" % (
                  sums["Discard"], a.discard_from or "/sys/class/block/%s/stat" % stat_name, a.discard_sectors))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
