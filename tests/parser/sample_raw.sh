#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The raw view on the upstream Open-CAS sample trace (a 29 s RocksDB/YCSB
# trace on XFS on NVMe, 72 stream files, 193,615 events): exact event
# counts per type, sid order, JSON and CSV, and a damaged copy.
#
# usage: sample_raw.sh IOTRACE_BINARY DIR_WITH_octf-sample-trace.tar.xz
set -u

bin=$1
data=$2
tarball=$data/octf-sample-trace.tar.xz
fails=0

if [ ! -r "$tarball" ]; then
	echo "sample_raw: $tarball not found" >&2
	exit 1
fi

tmp=$(mktemp -d /tmp/iotrace-sample-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# the reader's own files, read in place as a trace of root's is by root (parser/stream.c)
tar --no-same-owner -xJf "$tarball" -C "$tmp" || exit 1
trace=$(dirname "$(find "$tmp" -name octf.summary | head -n 1)")
trace=$(cd "$trace" && pwd)

# Checks JSON Lines on stdin: every line an object with one event, sids
# strictly increasing; prints "<lines> <type>=<count> ..." sorted by type.
check_json() {
	python3 -c '
import json, sys
n = 0
last = 0
types = {}
for line in sys.stdin:
    ev = json.loads(line)
    sid = int(ev["header"]["sid"])
    if sid <= last:
        sys.exit("sid %d after %d on line %d" % (sid, last, n + 1))
    last = sid
    kinds = [k for k in ev if k != "header"]
    if len(kinds) != 1:
        sys.exit("line %d holds %r" % (n + 1, kinds))
    types[kinds[0]] = types.get(kinds[0], 0) + 1
    n += 1
print(n, " ".join("%s=%d" % kv for kv in sorted(types.items())))
'
}

want_types="deviceDescription=72 filesystemFileEvent=241 filesystemFileName=442 filesystemMeta=64020 io=64420 ioCompletion=64420"

# --- JSON ---
"$bin" --trace-parser --io --raw -p "$trace" >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "json: exit $rc: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "json: unexpected stderr: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/out.json")" -eq 193615 ] || fail "json: $(wc -l <"$tmp/out.json") lines, want 193615"
got=$(check_json <"$tmp/out.json") || fail "json: bad output"
[ "$got" = "193615 $want_types" ] || fail "json: got '$got'"
head -n 1 "$tmp/out.json" | grep -qxF '{"header":{"sid":"1","timestamp":"14193058940837"},"deviceDescription":{"id":"271581186","name":"nvme0n1","size":"732585168","model":"INTEL SSDPED1K375GA"}}' ||
	fail "json: first line is $(head -n 1 "$tmp/out.json")"

# --- CSV ---
"$bin" -P --io --raw -p "$trace" -f csv >"$tmp/out.csv" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "csv: exit $rc: $(cat "$tmp/err")"
got=$(python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
head, body = rows[0], rows[1:]
sid = head.index("header.sid")
last = 0
for r in body:
    if len(r) != len(head):
        sys.exit("row of %d cells, header has %d" % (len(r), len(head)))
    if int(r[sid]) <= last:
        sys.exit("sid %s after %d" % (r[sid], last))
    last = int(r[sid])
print(len(head), len(body), sum(1 for r in body if r[head.index("io.operation")]))
' <"$tmp/out.csv") || fail "csv: bad output"
[ "$got" = "91 193615 64420" ] || fail "csv: got '$got' (columns rows io-rows)"
[ "$(wc -l <"$tmp/out.csv")" -eq 193616 ] || fail "csv: $(wc -l <"$tmp/out.csv") lines, want 193616"

# --- a stream cut in the middle of a record ---
cp -r "$trace" "$tmp/cut" && chmod -R u+w "$tmp/cut"
stream=$tmp/cut/octf.trace.22
# where the record half-way through the file starts, how many records
# start there or later, and a cut 3 bytes into it
read -r off lost cut < <(python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
starts = []
i = 0
while i < len(b):
    starts.append(i)
    n = s = 0
    while True:
        c = b[i]; i += 1; n |= (c & 0x7f) << s; s += 7
        if c < 0x80: break
    i += n
k = len(starts) // 2
print(starts[k], len(starts) - k, starts[k] + 3)
' "$stream")
truncate -s "$cut" "$stream"
"$bin" -P --io --raw -p "$tmp/cut" >"$tmp/out.cut" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "cut: exit $rc, want 3"
want="iotrace: trace damaged: $stream at byte $off: truncated record; output is partial"
grep -qxF "$want" "$tmp/err" || fail "cut: stderr is '$(cat "$tmp/err")', want '$want'"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "cut: want exactly one line on stderr"
n=$(check_json <"$tmp/out.cut" | cut -d' ' -f1) || fail "cut: bad output"
[ "$n" = $((193615 - lost)) ] || fail "cut: $n events, want $((193615 - lost))"

if [ $fails -ne 0 ]; then
	echo "sample_raw: $fails failure(s)" >&2
	exit 1
fi
echo "sample_raw: ok"
