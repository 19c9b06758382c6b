#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The joined views on the upstream Open-CAS sample trace (a 29 s
# RocksDB/YCSB trace on XFS on NVMe, 72 stream files, 193,615 events),
# checked against what is known of it: 64,420 I/Os (64,188 writes, 231
# discards, 1 read), each with a completion; 241 file events (125 Create,
# 112 Delete, 2 MoveFrom, 2 MoveTo); 400 I/Os without a file; the first
# I/O a 256-sector write at LBA 1652296 to /000014.sst, latency 83797 ns,
# qd 1. The views must agree with each other, with one CPU or two (and
# one pass or a split, for --statistics), and
# the stable ones with their golden outputs (golden/).
#
# usage: sample_views.sh IOTRACE_BINARY DIR_WITH_octf-sample-trace.tar.xz
#        UPDATE_GOLDEN=1 sample_views.sh ... rewrites the golden files
set -u

bin=$1
data=$2
tarball=$data/octf-sample-trace.tar.xz
golden=$(cd "$(dirname "$0")" && pwd)/golden
fails=0

if [ ! -r "$tarball" ]; then
	echo "sample_views: $tarball not found" >&2
	exit 1
fi

tmp=$(mktemp -d /tmp/iotrace-views-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# the reader's own files, read in place as a trace of root's is by root (parser/stream.c)
tar --no-same-owner -xJf "$tarball" -C "$tmp" || exit 1
trace=$(dirname "$(find "$tmp" -name octf.summary | head -n 1)")
trace=$(cd "$trace" && pwd)

# view NAME ARGS...: runs iotrace -P ARGS -p $trace into $tmp/NAME, wants exit 0, no stderr
view() {
	local name=$1 rc
	shift
	"$bin" -P "$@" -p "$trace" >"$tmp/$name" 2>"$tmp/$name.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$name: exit $rc: $(cat "$tmp/$name.err")"
	[ -s "$tmp/$name.err" ] && fail "$name: stderr: $(cat "$tmp/$name.err")"
	[ -s "$tmp/$name" ] || fail "$name: no output"
}

# same_as_golden NAME: $tmp/NAME against golden/NAME (or rewrites it)
same_as_golden() {
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$tmp/$1" "$golden/$1"
		return
	fi
	diff -u "$golden/$1" "$tmp/$1" >"$tmp/$1.diff" || fail "$1 differs from golden/$1: $(head -n 20 "$tmp/$1.diff")"
}

# --- --io, JSON: the known numbers ---
view io.json --io
got=$(python3 - "$tmp/io.json" <<'PY'
import json, sys
ops, events, nofile, lat, last = {}, {}, 0, 0, 0
first = None
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    n += 1
    sid = int(r["header"]["sid"])
    if sid <= last:
        sys.exit("sid %d after %d" % (sid, last))
    last = sid
    if "io" in r:
        io = r["io"]
        ops[io["operation"]] = ops.get(io["operation"], 0) + 1
        if "latency" not in io or io["error"]:
            sys.exit("I/O without completion: %s" % line)
        lat += int(io["latency"])
        if "file" not in r:
            nofile += 1
        if first is None:
            first = r
    else:
        e = r["file"]["eventType"]
        events[e] = events.get(e, 0) + 1
f = first
print(n, sum(ops.values()), " ".join("%s=%d" % kv for kv in sorted(ops.items())),
      sum(events.values()), " ".join("%s=%d" % kv for kv in sorted(events.items())), nofile,
      f["io"]["operation"], f["io"]["len"], f["io"]["lba"], f["file"]["path"],
      f["io"]["latency"], f["io"]["qd"], f["header"]["timestamp"], lat)
PY
) || fail "io.json: bad output"
# its timestamp counts from the trace's first event, a device description
# 3.8 s before it, as Open-CAS counts (its README shows 3835590186: it
# counts from the description in another stream file, 19.6 us later)
want="64661 64420 Discard=231 Read=1 Write=64188 241 Create=125 Delete=112 MoveFrom=2 MoveTo=2 400 Write 256 1652296 /000014.sst 83797 1 3835609741"
case "$got" in
"$want "*) lat_total=${got##* } ;;
*) fail "io.json: got '$got', want '$want ...'" ;;
esac
head -n 3 "$tmp/io.json" >"$tmp/io_head.json"
same_as_golden io_head.json

# one CPU or two: the same bytes
taskset -c 0 "$bin" -P --io -p "$trace" >"$tmp/io1.json" 2>/dev/null
cmp -s "$tmp/io.json" "$tmp/io1.json" || fail "io: one CPU and two give different output"

# Open-CAS's short forms, as its scripts call them: -P for --io, -r for --raw
view io_short.json -P
cmp -s "$tmp/io.json" "$tmp/io_short.json" || fail "io: '-P -P' differs from '-P --io'"
view raw_short.json -P -r
view raw_long.json --io --raw
cmp -s "$tmp/raw_long.json" "$tmp/raw_short.json" || fail "raw: '-P -P -r' differs from '-P --io --raw'"
# an Open-CAS trace has no metadata or direct field: they come from ioClass
# (1 metadata, 22 direct), as Open-CAS's parser gives them
got=$(python3 - "$tmp/raw_long.json" "$tmp/io.json" <<'PY'
import json, sys
cls = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "io" in r:
        c = r["io"].get("ioClass", 0)
        cls[c] = cls.get(c, 0) + 1
meta = direct = 0
for line in open(sys.argv[2]):
    r = json.loads(line)
    if "io" in r:
        meta += r["io"]["flags"]["metadata"]
        direct += r["io"]["flags"]["direct"]
print(meta, cls.get(1, 0), direct, cls.get(22, 0), meta > 0)
PY
) || fail "io flags from ioClass: bad output"
read -r meta c1 direct c22 any <<<"$got"
[ "${meta:-x}" = "${c1:-y}" ] && [ "${direct:-x}" = "${c22:-y}" ] && [ "${any:-}" = True ] ||
	fail "io flags from ioClass: metadata $meta of $c1 ioClass 1, direct $direct of $c22 ioClass 22"

# the same without its summary: the events tell an Open-CAS trace (169 I/Os
# of class 1 lost io.flags.metadata when the summary was what told it)
cp -r "$trace" "$tmp/nosummary" && chmod -R u+w "$tmp/nosummary"
rm "$tmp/nosummary/octf.summary"
"$bin" -P --io -p "$tmp/nosummary" >"$tmp/nosummary.json" 2>"$tmp/nosummary.err"
rc=$?
[ $rc -eq 3 ] || fail "no summary: exit $rc, want 3"
[ "$(cat "$tmp/nosummary.err")" = "iotrace: warning: cannot read the trace's octf.summary (No such file or directory): lost or missing events cannot be ruled out; output may be partial" ] ||
	fail "no summary: stderr '$(cat "$tmp/nosummary.err")'"
cmp -s "$tmp/io.json" "$tmp/nosummary.json" || fail "no summary: --io differs from the trace's with its summary"

# --- --io, CSV: the same records ---
view io.csv --io -f csv
got=$(python3 - "$tmp/io.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
for r in body:
    if len(r) != len(head):
        sys.exit("row of %d cells, header has %d" % (len(r), len(head)))
col = {c: i for i, c in enumerate(head)}
ios = [r for r in body if r[col["io.operation"]]]
print(len(head), len(body), len(ios), sum(int(r[col["io.latency"]]) for r in ios),
      sum(1 for r in ios if not r[col["file.id"]]), head[0], head[6], head[22])
PY
) || fail "io.csv: bad output"
[ "$got" = "34 64661 64420 ${lat_total:-?} 400 header.sid io.latency file.path" ] ||
	fail "io.csv: got '$got'"

# --min-latency 0ns, any latency: the file events, which have none, are left out
view io-min0.csv --io -f csv --min-latency 0ns
got=$(awk -F, 'NR > 1 { n++; if ($7 == "") none++ } END { print n + 0, none + 0 }' "$tmp/io-min0.csv")
[ "$got" = "64420 0" ] || fail "io --min-latency 0ns: rows, rows without latency: got '$got'"

# --- --io, table ---
view io.txt --io -f table
[ "$(wc -l <"$tmp/io.txt")" -eq 64662 ] || fail "io.txt: $(wc -l <"$tmp/io.txt") lines"

# --- --statistics: the same I/Os, summed ---
view stats.json --statistics
got=$(python3 - "$tmp/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["statistics"]
d = s[0]
print(len(s), d["desc"]["device"]["name"],
      " ".join("%s=%s/%s/%s" % (g, d[g]["count"], d[g]["errors"], d[g]["notCompleted"])
               for g in ("read", "write", "discard", "flush", "total")),
      d["total"]["latency"]["count"], d["total"]["latency"]["total"])
PY
) || fail "stats.json: bad output"
[ "$got" = "1 nvme0n1 read=1/0/0 write=64188/0/0 discard=231/0/0 flush=0/0/0 total=64420/0/0 64420 ${lat_total:-?}" ] ||
	fail "stats.json: got '$got'"
# percentiles as Open-CAS names them (its scripts read "99.000000th"), numbers, and
# there also for an empty group; the read's one latency is each of them
got=$(python3 - "$tmp/stats.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["statistics"][0]
p = d["write"]["latency"]["percentiles"]
print(sorted(p), all(isinstance(v, int) for v in p.values()),
      p["50.000000th"] <= p["90.000000th"] <= p["99.000000th"] <= p["99.990000th"],
      set(d["read"]["latency"]["percentiles"].values()) == {int(d["read"]["latency"]["max"])},
      d["flush"]["latency"]["percentiles"])
PY
) || fail "stats.json percentiles: bad output"
[ "$got" = "['50.000000th', '90.000000th', '99.000000th', '99.900000th', '99.990000th'] True True True {}" ] ||
	fail "stats.json percentiles: got '$got'"
view stats.txt --statistics -f table
same_as_golden stats.txt
view stats.csv --statistics -f csv
[ "$(wc -l <"$tmp/stats.csv")" -eq 6 ] || fail "stats.csv: $(wc -l <"$tmp/stats.csv") lines, want 6"
# two CPUs split the sids between them (split.h): the same bytes as one pass
for f in stats.json stats.txt stats.csv; do
	fmt=${f#stats.}
	[ "$fmt" = txt ] && fmt=table
	IOTRACE_PARSER_THREADS=1 "$bin" -P --statistics -f "$fmt" -p "$trace" >"$tmp/one.$f" 2>&1
	cmp -s "$tmp/$f" "$tmp/one.$f" || fail "$f: one pass and the split differ"
done

# --- histograms: every I/O counted once per group ---
for h in latency-histogram io-size-histogram queue-depth-histogram; do
	view "$h.json" "--$h"
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["histogram"][0]
print(" ".join("%s=%d" % (g, sum(int(r["count"]) for r in d[g]["range"]))
               for g in ("read", "write", "discard", "flush", "total")))
' "$tmp/$h.json") || fail "$h.json: bad output"
	[ "$got" = "read=1 write=64188 discard=231 flush=0 total=64420" ] || fail "$h.json: got '$got'"
	view "$h.csv" "--$h" -f csv
done
view latency-histogram.txt --latency-histogram -f table
same_as_golden latency-histogram.txt

# --- LBA histogram: buckets, subrange ---
view lba.json --lba-histogram --bucket-size 1048576
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["histogram"][0]
r = d["write"]["range"]
print(len(r) > 0, all(int(x["begin"]) % 1048576 == 0 and int(x["end"]) == int(x["begin"]) + 1048575 for x in r),
      sum(int(x["count"]) for x in r) >= 64188)
' "$tmp/lba.json") || fail "lba.json: bad output"
[ "$got" = "True True True" ] || fail "lba.json: got '$got'"
# --bucket-size 0 is the default, and --subrange-end 0 no end, as Open-CAS takes them
view lba_default.json --lba-histogram
view lba_zero.json --lba-histogram -b 0
cmp -s "$tmp/lba_default.json" "$tmp/lba_zero.json" || fail "lba: '-b 0' differs from the default"
view lba_end0.json --lba-histogram -s 0 -e 0
cmp -s "$tmp/lba_default.json" "$tmp/lba_end0.json" || fail "lba: '-s 0 -e 0' differs from the whole range"
view lba_sub.csv --lba-histogram -b 2048 -s 1652296 -e 1660000 -f csv
got=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(min(int(r["begin"]) for r in rows), max(int(r["end"]) for r in rows))
' "$tmp/lba_sub.csv") || fail "lba_sub.csv: bad output"
[ "$got" = "1650688 1660927" ] || fail "lba_sub.csv: got '$got'"

# --- fs-statistics: the I/Os with a named file, by directory ---
view fs.json --fs-statistics
got=$(python3 - "$tmp/fs.json" "$tmp/io.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
dirs = sum(int(x["statistics"]["total"]["count"]) for x in e if "directory" in x)
named = 0
for line in open(sys.argv[2]):
    r = json.loads(line)
    if "io" in r and "file" in r and r["file"]["path"]:
        named += 1
print(dirs == named, [x["directory"] for x in e if "directory" in x],
      sorted(x["fileExtension"] for x in e if "fileExtension" in x))
PY
) || fail "fs.json: bad output"
[ "$got" = "True ['/'] ['1593672775044931', 'dbtmp', 'log', 'sst']" ] || fail "fs.json: got '$got'"
# OCTF's desc and duration, and Open-CAS's write invalidation factor of each
# extension: the sectors its files' writes and discards cover, over the
# sectors they cover at least once, both counted from --io's records
got=$(python3 - "$tmp/fs.json" "$tmp/io.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
written, ranges = {}, {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if "io" in r and r.get("file", {}).get("path") and r["io"]["operation"] in ("Write", "Discard"):
        name = r["file"]["path"].rsplit("/", 1)[-1]
        ext = name.rsplit(".", 1)[1] if "." in name else None
        lba, n = int(r["io"]["lba"]), int(r["io"]["len"])
        written[ext] = written.get(ext, 0) + n
        if r["io"]["operation"] == "Write":
            ranges.setdefault(ext, []).append((lba, lba + n))
def cover(rs):
    total, end = 0, -1
    for a, b in sorted(rs):
        if b > end:
            total += b - max(a, end)
            end = b
    return total
ok = []
for x in e:
    if "fileExtension" not in x:
        continue
    st = x["statistics"]
    got = st["write"]["metrics"]["write invalidation factor"]["value"]
    want = written[x["fileExtension"]] / cover(ranges[x["fileExtension"]])
    ok.append(abs(got - want) < 1e-9 * want and st["desc"]["device"]["name"] == "nvme0n1"
              and int(st["duration"]) > 0)
print(len(ok), all(ok))
PY
) || fail "fs.json wif: bad output"
[ "$got" = "4 True" ] || fail "fs.json wif: got '$got'"
# OCTF's IoStatistics shape, as Open-CAS prints it: every group (flush too,
# empty here), each size and latency with its percentiles ({}: none kept)
got=$(python3 - "$tmp/fs.json" <<'PY'
import json, sys
for x in json.load(open(sys.argv[1]))["entries"]:
    st = x["statistics"]
    groups = [k for k in st if k not in ("desc", "duration")]
    pct = all(st[g][d]["percentiles"] == {} for g in groups for d in ("size", "latency"))
    print(groups, pct, st["flush"]["count"])
PY
) || fail "fs.json shape: bad output"
[ "$(echo "$got" | sort -u)" = "['read', 'write', 'discard', 'flush', 'total'] True 0" ] ||
	fail "fs.json shape: got '$got'"
view fs.txt --fs-statistics -f table
same_as_golden fs.txt

# --- access pattern: against the I/Os --io gives, judged here again ---
view pattern.json --access-pattern
got=$(python3 - "$tmp/pattern.json" "$tmp/io.json" <<'PY'
import collections, json, sys

p = json.load(open(sys.argv[1]))
want = collections.defaultdict(lambda: [0, 0, 0, 0, 0])  # (kind, key, op): count, bytes, seq, unaligned, runs
streams = {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    io = e.get("io")
    if not io or io["operation"] not in ("Read", "Write"):
        continue
    op = io["operation"].lower()
    lba, n = int(io["lba"]), io["len"]
    # the streams of pattern.h: 32 ends a device and operation, the least recent replaced
    # (distinct ends, least recent first)
    s = streams.setdefault((e["device"]["id"], op), collections.OrderedDict())
    seq = lba in s
    if seq:
        del s[lba]
    if lba + n in s:
        s.move_to_end(lba + n)
    else:
        if len(s) == 32:
            s.popitem(last=False)
        s[lba + n] = True
    keys = [("device", e["device"]["id"]), ("process", 0),
            ("cgroup", e.get("process", {}).get("cgroup", "0"))]
    # a file the trace names
    if e.get("file", {}).get("path"):
        keys.append(("file", e["file"]["path"]))
    for k in keys:
        w = want[k + (op,)]
        # a run begins at an I/O that is not sequential, and at the group's first
        w[4] += not seq or w[0] == 0
        w[0] += 1
        w[1] += n * 512
        w[2] += seq
        w[3] += lba % 8 != 0 or n % 8 != 0
got = {}
for kind, group, key in (("device", "devices", lambda g: g["device"]["id"]),
                         ("process", "processes", lambda g: g["pid"]),
                         ("cgroup", "cgroups", lambda g: g["cgroup"]),
                         ("file", "files", lambda g: g["file"]["path"])):
    for g in p[group]:
        assert set(g) - {"pid", "comm", "cgroup", "file", "device"} == {"block"}  # no calls in the sample
        for op in ("read", "write"):
            if op in g["block"]:
                c = g["block"][op]
                got[(kind, key(g), op)] = [int(c["count"]), int(c["bytes"]),
                                           int(c["sequential"]), int(c["unaligned"]),
                                           int(c["runs"])]
dev = [v for k, v in got.items() if k[0] == "device" and k[2] == "write"]
print(dev[0][0] if dev else "none", len(got) == len(want) and all(got.get(k) == v for k, v in want.items()))
PY
) || fail "pattern.json: bad output"
[ "$got" = "64188 True" ] || fail "pattern.json: got '$got'"

# --- hit ratio curve: against LRU caches of 1 MiB, 64 MiB and 1 GiB run
# here on the I/Os --io gives, as a cache runs: a discard frees slots ---
view hit_ratio.json --hit-ratio-curve
got=$(python3 - "$tmp/hit_ratio.json" "$tmp/io.json" <<'PY'
import collections, json, sys

# LRU caches of 4 KiB blocks as a cache has them: a discard frees its blocks' slots
sizes = (256, 16384, 262144)
caches = [collections.OrderedDict() for _ in sizes]
hits = {op: [0] * len(sizes) for op in ("read", "write")}
acc = {"read": 0, "write": 0}
for line in open(sys.argv[2]):
    io = json.loads(line).get("io")
    if not io or io["operation"] not in ("Read", "Write", "Discard") or not io["len"]:
        continue
    first, last = int(io["lba"]) // 8, (int(io["lba"]) + io["len"] - 1) // 8
    if io["operation"] == "Discard":
        for c in caches:
            for b in ([b for b in c if first <= b <= last] if last - first > len(c)
                      else range(first, last + 1)):
                c.pop(b, None)
        continue
    op = io["operation"].lower()
    for b in range(first, last + 1):
        acc[op] += 1
        for i, c in enumerate(caches):
            if b in c:
                hits[op][i] += 1
                c.move_to_end(b)
            else:
                if len(c) == sizes[i]:
                    c.popitem(last=False)
                c[b] = True
d = json.load(open(sys.argv[1]))["hitRatioCurve"][0]
got = {op: {int(c["cacheSize"]) // 4096: int(c["hits"]) for c in d[op]["curve"]} for op in ("read", "write")}
ok = all(got[op][s] == hits[op][i] for op in hits for i, s in enumerate(sizes)) and \
    all(int(d[op]["accesses"]) == acc[op] for op in acc)
print(acc["write"], hits["write"], ok)
PY
) || fail "hit_ratio.json: bad output"
[ "$got" = "2042456 [125, 137, 278] True" ] || fail "hit_ratio.json: got '$got'"

# --- devices ---
view devices.txt --devices -f table
same_as_golden devices.txt
view devices.json --devices
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
print(len(d), d[0]["name"], d[0]["size"], d[0]["model"], d[0]["ios"])
' "$tmp/devices.json") || fail "devices.json: bad output"
[ "$got" = "1 nvme0n1 732585168 INTEL SSDPED1K375GA 64420" ] || fail "devices.json: got '$got'"

# --- a time window: the records of the full --io whose timestamp is in [5 s, 10 s) ---
view io_win.json --io --from 5 --to 10
view stats_win.json --statistics --from 5 --to 10
view io_to.json --io --to 5.000000001
view io_from.json --io --from 5.000000001
got=$(python3 - "$tmp/io.json" "$tmp/io_win.json" "$tmp/stats_win.json" "$tmp/io_to.json" \
	"$tmp/io_from.json" <<'PY'
import json, sys
def records(path):
    return [json.loads(line) for line in open(path)]
ts = lambda r: int(r["header"]["timestamp"])
full, win = records(sys.argv[1]), records(sys.argv[2])
want = [r for r in full if 5 * 10**9 <= ts(r) < 10 * 10**9]
stats = json.load(open(sys.argv[3]))["statistics"][0]["total"]
ios = sum(1 for r in want if "io" in r)
# the two sides of 5.000000001 s make the whole trace, a record on neither or both
to, frm = records(sys.argv[4]), records(sys.argv[5])
print(win == want, len(win), int(stats["count"]) == ios, ios > 1000,
      len(to) + len(frm) == len(full), max(ts(r) for r in to) <= 5 * 10**9,
      min(ts(r) for r in frm) > 5 * 10**9)
PY
) || fail "window: bad output"
case "$got" in
"True "*" True True True True True") ;;
*) fail "window: got '$got'" ;;
esac

# a stream file missing: --to, which stops reading early, reads on to the
# end, where the files' count of events tells a lost file from a CPU that
# had no record, and says which
cp -r "$trace" "$tmp/nofile" && chmod -R u+w "$tmp/nofile" && rm "$tmp/nofile/octf.trace.22"
"$bin" -P --statistics --to 5 -p "$tmp/nofile" >/dev/null 2>"$tmp/nofile.err"
rc=$?
[ "$rc" = 3 ] && grep -q '^iotrace: warning: the trace files hold 175231 of the 193615 events its summary counts (of the 72 streams its queueCount gives, missing or empty: octf.trace.22); output is partial$' "$tmp/nofile.err" ||
	fail "--to, a stream missing: exit $rc, stderr '$(cat "$tmp/nofile.err")'"

# --- time series: every I/O in the interval of its submission ---
view series.json --time-series
view series_half.csv --time-series --interval 0.5 -f csv
view series.txt --time-series -f table
same_as_golden series.txt
got=$(python3 - "$tmp/series.json" "$tmp/series_half.csv" "$tmp/io.json" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))["timeSeries"][0]
slots = d["slots"]
starts = [int(x["start"]) for x in slots]
total = sum(int(x["total"]["count"]) for x in slots)
# per second from --io's own timestamps: the same counts and latency sums
per_s = {}
for line in open(sys.argv[3]):
    r = json.loads(line)
    if "io" in r:
        k = int(r["header"]["timestamp"]) // 10**9
        n, lat = per_s.get(k, (0, 0))
        per_s[k] = (n + 1, lat + int(r["io"]["latency"]))
same = all(int(x["total"]["count"]) == per_s.get(int(x["start"]) // 10**9, (0, 0))[0] and
           abs(x["total"].get("latency", {}).get("average", 0) * int(x["total"]["count"]) -
               per_s.get(int(x["start"]) // 10**9, (0, 0))[1]) < 1 for x in slots)
rows = list(csv.DictReader(open(sys.argv[2])))
half = sum(int(r["count"]) for r in rows if r["operation"] == "total")
# every second from the first I/O's (3.8 s after the first event) to the last's
span = list(range(min(per_s) * 10**9, (max(per_s) + 1) * 10**9, 10**9))
print(d["interval"], starts == span, len(span), total, same,
      len(rows) % 5 == 0, half, len({r["start"] for r in rows}))
PY
) || fail "series: bad output"
[ "$got" = "1000000000 True 26 64420 True True 64420 50" ] || fail "series: got '$got'"
# 25 s in 100 us intervals: more than the view keeps; one line, exit 2 (as a bad option value)
"$bin" -P --time-series --interval 0.0001 -p "$trace" >"$tmp/series_many" 2>"$tmp/series_many.err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/series_many.err")" = "iotrace: --interval 0.0001 s makes more than 131072 intervals for this trace; use a longer one" ] ||
	fail "series, too many intervals: exit $rc, stderr '$(cat "$tmp/series_many.err")'"
# a nanosecond, said as a user writes it, not as 1e-09
"$bin" -P --time-series --interval 0.000000001 -p "$trace" >/dev/null 2>"$tmp/series_ns.err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$tmp/series_ns.err")" = "iotrace: --interval 0.000000001 s makes more than 131072 intervals for this trace; use a longer one" ] ||
	fail "series, 1 ns intervals: exit $rc, stderr '$(cat "$tmp/series_ns.err")'"
# one second of it is the statistics of that second
"$bin" -P --statistics -p "$trace" --from 8 --to 9 -f csv | awk -F, '$3 == "total" { print $4 }' >"$tmp/s8"
got=$(python3 -c '
import json, sys
print([x for x in json.load(open(sys.argv[1]))["timeSeries"][0]["slots"]
       if x["start"] == "8000000000"][0]["total"]["count"])' "$tmp/series.json")
[ "$got" = "$(cat "$tmp/s8")" ] && [ "$got" -gt 1000 ] || fail "series: second 8 has $got I/Os, --statistics $(cat "$tmp/s8")"

# --- time series by completion: every completed I/O in the interval of
# its completion (timestamp + latency), with that interval's percentiles ---
view series_done.json --time-series --by completion --interval 0.5
got=$(python3 - "$tmp/series_done.json" "$tmp/io.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))["timeSeries"][0]
iv = int(d["interval"])
per = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if "io" in r and "latency" in r["io"]:
        lat = int(r["io"]["latency"])
        per.setdefault((int(r["header"]["timestamp"]) + lat) // iv, []).append(lat)
def rank(v, p):
    v = sorted(v)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]
ok = all(int(x["start"]) % iv == 0 for x in d["slots"])
for x in d["slots"]:
    v, t = per.get(int(x["start"]) // iv, []), x["total"]
    ok &= int(t["count"]) == len(v)
    if v:
        ok &= abs(t["latency"]["average"] * len(v) - sum(v)) < 1
        # within the distribution's bucket (dist.h: 0.8%)
        ok &= all(abs(int(t["latency"]["p%d" % p]) - rank(v, p)) <= rank(v, p) * 0.008 + 1
                  for p in (50, 99))
print(d["by"], ok, sum(int(x["total"]["count"]) for x in d["slots"]),
      sum(len(v) for v in per.values()), len(d["slots"]) >= 50)
PY
) || fail "series by completion: bad output"
[ "$got" = "completion True 64420 64420 True" ] || fail "series by completion: got '$got'"
got=$("$bin" -P --time-series --by completion -f table -p "$trace" | sed -n '2s/^ *\([a-z]* s\) .*/\1/p')
[ "$got" = "done s" ] || fail "series by completion, table: first column '$got'"

# --- paths: names known so far (OCTF) vs --final-names ---
# sid 2931 creates MANIFEST-000015 before the trace names it
got=$("$bin" -P --io -p "$trace" | grep -c '"sid":"2931".*"path":"",')
[ "$got" = 1 ] || fail "sid 2931 without --final-names: want an empty path"
got=$("$bin" -P --io --final-names -p "$trace" | grep -c '"sid":"2931".*"path":"/MANIFEST-000015"')
[ "$got" = 1 ] || fail "sid 2931 with --final-names: want /MANIFEST-000015"

# --- a stream cut in the middle of a record: every view says so, and reads the others ---
cp -r "$trace" "$tmp/cut" && chmod -R u+w "$tmp/cut"
size=$(stat -c %s "$tmp/cut/octf.trace.5")
truncate -s $((size / 2)) "$tmp/cut/octf.trace.5"
for args in "--io" "--statistics" "--latency-histogram -f table" "--fs-statistics -f csv"; do
	# shellcheck disable=SC2086
	"$bin" -P $args -p "$tmp/cut" >"$tmp/cut.out" 2>"$tmp/cut.err"
	rc=$?
	[ $rc -eq 3 ] || fail "cut, $args: exit $rc, want 3"
	grep -qE "^iotrace: trace damaged: $tmp/cut/octf.trace.5 at byte [0-9]+: truncated record; output is partial$" "$tmp/cut.err" ||
		fail "cut, $args: stderr '$(cat "$tmp/cut.err")'"
done
# the split reads the damaged stream in both halves: the same output, the damage once
IOTRACE_PARSER_THREADS=1 "$bin" -P --statistics -p "$tmp/cut" >"$tmp/cut1.out" 2>"$tmp/cut1.err"
"$bin" -P --statistics -p "$tmp/cut" >"$tmp/cut2.out" 2>"$tmp/cut2.err"
cmp -s "$tmp/cut1.out" "$tmp/cut2.out" || fail "cut: one pass and the split differ"
cmp -s "$tmp/cut1.err" "$tmp/cut2.err" || fail "cut: stderr '$(cat "$tmp/cut2.err")' != '$(cat "$tmp/cut1.err")'"

# a quiet stream (183 bytes, an idle CPU's) with its last byte cut: only
# its last record (a Delete, sid 5668) is lost; the other streams are read
# to their ends, so every I/O is there with the whole trace's latency
# (the joined views used to end at sid 5667: 1,871 records)
"$bin" -P --io -p "$trace" -f csv >"$tmp/whole.csv"
"$bin" -P --statistics -p "$trace" >"$tmp/whole.stats"
cp -r "$trace" "$tmp/last5" && chmod -R u+w "$tmp/last5"
truncate -s -1 "$tmp/last5/octf.trace.5"
"$bin" -P --io -p "$tmp/last5" -f csv >"$tmp/last5.csv" 2>"$tmp/last5.err"
rc=$?
[ $rc -eq 3 ] || fail "last5: exit $rc, want 3"
want="iotrace: trace damaged: $tmp/last5/octf.trace.5 at byte 141: truncated record; output is partial
iotrace: that file's events after the damage are lost; the other files are read to their ends"
[ "$(cat "$tmp/last5.err")" = "$want" ] || fail "last5: stderr '$(cat "$tmp/last5.err")'"
got=$(diff "$tmp/whole.csv" "$tmp/last5.csv" | grep -c '^[<>]')
[ "$got" = 1 ] && grep -q '^5668,.*,Delete,' "$tmp/whole.csv" && ! grep -q '^5668,' "$tmp/last5.csv" ||
	fail "last5: $got lines differ from the whole trace's --io, want the Delete at sid 5668"
"$bin" -P --statistics -p "$tmp/last5" >"$tmp/last5.stats" 2>/dev/null
cmp -s "$tmp/whole.stats" "$tmp/last5.stats" || fail "last5: --statistics differ from the whole trace's"
# the stream cut in half above: as if its file were missing
mkdir "$tmp/no5" && cp "$trace"/octf.* "$tmp/no5/" && chmod -R u+w "$tmp/no5" && rm "$tmp/no5/octf.trace.5"
"$bin" -P --io -p "$tmp/no5" -f csv >"$tmp/no5.csv" 2>/dev/null
"$bin" -P --io -p "$tmp/cut" -f csv >"$tmp/cut.csv" 2>/dev/null
cmp -s "$tmp/no5.csv" "$tmp/cut.csv" || fail "cut: --io differs from that of the trace without octf.trace.5"

# cut in the middle of a busy stream (sid 97177): the other streams are
# read to their ends. I/Os whose completion was in the lost half are said
# to have none; of those with a latency, one has another than in the
# whole trace: its id was reused for the same range (as with the file
# missing, where 7 are)
cp -r "$trace" "$tmp/cut22" && chmod -R u+w "$tmp/cut22"
size=$(stat -c %s "$tmp/cut22/octf.trace.22")
truncate -s $((size / 2 + 3)) "$tmp/cut22/octf.trace.22"
"$bin" -P --io -p "$tmp/cut22" -f csv >"$tmp/cut22.csv" 2>"$tmp/cut22.err"
want="iotrace: trace damaged: $tmp/cut22/octf.trace.22 at byte 407541: truncated record; output is partial
iotrace: that file's events after the damage are lost; the other files are read to their ends
iotrace: warning: 4295 I/Os have no completion in the trace (their completion may be among a damaged file's lost events); they are listed last, without latency
iotrace: warning: 3906 of them did end: their id was used again later in the trace
iotrace: warning: 1260 completions are of another LBA range than the I/O in flight under their id: that I/O lost its completion, the one completing its submission (among a damaged file's lost events?); neither is given a latency
iotrace: warning: 1197 completions match no I/O in flight (the trace began while they were in flight, or their submission was lost)"
[ "$(cat "$tmp/cut22.err")" = "$want" ] || fail "cut22: stderr '$(cat "$tmp/cut22.err")'"
# I/Os, those without latency, those with another latency than in the whole trace (by LBA, length, time)
got=$(awk -F, 'NR == FNR { if (FNR > 1 && $3 != "") lat[$3 "," $4 "," $2] = $7; next }
	FNR > 1 && $3 != "" { n++; if ($7 == "") none++; else if (lat[$3 "," $4 "," $2] != $7) other++ }
	END { print n + 0, none + 0, other + 0 }' "$tmp/whole.csv" "$tmp/cut22.csv")
[ "$got" = "61962 4295 1" ] || fail "cut22: I/Os, without latency, with another: got '$got'"

# a stream emptied and one removed: the count falls short and names them
cp -r "$trace" "$tmp/gone" && chmod -R u+w "$tmp/gone"
: >"$tmp/gone/octf.trace.22"
rm "$tmp/gone/octf.trace.5"
for args in "--io --raw" "--statistics"; do
	# shellcheck disable=SC2086
	"$bin" -P $args -p "$tmp/gone" >/dev/null 2>"$tmp/gone.err"
	rc=$?
	[ $rc -eq 3 ] || fail "gone, $args: exit $rc, want 3"
	grep -qx "iotrace: warning: the trace files hold [0-9]* of the 193615 events its summary counts (of the 72 streams its queueCount gives, missing or empty: octf.trace.5, octf.trace.22); output is partial" "$tmp/gone.err" ||
		fail "gone, $args: stderr '$(cat "$tmp/gone.err")'"
done

# bytes overwritten in the middle of the longest stream, near where the
# split's halves meet: the split says and writes what one pass does (the
# lower half meets the damage before where the upper one starts)
big=$(cd "$trace" && ls -S -- octf.trace.* | head -n 1)
cp -r "$trace" "$tmp/mid" && chmod -R u+w "$tmp/mid"
size=$(stat -c %s "$tmp/mid/$big")
printf '\377\377\377\377\377\377\377\377\377\377\377\377' |
	dd of="$tmp/mid/$big" bs=1 seek=$((size / 2)) conv=notrunc status=none
IOTRACE_PARSER_THREADS=1 "$bin" -P --statistics -p "$tmp/mid" >"$tmp/mid1.out" 2>"$tmp/mid1.err"
rc1=$?
"$bin" -P --statistics -p "$tmp/mid" >"$tmp/mid2.out" 2>"$tmp/mid2.err"
rc2=$?
[ $rc1 -eq 3 ] && [ $rc2 -eq 3 ] || fail "mid: exit $rc1 and $rc2, want 3"
cmp -s "$tmp/mid1.out" "$tmp/mid2.out" || fail "mid: one pass and the split differ"
cmp -s "$tmp/mid1.err" "$tmp/mid2.err" || fail "mid: stderr '$(cat "$tmp/mid2.err")' != '$(cat "$tmp/mid1.err")'"

if [ $fails -ne 0 ]; then
	echo "sample_views: $fails failure(s)" >&2
	exit 1
fi
echo "sample_views: ok"
