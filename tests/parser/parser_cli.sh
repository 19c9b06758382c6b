#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# iotrace -P on small traces made here (no root, no sample): zstd streams,
# empty traces, every kind of damage and its message, write errors, the
# joined views' warnings (I/Os never completed, completions without an
# I/O), and the command line.
#
# usage: parser_cli.sh IOTRACE_BINARY
set -u

bin=$1
fails=0

tmp=$(mktemp -d /tmp/iotrace-pcli-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/parser/lib.sh
. "$(dirname "$0")/lib.sh"

# the least a summary has: both tools always write these
summary_ok='{"state": "COMPLETE", "droppedEvents": "0"}'

# --- a good trace, raw and zstd ---
t=$tmp/good
mktrace "$t" octf.trace.0 1 1000 2
mktrace "$t" octf.trace.1 2 1000 2
echo "$summary_ok" >"$t/octf.summary"
run "raw" 0 '' -- -P --io --raw -p "$t"
[ "$(wc -l <"$tmp/out")" -eq 2000 ] || fail "raw: $(wc -l <"$tmp/out") lines"
[ "$(sed -n 2000p "$tmp/out")" = '{"header":{"sid":"2000","timestamp":"20000"}}' ] ||
	fail "raw: last line $(sed -n 2000p "$tmp/out")"
cp "$tmp/out" "$tmp/want"

# a path with a newline and a terminal escape in it: the message is one
# line all the same, the control characters shown as '?'
run "a path with control characters, one line" 1 "iotrace: cannot open trace '$tmp/no?such?[31m': No such file or directory" -- -P --io -p "$tmp/no"$'\n'"such"$'\033'"[31m"

z=$tmp/zstd
mkdir "$z"
zstd -q "$t/octf.trace.0" -o "$z/octf.trace.0.zst"
zstd -q "$t/octf.trace.1" -o "$z/octf.trace.1.zst"
echo "$summary_ok" >"$z/octf.summary"
run "zstd" 0 '' -- -P --io --raw -p "$z"
cmp -s "$tmp/out" "$tmp/want" || fail "zstd: output differs from the raw trace's"

# a zstd file whose last frame is cut: what was decoded, then exit 3
head -c 200 "$z/octf.trace.1.zst" >"$tmp/part" && mv "$tmp/part" "$z/octf.trace.1.zst"
"$bin" -P --io --raw -p "$z" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "cut zstd: exit $rc, want 3"
grep -qE "^iotrace: trace damaged: $z/octf.trace.1.zst at byte [0-9]+: (truncated|corrupted) record; output is partial$" "$tmp/err" ||
	fail "cut zstd: stderr '$(cat "$tmp/err")'"

# --- empty traces ---
e=$tmp/empty
mkdir "$e"
echo "$summary_ok" >"$e/octf.summary"
run "summary only" 0 '' -- -P --io --raw -p "$e"
[ -s "$tmp/out" ] && fail "summary only: printed '$(head -c 100 "$tmp/out")'"
run "summary only, csv" 0 '' -- -P --io --raw -p "$e" -f csv
[ "$(wc -l <"$tmp/out")" -eq 1 ] && head -n 1 "$tmp/out" | grep -q '^header.sid,header.timestamp,io.lba,' ||
	fail "summary only, csv: want the header row, got '$(head -c 100 "$tmp/out")'"

# --- damage: each stream stops at its own, the others go on ---
d=$tmp/damaged
mktrace "$d" octf.trace.0 1 100 3
mktrace "$d" octf.trace.1 2 100 3
mktrace "$d" octf.trace.2 3 100 3
# records 0-3 are 7 bytes, 4-15 8 bytes
# stream 0: cut 3 bytes into record 10 (at 76)
truncate -s 79 "$d/octf.trace.0"
# stream 1: a length that is no varint where record 4 was (at 28)
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); open(sys.argv[1], "wb").write(b[:28] + b"\xff" * 11 + b[28:])' "$d/octf.trace.1"
# stream 2: a record that is not an Event where record 2 was (at 14)
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); open(sys.argv[1], "wb").write(b[:14] + b"\x03\x0a\x05\x08" + b[14:])' "$d/octf.trace.2"
echo "$summary_ok" >"$d/octf.summary"
run "damaged" 3 "iotrace: trace damaged: $d/octf.trace.0 at byte 76: truncated record; output is partial
iotrace: trace damaged: $d/octf.trace.1 at byte 28: corrupted record; output is partial
iotrace: trace damaged: $d/octf.trace.2 at byte 14: record does not decode; output is partial" -- -P --io --raw -p "$d"
[ "$(wc -l <"$tmp/out")" -eq $((10 + 4 + 2)) ] || fail "damaged: $(wc -l <"$tmp/out") events, want 16"

# a stream of delta records in a version this parser does not know (a
# newer iotrace's): refused with its reason, the other streams read
n=$tmp/newer
mktrace "$n" octf.trace.0 1 10 1
printf '\x5e\x2a\x4d\x18\x14\0\0\0iotrace delta recs 9' >"$n/octf.trace.1.zst"
echo "$summary_ok" >"$n/octf.summary"
run "newer delta version" 3 "iotrace: trace damaged: $n/octf.trace.1.zst at byte 0: written by a newer iotrace (a later version of its compressed records); output is partial" -- -P --io --raw -p "$n"
[ "$(wc -l <"$tmp/out")" -eq 10 ] || fail "newer delta version: $(wc -l <"$tmp/out") events, want 10"

# a file named .zst that holds no zstd stream (here raw records): said so,
# not read as raw records damaged at byte 0; the other streams read
nz=$tmp/not-zstd
mktrace "$nz" octf.trace.0 1 10 1
mktrace "$nz" octf.trace.1.zst 11 5 1
echo "$summary_ok" >"$nz/octf.summary"
run "named .zst, not zstd" 3 "iotrace: trace damaged: $nz/octf.trace.1.zst at byte 0: not a zstd stream, though its name ends in .zst; output is partial" -- -P --io --raw -p "$nz"
[ "$(wc -l <"$tmp/out")" -eq 10 ] || fail "named .zst, not zstd: $(wc -l <"$tmp/out") events, want 10"
run "named .zst, not zstd, statistics" 3 "iotrace: trace damaged: $nz/octf.trace.1.zst at byte 0: not a zstd stream, though its name ends in .zst; output is partial
iotrace: that file's events after the damage are lost; the other files are read to their ends" -- -P --statistics -p "$nz"
# empty, it is an empty stream whatever its name
: >"$nz/octf.trace.1.zst"
run "named .zst, empty" 0 '' -- -P --io --raw -p "$nz"
[ "$(wc -l <"$tmp/out")" -eq 10 ] || fail "named .zst, empty: $(wc -l <"$tmp/out") events, want 10"

# a stream name that leads to no file: a symlink loop (on itself, or
# a -> b -> a) or a dangling symlink is that stream's damage, the others read
ln=$tmp/links
mktrace "$ln" octf.trace.0 1 10 1
ln -s octf.trace.1 "$ln/octf.trace.1"
ln -s octf.trace.3 "$ln/octf.trace.2"
ln -s octf.trace.2 "$ln/octf.trace.3"
ln -s gone "$ln/octf.trace.4"
echo "$summary_ok" >"$ln/octf.summary"
links_damaged="iotrace: trace damaged: $ln/octf.trace.1 at byte 0: Too many levels of symbolic links; output is partial
iotrace: trace damaged: $ln/octf.trace.2 at byte 0: Too many levels of symbolic links; output is partial
iotrace: trace damaged: $ln/octf.trace.3 at byte 0: Too many levels of symbolic links; output is partial
iotrace: trace damaged: $ln/octf.trace.4 at byte 0: No such file or directory; output is partial"
run "links to nothing" 3 "$links_damaged" -- -P --io --raw -p "$ln"
[ "$(wc -l <"$tmp/out")" -eq 10 ] || fail "links to nothing: $(wc -l <"$tmp/out") events, want 10"
run "links to nothing, statistics" 3 "$links_damaged
iotrace: those files' events after the damage are lost; the other files are read to their ends" -- -P --statistics -p "$ln"

# --- what the summary says: lost events make the output partial ---
l="$tmp/lossy"
mktrace "$l" octf.trace.0 1 5
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "17"}\n' >"$l/octf.summary"
run "lost events" 3 "iotrace: warning: 17 events were lost while tracing (summary droppedEvents); output is partial" -- -P --io --raw -p "$l"
[ "$(wc -l <"$tmp/out")" -eq 5 ] || fail "lost events: $(wc -l <"$tmp/out") lines, want 5"
# a count of one agrees with it
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "1"}\n' >"$l/octf.summary"
run "one event lost" 3 "iotrace: warning: 1 event was lost while tracing (summary droppedEvents); output is partial" -- -P --io --raw -p "$l"
# runs of its programs the kernel skipped: their events were never made
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "0", "tags": {"skippedProgramRuns": "2"}}\n' >"$l/octf.summary"
run "skipped program runs" 3 "iotrace: warning: the kernel skipped 2 runs of the tracer's programs while tracing (summary tags.skippedProgramRuns): the events of those that were for traced devices are missing; output may be partial" -- -P --io --raw -p "$l"
# counts of one agree with it
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "0", "tags": {"skippedProgramRuns": "1", "unresolvedFileEvents": "1", "uringCallsNotFollowed": "1", "uringVfsRecordsMissing": "1"}}\n' >"$l/octf.summary"
run "counts of one" 3 "iotrace: 1 unlink or rename call was not resolved to its file while traced: its Delete or Move event is not in this trace
iotrace: 1 rename, unlink or creating open made through io_uring while traced was not followed: any Move, Delete or Create of it is not in this trace
iotrace: 1 io_uring request on traced files has no record in this trace: its completion found the ring's completion queue full, or more were in flight than the tracer holds
iotrace: warning: the kernel skipped 1 run of the tracer's programs while tracing (summary tags.skippedProgramRuns): its events, if it was for a traced device, are missing; output may be partial
iotrace: this trace has no VFS records (Open-CAS's traces have none)" -- -P --vfs -p "$l"
# a tracer a full disk stopped before it wrote one I/O: the empty view says why
printf '{"tracePath": "kernel/x", "state": "ERROR", "droppedEvents": "0", "tags": {"stopReason": "disk full"}}\n' >"$l/octf.summary"
run "stopped in error, no I/O" 0 "iotrace: this trace holds no I/O, file event or call: its tracer stopped in error (disk full) before it wrote one" -- -P --statistics -p "$l"
run "stopped in error, no I/O, io" 0 "iotrace: this trace holds no I/O, file event or call: its tracer stopped in error (disk full) before it wrote one" -- -P --io -p "$l"
# a RUNNING summary with no tracer alive: the tracer died
printf '{"tracePath": "kernel/x", "state": "RUNNING", "droppedEvents": "0"}\n' >"$l/octf.summary"
IOTRACE_LOCK_FILE="$tmp/nolock" run "tracer died" 3 "iotrace: warning: the tracer of this trace died before finishing; its last second of events may be missing" -- -P --io --raw -p "$l"

# the events the summary counts (tracedEvents) against those the files hold
c=$tmp/counted
mkdir "$c"
cp "$t/octf.trace.0" "$t/octf.trace.1" "$c/"
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "tracedEvents": "2000", "droppedEvents": "0"}\n' >"$c/octf.summary"
run "counted" 0 '' -- -P --io --raw -p "$c"
run "counted, statistics" 0 '' -- -P --statistics -p "$c"
mv "$c/octf.trace.1" "$tmp/stream1"
for v in "--io --raw" --io --statistics; do
	run "a stream missing, $v" 3 "iotrace: warning: the trace files hold 1000 of the 2000 events its summary counts (a file is missing or cut short); output is partial" -- -P $v -p "$c"
done
# with the summary's queueCount, the streams missing or empty are named
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "2000", "queueCount": "3"}\n' >"$c/octf.summary"
: >"$c/octf.trace.2"
for v in "--io --raw" --io --statistics; do
	run "a stream missing, one empty, $v" 3 "iotrace: warning: the trace files hold 1000 of the 2000 events its summary counts (of the 3 streams its queueCount gives, missing or empty: octf.trace.1, octf.trace.2); output is partial" -- -P $v -p "$c"
done
# past 8 names, the rest are counted
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "2000", "queueCount": "20"}\n' >"$c/octf.summary"
run "streams missing, many" 3 "iotrace: warning: the trace files hold 1000 of the 2000 events its summary counts (of the 20 streams its queueCount gives, missing or empty: octf.trace.1, octf.trace.2, octf.trace.3, octf.trace.4, octf.trace.5, octf.trace.6, octf.trace.7, octf.trace.8 and 11 more); output is partial" -- -P --io --raw -p "$c"
# a zstd trace's missing stream is named as its others are
cz=$tmp/counted-zstd
mkdir "$cz"
zstd -q "$t/octf.trace.0" -o "$cz/octf.trace.0.zst"
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "2000", "queueCount": "2"}\n' >"$cz/octf.summary"
run "a zstd stream missing" 3 "iotrace: warning: the trace files hold 1000 of the 2000 events its summary counts (of the 2 streams its queueCount gives, missing or empty: octf.trace.1.zst); output is partial" -- -P --io --raw -p "$cz"
# a stream that holds no record is empty as an empty file is: a zstd
# frame of nothing, the delta stream header alone
: | zstd -q -c >"$cz/octf.trace.1.zst"
for v in "--io --raw" --statistics; do
	run "an empty zstd frame, $v" 3 "iotrace: warning: the trace files hold 1000 of the 2000 events its summary counts (of the 2 streams its queueCount gives, missing or empty: octf.trace.1.zst); output is partial" -- -P $v -p "$cz"
done
printf '\x5e\x2a\x4d\x18\x14\0\0\0iotrace delta recs 2' >"$cz/octf.trace.1.zst"
run "a delta stream header alone" 3 "iotrace: warning: the trace files hold 1000 of the 2000 events its summary counts (of the 2 streams its queueCount gives, missing or empty: octf.trace.1.zst); output is partial" -- -P --io --raw -p "$cz"
rm "$cz/octf.trace.1.zst"
# no event missing: a CPU without records, no file or an empty one, is no fault
zstd -q "$t/octf.trace.1" -o "$cz/octf.trace.2.zst"
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "2000", "queueCount": "3"}\n' >"$cz/octf.summary"
run "a zstd stream absent, none missing" 0 '' -- -P --io --raw -p "$cz"
printf '{"state": "COMPLETE", "tracedEvents": "2000", "droppedEvents": "0"}\n' >"$c/octf.summary"
rm "$c/octf.trace.2"
cp "$t/octf.trace.0" "$c/octf.trace.1"
cp "$tmp/stream1" "$c/octf.trace.2"
run "a stream twice" 3 "iotrace: warning: the trace files hold 3000 events, more than the 2000 its summary counts (a file is there twice?); output may count events twice
iotrace: warning: 1000 events have a sid another event has (damaged records, or a stream file there twice); output is partial" -- -P --io --raw -p "$c"
rm "$c/octf.trace.1"
# a bit flipped in a sid, to one another record has: no framing check sees
# it, nor the summary's count (here: the completion of sid 4 says 3)
fl=$tmp/flipped
mkdir "$fl"
echo "$summary_ok" >"$fl/octf.summary"
printf 'io 1 1000 10 0 8\nio 3 3000 30 8 8\n' | mkios "$fl/octf.trace.0"
printf 'done 2 2000 10\ndone 3 4000 30\n' | mkios "$fl/octf.trace.1"
# and compressed, where a helper thread fills half the window
flz=$tmp/flipped-zstd
mkdir "$flz"
cp "$fl/octf.summary" "$flz/"
zstd -q "$fl/octf.trace.0" -o "$flz/octf.trace.0.zst"
zstd -q "$fl/octf.trace.1" -o "$flz/octf.trace.1.zst"
for v in "--io --raw" --io --statistics; do
	run "sid given twice, $v" 3 "iotrace: warning: 1 event has a sid another event has (damaged records, or a stream file there twice); output is partial" -- -P $v -p "$fl"
	run "sid given twice, zstd, $v" 3 "iotrace: warning: 1 event has a sid another event has (damaged records, or a stream file there twice); output is partial" -- -P $v -p "$flz"
done
# a summary that cannot be read: what it would have told is not known
# and why, in one line
max=18446744073709551615
for bad in '{not json|byte 1: not valid JSON' \
	'{"droppedEvents": "-5"}|byte 18: '"'droppedEvents'"' is not a count from 0 to '$max': "-5"' \
	'{"droppedEvents": "99999999999999999999999"}|byte 18: '"'droppedEvents'"' is not a count from 0 to '$max': "99999999999999999999999"' \
	'{"tracedEvents": "12abc"}|byte 17: '"'tracedEvents'"' is not a count from 0 to '$max': "12abc"' \
	'{"state": "BOGUS", "droppedEvents": "0"}|byte 10: '"'state'"' is not one of RUNNING, COMPLETE, ERROR, INITIALIZING, NOT_STARTED, UNDEFINED: "BOGUS"' \
	'{"state": "COMPLETE", "droppedEvents": "0", "version": 99}|byte 55: '"'version'"' is 99, a later summary version than this iotrace reads (up to 1)' \
	'{"state": "COMPLETE", "droppedEvents": "0", "queueCount": "1000000000000"}|byte 58: '"'queueCount'"' is not a count from 0 to 65536: "1000000000000"' \
	'{"state": "COMPLETE", "tracedEvents": "2000"}|no '"'droppedEvents'"' field: not a trace summary' \
	'{}|no '"'state'"' field: not a trace summary'; do
	printf '%s\n' "${bad%%|*}" >"$c/octf.summary"
	run "summary '${bad%%|*}'" 3 "iotrace: warning: cannot read the trace's octf.summary (${bad#*|}): lost or missing events cannot be ruled out; output may be partial" -- -P --io --raw -p "$c"
done
rm "$c/octf.summary"
run "no summary" 3 "iotrace: warning: cannot read the trace's octf.summary (No such file or directory): lost or missing events cannot be ruled out; output may be partial" -- -P --statistics -p "$c"

# -M -L's warning on summaries that cannot be read agrees with its counts
rp=$tmp/repo
mkdir -p "$rp/kernel/a" "$rp/kernel/b"
echo '{"state": 1, "droppedEvents": "0"}' >"$rp/kernel/a/octf.summary"
echo "$summary_ok" >"$rp/kernel/b/octf.summary"
# mrun: run, on the repository $rp
mrun() { IOTRACE_TRACE_DIR="$rp" IOTRACE_CONFIG="$tmp/no.conf" IOTRACE_LOCK_FILE="$tmp/nolock" run "$@"; }
mrun "-M -L, one of two undefined" 0 "iotrace: warning: 1 of 2 traces is listed UNDEFINED: its summary cannot be read ('kernel/a': byte 10: 'state' is not a string)" -- -M -L
echo '{"state": 2, "droppedEvents": "0"}' >"$rp/kernel/b/octf.summary"
mrun "-M -L, two of two undefined" 0 "iotrace: warning: 2 of 2 traces are listed UNDEFINED: their summaries cannot be read ('kernel/a': byte 10: 'state' is not a string)" -- -M -L
rm -r "$rp/kernel/b"
mrun "-M -L, one of one undefined" 0 "iotrace: warning: 1 of 1 trace is listed UNDEFINED: its summary cannot be read ('kernel/a': byte 10: 'state' is not a string)" -- -M -L

# --- output that cannot be written ---
if [ -w /dev/full ]; then
	"$bin" -P --io --raw -p "$t" >/dev/full 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "/dev/full: exit $rc, want 1"
	[ "$(cat "$tmp/err")" = "iotrace: cannot write output: No space left on device" ] ||
		fail "/dev/full: stderr '$(cat "$tmp/err")'"
	# help and version: what stdio still held at the exit
	for args in -H -V "-P -H" "-S -H" "-M -H" "-C -H"; do
		# shellcheck disable=SC2086 # the words are the arguments
		"$bin" $args >/dev/full 2>"$tmp/err"
		rc=$?
		[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "iotrace: cannot write output: No space left on device" ] ||
			fail "$args >/dev/full: exit $rc, stderr '$(cat "$tmp/err")'"
	done
fi
big=$tmp/big
mktrace "$big" octf.trace.0 1 200000
# a reader that closed the pipe (| head) got what it wanted: quiet, exit 0
"$bin" -P --io --raw -p "$big" 2>"$tmp/err" | head -c 10 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "closed pipe: exit $rc, want 0"
[ -s "$tmp/err" ] && fail "closed pipe: stderr '$(cat "$tmp/err")'"

# --- the joined views ---
# header-only events make no I/O: nothing to print, no complaint
run "io, no I/O" 0 '' -- -P --io -p "$t"
[ -s "$tmp/out" ] && fail "io, no I/O: printed '$(head -c 100 "$tmp/out")'"
run "statistics, no I/O" 0 '' -- -P --statistics -p "$t" -f table
[ "$(cat "$tmp/out")" = "no I/O in this trace" ] || fail "statistics, no I/O: '$(cat "$tmp/out")'"

# three I/Os: the first never completes; a completion without an I/O
j=$tmp/joined
mkdir "$j"
mkios "$j/octf.trace.0" <<'SPEC'
io 1 1000 10 0 8
io 3 1100 11 8 8
done 5 1300 11
SPEC
mkios "$j/octf.trace.1" <<'SPEC'
io 2 1050 12 16 8
done 4 1200 12
done 6 1400 99
SPEC
echo "$summary_ok" >"$j/octf.summary"
warnings="iotrace: warning: 1 I/O never completed (its completion is not in the trace); it is listed last, without latency
iotrace: warning: 1 completion matches no I/O in flight (the trace began while it was in flight, or its submission was lost)"
# the views that list no I/O count them
counted=${warnings/it is listed last/it counts as not completed}
# with a filter, the counts are the whole trace's, and the I/Os kept said apart
filtered="iotrace: warning: 1 I/O in the whole trace never completed (its completion is not in the trace); it is listed last, without latency, if the filters keep it
iotrace: warning: 1 completion in the whole trace matches no I/O in flight (the trace began while it was in flight, or its submission was lost)"
filtered_counted=${filtered/it is listed last/it counts as not completed}
run "never completed" 0 "$warnings" -- -P --io -p "$j" -f csv
got=$(cut -d, -f1,3,6,7,8 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,io.lba,io.error,io.latency,io.qd 2,16,false,150,2 3,8,false,200,3 1,0,true,,1 " ] ||
	fail "never completed: got '$got'"
zj=$tmp/joined-zstd
mkdir "$zj"
zstd -q "$j/octf.trace.0" -o "$zj/octf.trace.0.zst"
zstd -q "$j/octf.trace.1" -o "$zj/octf.trace.1.zst"
echo "$summary_ok" >"$zj/octf.summary"
cp "$tmp/out" "$tmp/want"
run "never completed, zstd" 0 "$warnings" -- -P --io -p "$zj" -f csv
cmp -s "$tmp/out" "$tmp/want" || fail "never completed, zstd: output differs from the raw trace's"
run "never completed, statistics" 0 "$counted" -- -P --statistics -p "$j"
grep -q '"notCompleted": "1"' "$tmp/out" || fail "never completed, statistics: no notCompleted 1"
# an id submitted again while in flight: the first I/O did end, its
# completion is what the trace lacks; the last one is still in flight
r=$tmp/reused
mkdir "$r"
mkios "$r/octf.trace.0" <<'SPEC'
io 1 1000 10 0 8
io 2 1100 10 8 8
done 3 1200 10
io 4 1300 10 16 8
SPEC
echo "$summary_ok" >"$r/octf.summary"
run "never completed, id reused" 0 "iotrace: warning: 2 I/Os never completed (their completion is not in the trace); they are listed last, without latency
iotrace: warning: 1 of them did end: its id was used again later in the trace" -- -P --io -p "$r" -f csv
got=$(cut -d, -f1,3,6,7 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,io.lba,io.error,io.latency 2,8,false,100 1,0,true, 4,16,true, " ] ||
	fail "never completed, id reused: got '$got'"
# the same, its tracer dead (a RUNNING summary, no tracer alive): the
# I/Os without completion may have it among the events it never wrote
printf '{"tracePath": "kernel/x", "state": "RUNNING", "droppedEvents": "0"}\n' >"$r/octf.summary"
IOTRACE_LOCK_FILE="$tmp/nolock" run "never completed, tracer died" 3 "iotrace: warning: the tracer of this trace died before finishing; its last second of events may be missing
iotrace: warning: 2 I/Os have no completion in the trace, which ends where its tracer died (their completion may be among the events it had not written); they are listed last, without latency
iotrace: warning: 1 of them did end: its id was used again later in the trace" -- -P --io -p "$r" -f csv

# a stream file missing: the completion of I/O 10 and the submission of
# the next I/O given id 10 (LBA 64) are gone; that one's completion,
# naming its LBA range, is not I/O 10's
fc=$tmp/foreign
mkdir "$fc"
mkios "$fc/octf.trace.0" <<'SPEC'
io 1 1000 10 0 8
io 2 1100 11 8 8
doneat 4 900000 10 64 8
doneat 5 900100 11 8 8
SPEC
echo "$summary_ok" >"$fc/octf.summary"
run "foreign completion" 0 "iotrace: warning: 1 I/O never completed (its completion is not in the trace); it is listed last, without latency
iotrace: warning: 1 of them did end: its id was used again later in the trace
iotrace: warning: 1 completion is of another LBA range than the I/O in flight under its id: that I/O lost its completion, the one completing its submission (a stream file missing or damaged?); neither is given a latency" -- -P --io -p "$fc" -f csv
got=$(cut -d, -f1,3,6,7 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,io.lba,io.error,io.latency 2,8,false,899000 1,0,true, " ] ||
	fail "foreign completion: got '$got'"
# the same where the tracer lost events (its buffers full): said so
sed 's/"droppedEvents": *"0"/"droppedEvents": "7"/' "$fc/octf.summary" >"$tmp/summary" &&
	mv "$tmp/summary" "$fc/octf.summary"
grep -q '"droppedEvents": "7"' "$fc/octf.summary" || fail "foreign completion, dropped: summary not edited"
run_match "foreign completion, dropped" 3 'completing its submission \(events were lost while tracing\); neither' -- -P --io -p "$fc" -f csv

# a completion lost with a damaged stream's tail (sid 4), and its id used
# again by an I/O that was lost too (sid 5): the later completion (sid 6)
# is that I/O's. As with a stream file missing, it names another range
# than I/O 1's, so I/O 1 is not given its latency; the other stream is
# read to its end (I/O 7)
dj=$tmp/damaged-join
mkdir "$dj"
mkios "$dj/octf.trace.0" <<'SPEC'
io 1 1000 10 0 8
doneat 6 5000 10 64 8
io 7 6000 12 16 8
doneat 8 6200 12 16 8
SPEC
printf 'io 2 1100 11 8 8\ndoneat 3 1200 11 8 8\n' >"$tmp/spec"
mkios "$dj/octf.trace.1" <"$tmp/spec"
# the third record starts where the first two end; it is cut short
off=$(stat -c %s "$dj/octf.trace.1")
printf 'doneat 4 1300 10 0 8\nio 5 1400 10 64 8\n' >>"$tmp/spec"
mkios "$dj/octf.trace.1" <"$tmp/spec"
truncate -s "$((off + 5))" "$dj/octf.trace.1"
echo "$summary_ok" >"$dj/octf.summary"
run "damaged, join" 3 "iotrace: trace damaged: $dj/octf.trace.1 at byte $off: truncated record; output is partial
iotrace: that file's events after the damage are lost; the other files are read to their ends
iotrace: warning: 1 I/O has no completion in the trace (its completion may be among a damaged file's lost events); it is listed last, without latency
iotrace: warning: 1 of them did end: its id was used again later in the trace
iotrace: warning: 1 completion is of another LBA range than the I/O in flight under its id: that I/O lost its completion, the one completing its submission (among a damaged file's lost events?); neither is given a latency" -- -P --io -p "$dj" -f csv
got=$(cut -d, -f1,3,7 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,io.lba,io.latency 2,8,100 7,16,200 1,0, " ] || fail "damaged, join: got '$got'"

# a trace its size limit stopped: stream 1's records from sid 3 on were
# refused (I/O 1's completion, then an I/O given its id), stream 0's
# were written; the summary says from where the files lack events
sl=$tmp/size-limit
mkdir "$sl"
mkios "$sl/octf.trace.0" <<'SPEC'
io 1 1000 10 0 8
done 5 5000 10
SPEC
mkios "$sl/octf.trace.1" <<'SPEC'
io 2 1100 11 8 8
SPEC
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "3", "tags": {"stopReason": "size limit", "incompleteFromSid": "3"}}\n' >"$sl/octf.summary"
run "size limit" 0 "iotrace: the events after sid 2 are left out (the files hold 3): not every CPU's file holds them, as the tracer stopped (size limit)
iotrace: warning: 2 I/Os have no completion up to sid 2, where the trace is cut (their completion may be among the events left out); they are listed last, without latency" -- -P --io -p "$sl" -f csv
got=$(cut -d, -f1,3,7 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,io.lba,io.latency 1,0, 2,8, " ] || fail "size limit: got '$got'"
run "size limit, raw" 0 '' -- -P --io --raw -p "$sl"
# stopped at one sid for all files (the collector merges the last rounds):
# nothing to cut, and the I/O in flight had its completion after the stop
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "3", "tags": {"stopReason": "size limit", "incompleteFromSid": "6"}}\n' >"$sl/octf.summary"
run "size limit, nothing cut" 0 "iotrace: warning: 1 I/O has no completion in the trace: the tracer stopped writing (size limit) while it was in flight; it is listed last, without latency" -- -P --io -p "$sl" -f csv
got=$(cut -d, -f1,3,7 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,io.lba,io.latency 1,0,4000 2,8, " ] || fail "size limit, nothing cut: got '$got'"
# a summary that gives no reason: none is printed, not "()"
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "3", "tags": {"incompleteFromSid": "3"}}\n' >"$sl/octf.summary"
run "cut, no stop reason" 0 "iotrace: the events after sid 2 are left out (the files hold 3): not every CPU's file holds them, as the tracer stopped
iotrace: warning: 2 I/Os have no completion up to sid 2, where the trace is cut (their completion may be among the events left out); they are listed last, without latency" -- -P --io -p "$sl" -f csv
# the same files in a trace still recorded: its summary says below which
# sid they hold every event (completeBelowSid), and the parser reads up
# to there; a tracer holds the lock, naming this trace
printf '{"state": "RUNNING", "droppedEvents": "0", "tracedEvents": "2", "tags": {"completeBelowSid": "3"}}\n' >"$sl/octf.summary"
printf '%d %s\n' $$ "$sl" >"$tmp/live.lock"
flock -o "$tmp/live.lock" sleep 30 &
holder=$!
for _ in $(seq 50); do flock -n "$tmp/live.lock" true || break; sleep 0.1; done
IOTRACE_LOCK_FILE="$tmp/live.lock" run "still recorded" 0 "iotrace: the events after sid 2 are left out: this trace is still being recorded, and not every CPU's file holds them yet
iotrace: warning: 2 I/Os have no completion up to sid 2, where the trace is cut (their completion may be among the events left out); they are listed last, without latency" -- -P --io -p "$sl" -f csv
got=$(cut -d, -f1,3,7 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,io.lba,io.latency 1,0, 2,8, " ] || fail "still recorded: got '$got'"
# a reader who may not open the lock (the tracer's is root's; this trace
# made readable to others) is told by the summary's age: written in the
# last 30 s, live; older, the tracer died
other=()
if [ "$(id -u)" = 0 ]; then
	other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	chmod o+rx "$tmp" "$sl"
	chmod o+r "$sl"/*
fi
chmod 000 "$tmp/live.lock"
IOTRACE_LOCK_FILE="$tmp/live.lock" "${other[@]}" "$bin" -P --statistics -p "$sl" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -qF "this trace is still being recorded" "$tmp/err" ||
	fail "lock not readable, summary fresh: exit $rc, stderr '$(cat "$tmp/err")'"
touch -d '-1 min' "$sl/octf.summary"
IOTRACE_LOCK_FILE="$tmp/live.lock" "${other[@]}" "$bin" -P --statistics -p "$sl" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -qF "the tracer of this trace died before finishing" "$tmp/err" ||
	fail "lock not readable, summary a minute old: exit $rc, stderr '$(cat "$tmp/err")'"
chmod 644 "$tmp/live.lock"
touch "$sl/octf.summary"
# a file read while the tracer's write to it was under way ends inside a
# record: no damage while the trace is recorded (its events are past the
# mark), damage once no tracer will finish the write
cp "$sl/octf.trace.1" "$tmp/whole.1"
head -c 3 "$sl/octf.trace.0" >>"$sl/octf.trace.1"
IOTRACE_LOCK_FILE="$tmp/live.lock" run "still recorded, a write under way" 0 "iotrace: the events after sid 2 are left out: this trace is still being recorded, and not every CPU's file holds them yet
iotrace: warning: 2 I/Os have no completion up to sid 2, where the trace is cut (their completion may be among the events left out); they are listed last, without latency" -- -P --io -p "$sl" -f csv
IOTRACE_LOCK_FILE="$tmp/live.lock" run "still recorded, a write under way, raw" 0 '' -- -P --io --raw -p "$sl"
# no mark yet (its first second): read to the ends, with the reason why
# an I/O may lack its completion
printf '{"state": "RUNNING", "droppedEvents": "0", "tracedEvents": "2"}\n' >"$sl/octf.summary"
IOTRACE_LOCK_FILE="$tmp/live.lock" run "still recorded, no mark yet" 0 "iotrace: this trace is still being recorded, and its summary does not say up to where every CPU's file holds every event: read to their ends, the files may hold an I/O without its completion, or a completion without its I/O
iotrace: warning: 1 I/O never completed (its completion is not in the trace); it is listed last, without latency" -- -P --io -p "$sl" -f csv
printf '{"state": "RUNNING", "droppedEvents": "0", "tracedEvents": "2", "tags": {"completeBelowSid": "3"}}\n' >"$sl/octf.summary"
pkill -P "$holder" sleep
wait "$holder" 2>/dev/null
IOTRACE_LOCK_FILE="$tmp/live.lock" run "a write under way, tracer died" 3 "iotrace: warning: the tracer of this trace died before finishing; its last second of events may be missing
iotrace: trace damaged: $sl/octf.trace.1 at byte 23: truncated record; output is partial" -- -P --io --raw -p "$sl"
cp "$tmp/whole.1" "$sl/octf.trace.1"
# its tracer gone, the summary says where its files stopped holding every event
IOTRACE_LOCK_FILE="$tmp/live.lock" run "still recorded, tracer died" 3 "iotrace: warning: the tracer of this trace died before finishing; its last second of events may be missing
iotrace: the events after sid 2 are left out: not every CPU's file holds them, as the tracer died
iotrace: warning: 2 I/Os have no completion up to sid 2, where the trace is cut (their completion may be among the events left out); they are listed last, without latency" -- -P --io -p "$sl" -f csv
# not a RUNNING trace: a mark is not read (the tracer clears it at the end)
printf '{"state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "3", "tags": {"completeBelowSid": "3"}}\n' >"$sl/octf.summary"
run "completeBelowSid of a finished trace" 0 "iotrace: warning: 1 I/O never completed (its completion is not in the trace); it is listed last, without latency" -- -P --io -p "$sl" -f csv

# damage and lost events make every view's output partial
run "damaged, statistics" 3 "iotrace: trace damaged: $d/octf.trace.0 at byte 76: truncated record; output is partial
iotrace: trace damaged: $d/octf.trace.1 at byte 28: corrupted record; output is partial
iotrace: trace damaged: $d/octf.trace.2 at byte 14: record does not decode; output is partial
iotrace: those files' events after the damage are lost; the other files are read to their ends" -- -P --statistics -p "$d"
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "17"}\n' >"$l/octf.summary"
run "lost events, histogram" 3 "iotrace: warning: 17 events were lost while tracing (summary droppedEvents); output is partial" -- -P --latency-histogram -p "$l" -f table
if [ -w /dev/full ]; then
	"$bin" -P --io -p "$j" >/dev/full 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "io to /dev/full: exit $rc, want 1"
	grep -q "^iotrace: cannot write output: No space left on device$" "$tmp/err" ||
		fail "io to /dev/full: stderr '$(cat "$tmp/err")'"
fi
# a long --io output into a closed pipe stops early and quietly
bigio=$tmp/bigio
mkdir "$bigio"
python3 -c '
for i in range(100000):
    print("io %d %d %d %d 8" % (2 * i + 1, 1000 * i, i + 1, 8 * i))
    print("done %d %d %d" % (2 * i + 2, 1000 * i + 500, i + 1))
' | mkios "$bigio/octf.trace.0"
"$bin" -P --io -p "$bigio" 2>"$tmp/err" | head -c 10 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "io, closed pipe: exit $rc, want 0"
[ -s "$tmp/err" ] && fail "io, closed pipe: stderr '$(cat "$tmp/err")'"
# the same with head reading lines, as people use it
"$bin" -P --io -f csv -p "$bigio" 2>"$tmp/err" | head -n 1 >"$tmp/out"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "csv, closed pipe: exit $rc, want 0"
[ -s "$tmp/err" ] && fail "csv, closed pipe: stderr '$(cat "$tmp/err")'"
head -n 1 "$tmp/out" | grep -q '^header.sid,header.timestamp,' ||
	fail "csv, closed pipe: first line '$(cat "$tmp/out")'"

# --- command line ---
run "format" 2 "iotrace: invalid value 'xml' for --format: expected json, csv or table" -- -P --io --raw -f xml -p "$t"
run "two views" 2 "iotrace: --io and --statistics are two views; choose one (try 'iotrace -P -H')" -- -P --io --statistics -p "$t"
run "raw, not io" 2 "iotrace: --raw goes with --io only" -- -P --raw --statistics -p "$t"
run "raw table" 2 "iotrace: --raw prints json or csv, not table" -- -P --io --raw -f table -p "$t"
run "bucket without lba" 2 "iotrace: --bucket-size goes with --lba-histogram only" -- -P --statistics --bucket-size 8 -p "$t"
run "bucket -1" 2 "iotrace: invalid value '-1' for --bucket-size: expected a number from 0 to 9223372036854775807" -- -P --lba-histogram -b -1 -p "$t"
run "subrange" 2 "iotrace: --subrange-start 10 is past --subrange-end 5" -- -P -B -s 10 -e 5 -p "$t"
run "no view" 2 "iotrace: missing the view to print: --io, --statistics, ... (try 'iotrace -P -H')" -- -P -p "$t"
run "lba, short options" 0 "$counted" -- -P -B -b 8 -s 0 -e 100 -p "$j" -f csv
[ "$(sed -n 2p "$tmp/out")" = "8388608,,write,sector,0,7,1" ] || fail "lba, short options: '$(sed -n 2p "$tmp/out")'"
# one I/O over 1.1 million sectors, one-sector buckets: too many to keep
lb=$tmp/lba-big
mkdir "$lb"
printf 'io 1 1000 10 0 1100000\ndone 2 2000 10\n' | mkios "$lb/octf.trace.0"
echo "$summary_ok" >"$lb/octf.summary"
run "lba, too many buckets" 2 "iotrace: --bucket-size 1 makes more than a million LBA buckets with I/O (over all devices and operations); use a larger one" -- -P -B -b 1 -p "$lb"
# 275,000 buckets each for write and total
run "lba, bucket size that fits" 0 '' -- -P -B -b 4 -p "$lb"
run "unknown long" 2 "iotrace: unknown option '--bogus' for --trace-parser (try 'iotrace -P -H')" -- -P --io --raw --bogus
run "unknown short" 2 "iotrace: unknown option '-x' for --trace-parser (try 'iotrace -P -H')" -- -P -x
run "unknown short in a word" 2 "iotrace: unknown option '-x' for --trace-parser (try 'iotrace -P -H')" -- -P --io -xS
# a value given to an option that takes none: named as given, not by its
# getopt value (a control byte for the options without a short form)
for opt in --io=1 --raw=1 --final-names=yes --time-series=1 --devices= --statistics=x --help=x; do
	run "$opt" 2 "iotrace: option '${opt%%=*}' takes no value, given '$opt' (try 'iotrace -P -H')" -- -P "$opt" -p "$t"
done
# whole names only, as in Open-CAS: part of one is refused with what it begins
run "part of a name" 2 "iotrace: unknown option '--stat' for --trace-parser; did you mean --statistics? (try 'iotrace -P -H')" -- -P --stat -p "$t"
run "part of a name, a value" 2 "iotrace: unknown option '--stat=x' for --trace-parser; did you mean --statistics? (try 'iotrace -P -H')" -- -P --stat=x -p "$t"
run "part of a name taking a value" 2 "iotrace: unknown option '--pa' for --trace-parser; did you mean --path? (try 'iotrace -P -H')" -- -P --io --pa "$t"
run "part of a name taking a value, last" 2 "iotrace: unknown option '--pat' for --trace-parser; did you mean --path? (try 'iotrace -P -H')" -- -P --io --pat
run "part of names" 2 "iotrace: unknown option '--s' for --trace-parser; did you mean --statistics, --subrange-start or --subrange-end? (try 'iotrace -P -H')" -- -P --s -p "$t"
# a whole name's value may begin with "--"
mkdir -p "$tmp/repo" && cp -r "$t" "$tmp/repo/--pa"
IOTRACE_TRACE_DIR=$tmp/repo run "value like an option" 0 '' -- -P --io --path --pa
cmp -s "$tmp/out" <("$bin" -P --io --path "$t") || fail "value like an option: not the trace's --io"
run "extra argument" 2 "iotrace: unexpected argument 'extra' (try 'iotrace -P -H')" -- -P --io --raw -p "$t" extra
run "help" 0 '' -- -P --help
grep -q '^Usage: iotrace -P|--trace-parser' "$tmp/out" || fail "help: no usage line"
run "help, extra argument" 2 "iotrace: unexpected argument 'extra' (try 'iotrace -P -H')" -- -P -H extra
[ -s "$tmp/out" ] && fail "help, extra argument: printed '$(head -c 100 "$tmp/out")'"
run "help, other options" 0 '' -- -P --io -H -p "$t"

# --- VFS calls: --vfs, --file-statistics, --process-statistics, filters ---
# mkvfs FILE < SPEC: a stream of these records, one per line (device 8:0,
# file system on 8:1); prints the byte offset of the last record:
#   device SID [TS]
#   name SID INO PARENT NAME
#   device SID [TS [DEV NAME]]                             (sda, 8:0, by default)
#   vfs SID TS ID CALL PID COMM INO SIZE RESULT DURATION [OFFSET]   (INO 0: no file)
#   io SID TS ID LBA LEN PID COMM VFSCALL                  (a write)
#   meta SID TS REF INO
#   done SID TS REF
mkvfs() {
	python3 -c '
import sys
from octf_rec import field, framed, sub

def fid(ino):
    return field(1, 8388609) + field(2, ino) + sub(3, field(1, 1600000000))

last = 0
with open(sys.argv[1], "wb") as f:
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        sid = int(w[1])
        if w[0] == "device":
            hdr = field(1, sid) + (field(2, int(w[2])) if len(w) > 2 else b"")
            dev, name = (int(w[3]), w[4].encode()) if len(w) > 4 else (8388608, b"sda")
            ev = sub(1, hdr) + sub(3, field(1, dev) + sub(2, name))
        elif w[0] == "name":
            ev = sub(1, field(1, sid) + field(2, 1)) + sub(6, sub(1, fid(int(w[2]))) +
                 sub(2, fid(int(w[3]))) + sub(3, w[4].encode()))
        elif w[0] == "vfs":
            ts, id_, call, pid = (int(x) for x in w[2:6])
            ino, size, result, dur = (int(x) for x in w[7:11])
            body = field(1, id_) + field(2, call) + field(3, pid) + field(4, pid) + field(5, 3)
            if ino:
                body += sub(6, fid(ino))
            if len(w) > 11:
                body += field(7, int(w[11]))
            body += (field(8, size) + field(9, result) + field(10, dur) + field(11, 8388609) +
                     field(12, 5) + sub(13, w[6].encode()))
            ev = sub(1, field(1, sid) + field(2, ts)) + sub(22, body)
        elif w[0] == "io":
            ts, id_, lba, ln, pid = (int(x) for x in w[2:7])
            ev = sub(1, field(1, sid) + field(2, ts)) + sub(2, field(1, lba) + field(2, ln) +
                 field(4, 8388608) + field(5, 2) + field(9, id_) + field(20, 8388609) +
                 field(26, pid) + field(27, pid) + field(28, 5) + sub(29, w[7].encode()) +
                 field(31, int(w[8])))
        elif w[0] == "meta":
            ts, ref, ino = (int(x) for x in w[2:5])
            ev = sub(1, field(1, sid) + field(2, ts)) + sub(4, field(1, ref) + sub(2, fid(ino)))
        else:
            ev = sub(1, field(1, sid) + field(2, int(w[2]))) + sub(5, field(4, 8388608) +
                 field(5, int(w[3])))
        last = f.tell()
        f.write(framed(ev))
print(last)
' "$1"
}

v=$tmp/vfs
mkdir "$v"
echo "$summary_ok" >"$v/octf.summary"
# fio (101) opens /data/run42/a/b/f.dat, writes 4096 (its block write
# queued in call 2), a failed write, reads 100 of 4096; dd (202) opens
# /tmp.log and closes a file it does not name
tee "$tmp/vfs-spec" <<'SPEC' | mkvfs "$v/octf.trace.0" >/dev/null
device 1
name 2 2 2 /
name 3 10 2 data
name 4 11 10 run42
name 5 12 11 a
name 6 13 12 b
name 7 14 13 f.dat
name 8 15 2 tmp.log
vfs 9 1000 1 12 101 fio 14 0 3 500
io 10 1100 77 2048 8 101 fio 2
meta 11 1100 77 14
done 12 1600 77
vfs 13 2000 2 4 101 fio 14 4096 4096 900
vfs 14 3000 3 4 101 fio 14 4096 -28 40
vfs 15 4000 4 3 101 fio 14 4096 100 300
vfs 16 5000 5 12 202 dd 15 0 4 70
vfs 17 6000 6 15 202 dd 0 0 0 10
SPEC
run "vfs" 0 '' -- -P --vfs -p "$v" -f csv
got=$(cut -d, -f1,4,10,11,17,19,26 "$tmp/out" | tr '\n' ' ')
[ "$got" = "header.sid,vfs.call,vfs.result,vfs.error,process.pid,process.comm,file.path 9,openat,3,,101,fio,/data/run42/a/b/f.dat 13,pwrite64,4096,,101,fio,/data/run42/a/b/f.dat 14,pwrite64,-28,ENOSPC,101,fio,/data/run42/a/b/f.dat 15,pread64,100,,101,fio,/data/run42/a/b/f.dat 16,openat,4,,202,dd,/tmp.log 17,close,0,,202,dd, " ] ||
	fail "vfs: got '$got'"
run "vfs, json" 0 '' -- -P --vfs -p "$v" --pid 202
[ "$(wc -l <"$tmp/out")" -eq 2 ] && grep -q '"call":"close","start":"5990"' "$tmp/out" ||
	fail "vfs, json: '$(cat "$tmp/out")'"
run "io, vfs call" 0 '' -- -P --io -p "$v" -f csv
got=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(len(rows), rows[0]["io.vfsCallId"], rows[0]["process.pid"], rows[0]["process.comm"], rows[0]["file.path"])
' "$tmp/out")
[ "$got" = "1 2 101 fio /data/run42/a/b/f.dat" ] || fail "io, vfs call: got '$got'"
# per file: fio's 4096 written and 100 read; the block write; dd's open
run "file statistics" 0 '' -- -P --file-statistics -p "$v" -f csv --file '/data/*'
got=$(cut -d, -f1,6,7,8,9,11 "$tmp/out" | tr '\n' ' ')
[ "$got" = "file.path,layer,operation,count,errors,bytes /data/run42/a/b/f.dat,vfs,open,1,0,0 /data/run42/a/b/f.dat,vfs,read,1,0,100 /data/run42/a/b/f.dat,vfs,write,2,1,4096 /data/run42/a/b/f.dat,block,write,1,0,4096 " ] ||
	fail "file statistics: got '$got'"
run "process statistics" 0 '' -- -P --process-statistics -p "$v" -f csv --comm dd
got=$(cut -d, -f1-3,6-9 "$tmp/out" | tr '\n' ' ')
[ "$got" = "group,process.pid,process.comm,layer,operation,count,errors process,202,dd,vfs,open,1,0 process,202,dd,vfs,close,1,0 cgroup,,,vfs,open,1,0 cgroup,,,vfs,close,1,0 " ] ||
	fail "process statistics: got '$got'"
# a time window, from the first event (the device, ts 0): the calls that
# returned at 3000 and 4000 ns, not the one at 2000; the I/O submitted at
# 1100 ns
run "vfs, window" 0 '' -- -P --vfs -p "$v" -f csv --from 0.0000021 --to 0.0000041
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 14 15 " ] || fail "vfs, window: '$(cat "$tmp/out")'"
run "io, window" 0 '' -- -P --io -p "$v" -f csv --from 0.000001 --to 0.000001101
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 10 " ] || fail "io, window: '$(cat "$tmp/out")'"
run "io, window past it" 0 '' -- -P --io -p "$v" -f csv --from 0.000001101
[ "$(wc -l <"$tmp/out")" -le 1 ] || fail "io, window past it: '$(cat "$tmp/out")'"
# the same windows in wall-clock times: the summary says when header.timestamp
# 0 (the device, ts 1) was, 10:00 UTC; a time of day is on that date, local
# (TZ) or UTC with Z
vw=$tmp/vfs-wall
cp -r "$v" "$vw"
echo '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"timestampOrigin": "2026-11-30T10:00:00Z"}}' >"$vw/octf.summary"
TZ=UTC run "vfs, wall-clock window" 0 '' -- -P --vfs -p "$vw" -f csv --from 10:00:00.0000021 --to 10:00:00.0000041
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 14 15 " ] || fail "vfs, wall-clock window: '$(cat "$tmp/out")'"
TZ=CET-1 run "vfs, wall-clock window, UTC" 0 '' -- -P --vfs -p "$vw" -f csv \
	--from 2026-11-30T10:00:00.0000021Z --to 10:00:00.0000041Z
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 14 15 " ] || fail "vfs, wall-clock window, UTC: '$(cat "$tmp/out")'"
TZ=CET-1 run "vfs, wall-clock window, local" 0 '' -- -P --vfs -p "$vw" -f csv \
	--from 11:00:00.0000021 --to '2026-11-30 11:00:00.0000041'
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 14 15 " ] || fail "vfs, wall-clock window, local: '$(cat "$tmp/out")'"
# from before the start: from the start; mixed with seconds
TZ=UTC run "vfs, wall-clock from before the start" 0 '' -- -P --vfs -p "$vw" -f csv --from 09:00 --to 0.0000031
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 9 13 14 " ] || fail "vfs, wall-clock from before the start: '$(cat "$tmp/out")'"
TZ=UTC run "wall-clock to before the start" 2 "iotrace: --to 09:59:59 is before the trace's start (2026-11-30T10:00:00Z): the window would be empty" -- -P --statistics -p "$vw" --to 09:59:59
TZ=UTC run "wall-clock window empty" 2 "iotrace: --from 10:00:01 is not before --to 10:00:00.5: the window would be empty" -- -P --statistics -p "$vw" --from 10:00:01 --to 10:00:00.5
# a trace begun just before midnight: a time of day after it is on the next day
echo '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"timestampOrigin": "2026-11-30T23:59:59.999998Z"}}' >"$vw/octf.summary"
TZ=UTC run "wall-clock past midnight" 0 '' -- -P --vfs -p "$vw" -f csv --from 00:00:00.0000005
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 14 15 16 17 " ] || fail "wall-clock past midnight: '$(cat "$tmp/out")'"
TZ=UTC run "wall-clock before midnight" 0 '' -- -P --vfs -p "$vw" -f csv --to 23:59:59.9999995
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 9 " ] || fail "wall-clock before midnight: '$(cat "$tmp/out")'"
# a trace of three days has each time of day three times
echo '{"state": "COMPLETE", "droppedEvents": "0", "traceDuration": "200000", "tags": {"timestampOrigin": "2026-11-30T10:00:00Z"}}' >"$vw/octf.summary"
TZ=UTC run "wall-clock, a trace of days" 2 "iotrace: --from 12:00: the trace has that time on more than one day (give the date too)" -- -P --statistics -p "$vw" --from 12:00
TZ=UTC run "wall-clock, a trace of days, dated" 0 '' -- -P --statistics -p "$vw" --from 2026-12-01T12:00
echo '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"timestampOrigin": "2026-11-30T10:00:00Z"}}' >"$vw/octf.summary"
run "wall-clock, no origin" 2 "iotrace: trace '$v' does not say when its events happened (an Open-CAS trace, or an older iotrace's): give --from and --to in seconds from its start" -- -P --statistics -p "$v" --from 10:00
run "wall-clock, hour 24" 2 "iotrace: invalid value '24:00' for --from: expected seconds from the trace's start (12 or 12.5), or a time of day (14:03:05.25, 2026-11-30T14:03:05; add Z for UTC)" -- -P --io -p "$vw" --from 24:00
run "wall-clock, February 30" 2 "iotrace: invalid value '2026-02-30T10:00' for --to: expected seconds from the trace's start (12 or 12.5), or a time of day (14:03:05.25, 2026-11-30T14:03:05; add Z for UTC)" -- -P --io -p "$vw" --to 2026-02-30T10:00
run "wall-clock, ten digits" 2 "iotrace: invalid value '10:00:00.0000000001' for --to: expected seconds from the trace's start (12 or 12.5), or a time of day (14:03:05.25, 2026-11-30T14:03:05; add Z for UTC)" -- -P --io -p "$vw" --to 10:00:00.0000000001
echo '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"timestampOrigin": "2026-11-30T10:00:00"}}' >"$vw/octf.summary"
run "wall-clock, origin not UTC" 1 "iotrace: cannot read the summary of trace '$vw' for --from/--to as a time of day: byte 72: 'timestampOrigin' is not a UTC time such as \"2026-11-30T06:47:42.123456789Z\"" -- -P --statistics -p "$vw" --from 10:00

# --wall-clock: each record's time, origin + header.timestamp
echo '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"timestampOrigin": "2026-11-30T10:00:00Z"}}' >"$vw/octf.summary"
run "wall-clock, vfs csv" 0 '' -- -P --vfs -p "$vw" -f csv --wall-clock --from 0.0000021 --to 0.0000041
[ "$(awk -F, '{ print $1 "=" $NF }' "$tmp/out" | tr '\n' ' ')" = "header.sid=header.wallClock 14=2026-11-30T10:00:00.000003000Z 15=2026-11-30T10:00:00.000004000Z " ] ||
	fail "wall-clock, vfs csv: '$(cat "$tmp/out")'"
run "wall-clock, io json" 0 '' -- -P --io -p "$vw" --wall-clock
grep -q '^{"header":{"sid":"10","timestamp":"1100","wallClock":"2026-11-30T10:00:00.000001100Z"},"io":' "$tmp/out" ||
	fail "wall-clock, io json: '$(cat "$tmp/out")'"
run "wall-clock, io csv" 0 '' -- -P --io -p "$vw" -f csv --wall-clock
[ "$(awk -F, '{ print $1 "=" $NF }' "$tmp/out" | tr '\n' ' ')" = "header.sid=header.wallClock 10=2026-11-30T10:00:00.000001100Z " ] ||
	fail "wall-clock, io csv: '$(cat "$tmp/out")'"
TZ=CET-1 run "wall-clock, io table" 0 '' -- -P --io -p "$vw" -f table --wall-clock
[ "$(awk '{ print $1 }' "$tmp/out" | tr '\n' ' ')" = "TIME 11:00:00.000001 " ] ||
	fail "wall-clock, io table: '$(cat "$tmp/out")'"
TZ=CET-1 run "wall-clock, vfs table" 0 '' -- -P --vfs -p "$vw" -f table --wall-clock --pid 202
[ "$(awk '{ print $1 }' "$tmp/out" | tr '\n' ' ')" = "START 11:00:00.000004 11:00:00.000005 " ] ||
	fail "wall-clock, vfs table: '$(cat "$tmp/out")'"
run "wall-clock, statistics" 2 "iotrace: --wall-clock goes with the views that print times: --io, --vfs and --time-series" -- -P --statistics -p "$vw" --wall-clock
run "wall-clock, time series csv" 0 '' -- -P --time-series -p "$vw" -f csv --wall-clock --interval 0.000001
[ "$(awk -F, '{ print $3 "=" $NF }' "$tmp/out" | sort -u | tr '\n' ' ')" = "1000=2026-11-30T10:00:00.000001000Z start=wallClock " ] ||
	fail "wall-clock, time series csv: '$(cat "$tmp/out")'"
run "wall-clock, time series json" 0 '' -- -P --time-series -p "$vw" --wall-clock --interval 0.000001
[ "$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["timeSeries"][0]["slots"][0]; print(s["start"], s["wallClock"])' "$tmp/out")" = "1000 2026-11-30T10:00:00.000001000Z" ] ||
	fail "wall-clock, time series json: '$(cat "$tmp/out")'"
TZ=CET-1 run "wall-clock, time series table" 0 '' -- -P --time-series -p "$vw" -f table --wall-clock --interval 0.5
[ "$(awk 'NR > 1 { print $1 }' "$tmp/out" | tr '\n' ' ')" = "time 11:00:00.0 " ] ||
	fail "wall-clock, time series table: '$(cat "$tmp/out")'"
run "wall-clock, raw" 2 "iotrace: --wall-clock does not go with --raw: it prints every event as recorded" -- -P --io --raw -p "$vw" --wall-clock
run "wall-clock, no origin" 2 "iotrace: trace '$v' does not say when its events happened (an Open-CAS trace, or an older iotrace's): no --wall-clock for it" -- -P --io -p "$v" --wall-clock
# the summary's timestampOriginClock: times count from the device
# descriptions (there at 1000 ns) also when the first events are lost, as
# with damage at the start of a stream
vo=$tmp/origin-clock
mkdir "$vo"
echo '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"timestampOrigin": "2026-11-30T10:00:00Z", "timestampOriginClock": "1000"}}' >"$vo/octf.summary"
for lost in whole "descriptions lost"; do
	{
		[ "$lost" = whole ] && echo "device 1 1000"
		printf '%s\n' "io 2 1100 77 2048 8 101 fio 0" "done 3 1600 77"
	} | mkvfs "$vo/octf.trace.0" >/dev/null
	run "origin clock, $lost" 0 '' -- -P --io -p "$vo" -f csv --wall-clock
	[ "$(awk -F, '{ print $2 "=" $NF }' "$tmp/out" | tr '\n' ' ')" = "header.timestamp=header.wallClock 100=2026-11-30T10:00:00.000000100Z " ] ||
		fail "origin clock, $lost: '$(cat "$tmp/out")'"
done
TZ=UTC run "origin clock, descriptions lost, window" 0 '' -- -P --io -p "$vo" -f csv --from 10:00:00.0000001 --to 0.000000101
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 2 " ] || fail "origin clock, descriptions lost, window: '$(cat "$tmp/out")'"
# without it (an older iotrace's summary) from the first event read
echo '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"timestampOrigin": "2026-11-30T10:00:00Z"}}' >"$vo/octf.summary"
run "origin clock, not said" 0 '' -- -P --io -p "$vo" -f csv
[ "$(cut -d, -f2 "$tmp/out" | tr '\n' ' ')" = "header.timestamp 0 " ] || fail "origin clock, not said: '$(cat "$tmp/out")'"
# filters that leave nothing: empty output, no complaint
run "filter, nothing left" 0 '' -- -P --io -p "$v" --file '/nowhere/*'
[ -s "$tmp/out" ] && fail "filter, nothing left: printed '$(head -c 100 "$tmp/out")'"
run "filter, nothing left, table" 0 '' -- -P --statistics -p "$v" --pid 4194304 -f table
[ "$(cat "$tmp/out")" = "no I/O in this trace matches the filters" ] || fail "filter, nothing left, table: '$(cat "$tmp/out")'"
run "filter, nothing left, fs table" 0 '' -- -P --fs-statistics -p "$v" --pid 4194304 -f table
[ "$(cat "$tmp/out")" = "no I/O to named files in this trace matches the filters" ] ||
	fail "filter, nothing left, fs table: '$(cat "$tmp/out")'"
run "filter, devices" 0 '' -- -P --devices -p "$v" -f csv --comm nobody
[ "$(sed -n 2p "$tmp/out")" = "8388608,sda,0,,0" ] || fail "filter, devices: '$(cat "$tmp/out")'"

# a damaged stream: what is before the damage, and exit 3
vd=$tmp/vfs-damaged
mkdir "$vd"
off=$(mkvfs "$vd/octf.trace.0" <<'SPEC'
name 1 2 2 /
name 2 14 2 f.dat
vfs 3 1000 1 12 101 fio 14 0 3 500
vfs 4 2000 2 4 101 fio 14 4096 4096 900
SPEC
)
truncate -s -3 "$vd/octf.trace.0"
echo "$summary_ok" >"$vd/octf.summary"
for view in --vfs --file-statistics --process-statistics; do
	run "damaged, $view" 3 "iotrace: trace damaged: $vd/octf.trace.0 at byte $off: truncated record; output is partial
iotrace: that file's events after the damage are lost; the other files are read to their ends" -- -P $view -p "$vd" -f csv
done
run "damaged, vfs rows" 3 "iotrace: trace damaged: $vd/octf.trace.0 at byte $off: truncated record; output is partial
iotrace: that file's events after the damage are lost; the other files are read to their ends" -- -P --vfs -p "$vd" -f csv
[ "$(cut -d, -f1,4 "$tmp/out" | tr '\n' ' ')" = "header.sid,vfs.call 3,openat " ] ||
	fail "damaged, vfs rows: '$(cat "$tmp/out")'"

# filter options
run "pid not a number" 2 "iotrace: invalid value 'abc' for --pid: expected a number from 1 to 4194304" -- -P --io -p "$v" --pid abc
run "pid 0" 2 "iotrace: invalid value '0' for --pid: expected a number from 1 to 4194304" -- -P --vfs -p "$v" --pid 0
run "pid too large" 2 "iotrace: invalid value '4194305' for --pid: expected a number from 1 to 4194304" -- -P --vfs -p "$v" --pid 4194305
run "pid negative" 2 "iotrace: invalid value '-1' for --pid: expected a number from 1 to 4194304" -- -P --vfs -p "$v" --pid=-1
run "pid, no value" 2 "iotrace: option '--pid' needs a value (try 'iotrace -P -H')" -- -P --vfs -p "$v" --pid
run "comm empty" 2 "iotrace: invalid value '' for --comm: expected a task name such as 'fio'" -- -P --vfs -p "$v" --comm ''
run "file empty" 2 "iotrace: invalid value '' for --file: expected a path glob such as '/data/*'" -- -P --vfs -p "$v" --file ''
run "filter, raw" 2 "iotrace: --comm does not go with --raw: it prints every event as recorded" -- -P --io --raw -p "$v" --comm fio
# --min-latency/--max-latency (both included): a call's duration, an
# I/O's latency (sid 10: 1600 - 1100 ns); --cgroup; --device
run "min latency, vfs" 0 '' -- -P --vfs -p "$v" -f csv --min-latency 300ns
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 9 13 15 " ] || fail "min latency, vfs: '$(cat "$tmp/out")'"
run "max latency, vfs" 0 '' -- -P --vfs -p "$v" -f csv --max-latency 0.07us
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 14 16 17 " ] || fail "max latency, vfs: '$(cat "$tmp/out")'"
run "latency range, io" 0 '' -- -P --io -p "$v" -f csv --min-latency 500ns --max-latency 500ns
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 10 " ] || fail "latency range, io: '$(cat "$tmp/out")'"
run "min latency, io, none" 0 '' -- -P --io -p "$v" -f csv --min-latency 501ns
[ "$(wc -l <"$tmp/out")" -le 1 ] || fail "min latency, io, none: '$(cat "$tmp/out")'"
run "min latency, process statistics" 0 '' -- -P --process-statistics -p "$v" -f csv --min-latency 0.5us
got=$(cut -d, -f1-3,6-8 "$tmp/out" | grep '^process' | tr '\n' ' ')
[ "$got" = "process,101,fio,vfs,open,1 process,101,fio,vfs,write,1 process,101,fio,block,write,1 " ] ||
	fail "min latency, process statistics: got '$got'"
run "cgroup" 0 '' -- -P --vfs -p "$v" -f csv --cgroup 5
[ "$(wc -l <"$tmp/out")" -eq 7 ] || fail "cgroup: '$(cat "$tmp/out")'"
run "cgroup, io" 0 '' -- -P --io -p "$v" -f csv --cgroup 5
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 10 " ] || fail "cgroup, io: '$(cat "$tmp/out")'"
run "cgroup, other" 0 '' -- -P --vfs -p "$v" --cgroup 6
[ -s "$tmp/out" ] && fail "cgroup, other: printed '$(head -c 100 "$tmp/out")'"
# a trace that names its cgroups (iotrace.cgroups): a path is looked up
# there alone, with the cgroups below it; the paths are printed beside the ids
vc=$tmp/vfs-cgroups
cp -r "$v" "$vc"
printf '# iotrace cgroups\n5\t/slurm/job_9/step_0\n6\t/slurm/job_9\n7\t/slurm/job_90\n' \
	>"$vc/iotrace.cgroups"
run "cgroup path, named by the trace" 0 '' -- -P --vfs -p "$vc" -f csv --cgroup slurm/job_9
[ "$(wc -l <"$tmp/out")" -eq 7 ] && [ "$(sed -n 2p "$tmp/out" | awk -F, '{ print $NF }')" = /slurm/job_9/step_0 ] ||
	fail "cgroup path, named by the trace: '$(cat "$tmp/out")'"
run "cgroup id of a parent, named by the trace" 0 '' -- -P --io -p "$vc" -f csv --cgroup 6
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 10 " ] ||
	fail "cgroup id of a parent, named by the trace: '$(cat "$tmp/out")'"
run "cgroup path, not in the trace" 2 "iotrace: --cgroup /slurm/job_90/x: the trace has no task in cgroup /slurm/job_90/x or below it" -- -P --io -p "$vc" --cgroup /slurm/job_90/x
# --cgroup-depth 2: the step counts for its job
run "cgroup depth" 0 '' -- -P --process-statistics -p "$vc" -f csv --cgroup-depth 2
[ "$(grep -c '^cgroup,,,6,/slurm/job_9,' "$tmp/out")" -gt 0 ] && ! grep -q '^cgroup,,,5,' "$tmp/out" &&
	grep -q '^process,101,fio,6,/slurm/job_9,vfs,' "$tmp/out" || fail "cgroup depth: '$(cat "$tmp/out")'"
run "cgroup depth, access pattern" 0 '' -- -P --access-pattern -p "$vc" -f csv --cgroup-depth 2
[ "$(grep -c '^cgroup,,,,,6,/slurm/job_9,' "$tmp/out")" -gt 0 ] && ! grep -q '^cgroup,,,,,5,' "$tmp/out" ||
	fail "cgroup depth, access pattern: '$(cat "$tmp/out")'"
run "cgroup depth, a trace without names" 2 "iotrace: --cgroup-depth: the trace does not name its cgroups (it has no iotrace.cgroups: an Open-CAS trace, an older iotrace's, or one with no I/O or call of a task)" -- -P --process-statistics -p "$v" --cgroup-depth 2
run "cgroup depth, another view" 2 "iotrace: --cgroup-depth goes with --process-statistics and --access-pattern" -- -P --statistics -p "$vc" --cgroup-depth 2
run "cgroup depth 0" 2 "iotrace: invalid value '0' for --cgroup-depth: expected a number from 1 to 2048" -- -P --process-statistics -p "$vc" --cgroup-depth 0
# damaged: said, the lines before it used, and the output is partial (exit 3)
printf '5\t/slurm/job_9/step_0\nbad line\n6\t/slurm/job_9\n' >"$vc/iotrace.cgroups"
run "cgroups file damaged" 3 "iotrace: warning: $vc/iotrace.cgroups: line 2 is not a cgroup's id and path; the cgroups from it on are named by id only" -- -P --process-statistics -p "$vc" -f csv
grep -q '^cgroup,,,5,/slurm/job_9/step_0,' "$tmp/out" || fail "cgroups file damaged: '$(cat "$tmp/out")'"
# a view that names no cgroup does not read the file
run "cgroups file damaged, a view without cgroups" 0 '' -- -P --statistics -p "$vc"
# a path past the damage: the message does not claim the trace lacks it
run "cgroups file damaged, a path past it" 2 "iotrace: warning: $vc/iotrace.cgroups: line 2 is not a cgroup's id and path; the cgroups from it on are named by id only
iotrace: --cgroup /slurm/job_90: the trace names no cgroup /slurm/job_90 or below it, in the part of iotrace.cgroups that could be read" -- -P --io -p "$vc" --cgroup /slurm/job_90
printf 'bad line\n5\t/slurm/job_9/step_0\n' >"$vc/iotrace.cgroups"
run "cgroups file damaged from its first line, cgroup depth" 2 "iotrace: warning: $vc/iotrace.cgroups: line 1 is not a cgroup's id and path; the cgroups from it on are named by id only
iotrace: --cgroup-depth: no cgroup's path could be read from the trace's iotrace.cgroups" -- -P --process-statistics -p "$vc" --cgroup-depth 2
# a file that cannot be read is the same: said, ids only, exit 3, never a
# hang on a FIFO nor a read without end from a device
rm "$vc/iotrace.cgroups"
mkdir "$vc/iotrace.cgroups"
run "cgroups file a directory" 3 "iotrace: warning: cannot read $vc/iotrace.cgroups: Is a directory; its cgroups are named by id only" -- -P --process-statistics -p "$vc" -f csv
grep -q '^cgroup,,,5,,' "$tmp/out" || fail "cgroups file a directory: '$(cat "$tmp/out")'"
rmdir "$vc/iotrace.cgroups"
mkfifo "$vc/iotrace.cgroups"
timeout 20 "$bin" -P --io -p "$vc" -f csv >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && [ "$(cat "$tmp/err")" = "iotrace: warning: cannot read $vc/iotrace.cgroups: not a regular file; its cgroups are named by id only" ] ||
	fail "cgroups file a FIFO: exit $rc, stderr '$(cat "$tmp/err")'"
rm "$vc/iotrace.cgroups"
ln -s /dev/zero "$vc/iotrace.cgroups"
timeout 20 "$bin" -P --io -p "$vc" -f csv >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -qF "cannot read $vc/iotrace.cgroups: not a regular file" "$tmp/err" ||
	fail "cgroups file a link to /dev/zero: exit $rc, stderr '$(cat "$tmp/err")'"
rm "$vc/iotrace.cgroups"
# the calls' file system is on partition 8:1 of sda: that it is sda's, the
# trace says only with the I/O of sid 10, after the first call; described,
# its name says so from the start (as our tracer describes a traced disk's
# partitions)
run "device, partition learned" 0 '' -- -P --vfs -p "$v" -f csv --device /dev/sda
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 13 14 15 16 17 " ] || fail "device, partition learned: '$(cat "$tmp/out")'"
vp=$tmp/vfs-partition
mkdir "$vp"
echo "$summary_ok" >"$vp/octf.summary"
# the same, one sid later, after the partition's description
{
	echo "device 1"
	echo "device 2 0 8388609 sda1"
	tail -n +2 "$tmp/vfs-spec" | awk '{ $2 = $2 + 1; print }'
} | mkvfs "$vp/octf.trace.0" >/dev/null
for dev in sda sda1; do
	run "device $dev, partition described" 0 '' -- -P --vfs -p "$vp" -f csv --device $dev
	[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 10 14 15 16 17 18 " ] ||
		fail "device $dev, partition described: '$(cat "$tmp/out")'"
	# the I/O names its disk (sda) and partition (8:1, sda1)
	run "device $dev, partition described, io" 0 '' -- -P --io -p "$vp" -f csv --device $dev
	[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 11 " ] ||
		fail "device $dev, partition described, io: '$(cat "$tmp/out")'"
done
run "device, a partition not described" 2 "iotrace: --device sda2: the trace has no such device (it has sda, sda1)" -- -P --io -p "$vp" --device sda2
# only the partition described: the disk's name is known from it
vq=$tmp/vfs-partition-only
mkdir "$vq"
echo "$summary_ok" >"$vq/octf.summary"
sed '1s/.*/device 1 0 8388609 sda1/' "$tmp/vfs-spec" | mkvfs "$vq/octf.trace.0" >/dev/null
run "device, partition described alone" 0 '' -- -P --vfs -p "$vq" -f csv --device sda
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 9 13 14 15 16 17 " ] ||
	fail "device, partition described alone: '$(cat "$tmp/out")'"
run "device, partition described alone, io" 0 '' -- -P --io -p "$vq" -f csv --device sda
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 10 " ] ||
	fail "device, partition described alone, io: '$(cat "$tmp/out")'"
run "device, with others" 0 '' -- -P --io -p "$v" -f csv --device sda --cgroup 5 --max-latency 1s
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "header.sid 10 " ] || fail "device, with others: '$(cat "$tmp/out")'"
run "device, not in the trace" 2 "iotrace: --device sdb: the trace has no such device (it has sda)" -- -P --vfs -p "$v" --device sdb
# a summary view prints nothing then: an empty table would pass for an answer
for view in --statistics --devices --time-series; do
	run "device, not in the trace, $view" 2 "iotrace: --device sdb: the trace has no such device (it has sda)" -- -P $view -p "$v" --device sdb -f table
	[ -s "$tmp/out" ] && fail "device, not in the trace, $view: printed '$(head -c 200 "$tmp/out")'"
done
[ -s "$tmp/out" ] && fail "device, not in the trace: printed '$(head -c 100 "$tmp/out")'"
vn=$tmp/vfs-no-device
mkdir "$vn"
echo "$summary_ok" >"$vn/octf.summary"
sed 1d "$tmp/vfs-spec" | mkvfs "$vn/octf.trace.0" >/dev/null
run "device, a trace naming none" 2 "iotrace: --device sda: the trace names no device" -- -P --io -p "$vn" --device sda
run "device, empty" 2 "iotrace: invalid value '' for --device: expected a device's name, such as nvme0n1" -- -P --io -p "$v" --device ''
run "device, a path" 2 "iotrace: invalid value '/dev/mapper/vg-lv' for --device: expected a device's name, such as nvme0n1" -- -P --io -p "$v" --device /dev/mapper/vg-lv
# a latency refused says what is wrong with it
run "latency, no unit" 2 "iotrace: invalid value '10' for --min-latency: expected a unit after the number, ns, us, ms or s (a bare number could be any)" -- -P --io -p "$v" --min-latency 10
run "latency, below a ns" 2 "iotrace: invalid value '0.5ns' for --max-latency: expected a time in whole nanoseconds, such as 1.5us (1500ns)" -- -P --io -p "$v" --max-latency 0.5ns
run "latency, too large" 2 "iotrace: invalid value '99999999999999999999s' for --min-latency: expected a time of at most 18446744073s" -- -P --io -p "$v" --min-latency 99999999999999999999s
run "latency, an exponent" 2 "iotrace: invalid value '1e400ms' for --max-latency: expected a decimal number with no exponent, and its unit, such as 0.5ms" -- -P --io -p "$v" --max-latency 1e400ms
run "latency, negative" 2 "iotrace: invalid value '-5ms' for --min-latency: expected a time of 0 or more, such as 500us, 10ms or 1.5s" -- -P --io -p "$v" --min-latency -5ms
run "latency, a space" 2 "iotrace: invalid value '5 ms' for --min-latency: expected the number and its unit with no space, such as 10ms" -- -P --io -p "$v" --min-latency '5 ms'
run "latency, no number" 2 "iotrace: invalid value 'ms' for --max-latency: expected a number before the unit, such as 10ms" -- -P --io -p "$v" --max-latency ms
run "latency, another unit" 2 "iotrace: invalid value '5min' for --max-latency: expected a unit after the number, ns, us, ms or s, such as 10ms" -- -P --io -p "$v" --max-latency 5min
run "latency, no number at all" 2 "iotrace: invalid value 'x' for --max-latency: expected a time with its unit, such as 500us, 10ms or 1.5s" -- -P --io -p "$v" --max-latency x
# the most, in any unit
run "latency, the most in ns" 0 '' -- -P --io -p "$v" --max-latency 18446744073000000000ns
run "latency, empty range" 2 "iotrace: --min-latency 2ms is past --max-latency 1999us" -- -P --io -p "$v" --max-latency 1999us --min-latency 2ms
run "cgroup 0" 2 "iotrace: invalid value '0' for --cgroup: expected a cgroup id, as --process-statistics prints it, or a cgroup's path, such as system.slice/slurmd.service" -- -P --io -p "$v" --cgroup 0
run "cgroup, no such directory" 2 "iotrace: --cgroup no.such/cgroup: this node has no such cgroup, and the trace does not name its cgroups (an id is taken as given)" -- -P --io -p "$v" --cgroup no.such/cgroup
run "latency, raw" 2 "iotrace: --min-latency does not go with --raw: it prints every event as recorded" -- -P --io --raw -p "$v" --min-latency 1ms
run "device twice" 2 "iotrace: --device given twice; give it once (try 'iotrace -P -H')" -- -P --io -p "$v" --device sda --device sdb
run "from not seconds" 2 "iotrace: invalid value '1s' for --from: expected seconds from the trace's start (12 or 12.5), or a time of day (14:03:05.25, 2026-11-30T14:03:05; add Z for UTC)" -- -P --io -p "$v" --from 1s
run "to negative" 2 "iotrace: invalid value '-1' for --to: expected seconds from the trace's start (12 or 12.5), or a time of day (14:03:05.25, 2026-11-30T14:03:05; add Z for UTC)" -- -P --io -p "$v" --to=-1
run "to past ns" 2 "iotrace: invalid value '0.0000000001' for --to: expected seconds to the nanosecond, at most 9 digits after the point" -- -P --io -p "$v" --to 0.0000000001
run "empty window" 2 "iotrace: --from 2.5 is not before --to 2.5: the window would be empty" -- -P --statistics -p "$v" --from 2.5 --to 2.5
# no --from given: the message names none
run "to 0" 2 "iotrace: --to 0 is the trace's start: the window would be empty" -- -P --statistics -p "$v" --to 0
run "from 0, to 0" 2 "iotrace: --from 0 is not before --to 0: the window would be empty" -- -P --statistics -p "$v" --from 0 --to 0
# --final-names where no path is printed or matched would change nothing
run "final names, statistics" 2 "iotrace: --final-names goes with the views that print paths (--io, --fs-statistics, --vfs, --file-statistics, --access-pattern) or with --file" -- -P --statistics --final-names -p "$v"
run "final names, raw" 2 "iotrace: --final-names does not go with --raw: it prints every event as recorded" -- -P --io --raw --final-names -p "$v"
run "final names, statistics of files" 0 '' -- -P --statistics --final-names --file '/data/*' -p "$v"
run "window, raw" 2 "iotrace: --to does not go with --raw: it prints every event as recorded" -- -P --io --raw -p "$v" --to 1
run "interval, other view" 2 "iotrace: --interval goes with --time-series only" -- -P --statistics -p "$v" --interval 1
run "interval 0" 2 "iotrace: invalid value '0' for --interval: expected seconds, more than 0, such as 1 or 0.1" -- -P --time-series -p "$v" --interval 0
run "interval not seconds" 2 "iotrace: invalid value '1m' for --interval: expected seconds, more than 0, such as 1 or 0.1" -- -P --time-series -p "$v" --interval 1m
run "interval too fine" 2 "iotrace: invalid value '0.0000000001' for --interval: expected seconds to the nanosecond, at most 9 digits after the point" -- -P --time-series -p "$v" --interval 0.0000000001
run "interval too long" 2 "iotrace: invalid value '99999999999' for --interval: expected seconds, at most 4294967295" -- -P --time-series -p "$v" --interval 99999999999
run "from too long" 2 "iotrace: invalid value '99999999999' for --from: expected seconds, at most 4294967295" -- -P --io -p "$v" --from 99999999999
run "vfs, two views" 2 "iotrace: --vfs and --file-statistics are two views; choose one (try 'iotrace -P -H')" -- -P --vfs --file-statistics -p "$v"
run "by, other view" 2 "iotrace: --by goes with --time-series only" -- -P --latency-histogram -p "$v" --by completion
run "by, bad value" 2 "iotrace: invalid value 'done' for --by: expected submission or completion" -- -P --time-series -p "$v" --by 'done'
run "by, no value" 2 "iotrace: option '--by' needs a value (try 'iotrace -P -H')" -- -P --time-series -p "$v" --by
# CSV says which way it counted, in its last column
for by in submission completion; do
	run "by $by, csv" 0 '' -- -P --time-series -p "$v" --by "$by" -f csv
	[ "$(head -1 "$tmp/out" | awk -F, '{print $NF}')" = by ] &&
		[ "$(sed -n 2p "$tmp/out" | awk -F, '{print $NF}')" = "$by" ] ||
		fail "by $by, csv: '$(head -2 "$tmp/out")'"
done

# --- --access-pattern: streams and alignment, in submission order ---
ap=$tmp/pattern
mkdir "$ap"
echo "$summary_ok" >"$ap/octf.summary"
# a stream from LBA 0, another from 96 between its I/Os, then a 2 KiB
# write continuing the second, and one at an odd sector
mkios "$ap/octf.trace.0" <<'SPEC'
io 1 100 1 0 8
io 2 200 2 8 8
io 3 300 3 96 8
io 4 400 4 16 8
io 5 500 5 104 4
io 6 600 6 113 8
done 7 700 1
done 8 700 2
done 9 700 3
done 10 700 4
done 11 700 5
done 12 700 6
SPEC
run "access pattern, csv" 0 '' -- -P --access-pattern -p "$ap" -f csv
[ "$(tr '\n' ' ' <"$tmp/out")" = "group,device.id,device.name,process.pid,process.comm,process.cgroup,process.cgroupPath,file.path,file.partition,layer,operation,count,bytes,sequential,runs,unaligned device,8388608,,,,,,,,block,write,6,22528,3,3,2 process,,,0,,,,,,block,write,6,22528,3,3,2 cgroup,,,,,0,,,,block,write,6,22528,3,3,2 " ] ||
	fail "access pattern, csv: '$(cat "$tmp/out")'"
run "access pattern, json" 0 '' -- -P --access-pattern -p "$ap"
[ "$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); w = d["devices"][0]["block"]["write"]; print(d["devices"][0]["device"]["id"], w["count"], w["bytes"], w["sequential"], w["runs"], w["unaligned"], len(d["processes"]), d["cgroups"][0]["cgroup"], d["files"])' "$tmp/out")" = "8388608 6 22528 3 3 2 1 0 []" ] ||
	fail "access pattern, json: '$(cat "$tmp/out")'"
run "access pattern, table" 0 '' -- -P --access-pattern -p "$ap" -f table
[ "$(sed -n 3p "$tmp/out" | tr -s ' ')" = " 8:0 write 6 22 KiB 50.0% 7.3 KiB 33.3%" ] ||
	fail "access pattern, table: '$(cat "$tmp/out")'"
# a filter first: the streams are those of the I/Os it keeps
run "access pattern, window" 0 '' -- -P --access-pattern -p "$ap" -f csv --from 0.0000002
[ "$(sed -n 2p "$tmp/out")" = "device,8388608,,,,,,,,block,write,4,14336,1,3,2" ] ||
	fail "access pattern, window: '$(cat "$tmp/out")'"
# calls: fio writes 4 KiB at 0 and 4096, then 100 bytes at 8192 (unaligned),
# then at 0 again; dd writes 4 KiB at 4096 on the same file (its own
# stream, not fio's: sequential is per process); a failed write and a
# read at an unknown offset (-1) of 4096 bytes
mkvfs "$ap/octf.trace.1" >/dev/null <<'SPEC'
name 20 2 2 /
name 21 14 2 f.dat
vfs 22 800 11 4 101 fio 14 4096 4096 10 0
vfs 23 810 12 4 101 fio 14 4096 4096 10 4096
vfs 24 820 13 4 202 dd 14 4096 4096 10 4096
vfs 25 830 14 4 101 fio 14 100 100 10 8192
vfs 26 840 15 4 101 fio 14 4096 4096 10 0
vfs 27 850 16 4 101 fio 14 4096 -28 10 12288
vfs 28 860 17 1 101 fio 14 4096 4096 10 -1
SPEC
run "access pattern, calls" 0 '' -- -P --access-pattern -p "$ap" -f csv
[ "$(grep ',vfs,' "$tmp/out" | cut -d, -f1,4-6,8,10- | tr '\n' ' ')" = "process,101,fio,,,vfs,read,1,4096,0,1,0 process,101,fio,,,vfs,write,4,12388,2,2,1 process,202,dd,,,vfs,write,1,4096,0,1,0 cgroup,,,5,,vfs,read,1,4096,0,1,0 cgroup,,,5,,vfs,write,5,16484,2,3,1 file,,,,/f.dat,vfs,read,1,4096,0,1,0 file,,,,/f.dat,vfs,write,5,16484,2,3,1 " ] ||
	fail "access pattern, calls: '$(cat "$tmp/out")'"
run "access pattern, nothing left" 0 '' -- -P --access-pattern -p "$ap" -f table --from 1
[ "$(cat "$tmp/out")" = "no read or write I/O in this trace matches the filters" ] ||
	fail "access pattern, nothing left: '$(cat "$tmp/out")'"
# three 128 KiB writes one after the other, each split in two as
# block_split records it: the I/O's record first, holding the back half,
# its piece (the front) after. The device sees six sequential pieces but
# the first; judged piece by piece in record order, only two were
aps=$tmp/pattern-split
mkdir "$aps"
echo "$summary_ok" >"$aps/octf.summary"
mkios "$aps/octf.trace.0" <<'SPEC'
io 1 100 1 0 256
split 2 101 11 1 0 128 128
io 3 200 2 256 256
split 4 201 12 2 256 128 384
io 5 300 3 512 256
split 6 301 13 3 512 128 640
doneat 7 500 11 0 128
doneat 8 501 1 128 128
doneat 9 502 12 256 128
doneat 10 503 2 384 128
doneat 11 504 13 512 128
doneat 12 505 3 640 128
SPEC
run "access pattern, split I/Os" 0 '' -- -P --access-pattern -p "$aps" -f csv
[ "$(sed -n 2p "$tmp/out" | cut -d, -f10-)" = "block,write,6,393216,5,1,0" ] ||
	fail "access pattern, split I/Os: '$(cat "$tmp/out")'"
# writes at 0, 8, 16, 24, the one at 8 never completed: judged where it
# was submitted, not at the end where --io lists it (3 of 4 sequential,
# not 2); with a latency filter, which leaves it out, 1 of 3
apl=$tmp/pattern-lost
mkdir "$apl"
echo "$summary_ok" >"$apl/octf.summary"
mkios "$apl/octf.trace.0" <<'SPEC'
io 1 100 1 0 8
done 2 150 1
io 3 200 2 8 8
io 4 300 3 16 8
done 5 350 3
io 6 400 4 24 8
done 7 450 4
SPEC
run_match "access pattern, never completed" 0 'never completed' -- -P --access-pattern -p "$apl" -f csv
[ "$(sed -n 2p "$tmp/out" | cut -d, -f10-)" = "block,write,4,16384,3,1,0" ] ||
	fail "access pattern, never completed: '$(cat "$tmp/out")'"
run_match "access pattern, never completed, latency filter" 0 'never completed' -- -P --access-pattern -p "$apl" -f csv --min-latency 0ns
[ "$(sed -n 2p "$tmp/out" | cut -d, -f10-)" = "block,write,3,12288,1,2,0" ] ||
	fail "access pattern, never completed, latency filter: '$(cat "$tmp/out")'"

# --- --hit-ratio-curve: LRU stack distances of 4 KiB blocks (8 sectors) ---
# writes: block 0, blocks 1 and 2 (all cold); reads: block 0 (distance 3),
# blocks 0 and 1 (1 and 3); a discard of block 2; a write of block 2
# (cold again); a read of block 1 (2). Reads hit 1, 2, 4 of 4 in caches of
# 1, 2, 4 blocks; writes none; at most 3 blocks cached at once
hr=$tmp/hit-ratio
mkdir "$hr"
echo "$summary_ok" >"$hr/octf.summary"
mkios "$hr/octf.trace.0" <<'SPEC'
io 1 100 1 0 8
io 2 200 2 8 16
io 3 300 3 0 8 1
io 4 400 4 4 8 1
io 5 500 5 16 8 3
io 6 600 6 16 8
io 7 700 7 8 8 1
done 8 800 1
done 9 800 2
done 10 800 3
done 11 800 4
done 12 800 5
done 13 800 6
done 14 800 7
SPEC
run "hit ratio, csv" 0 '' -- -P --hit-ratio-curve -p "$hr" -f csv
[ "$(tr '\n' ' ' <"$tmp/out")" = "device.id,device.name,operation,cacheSize,accesses,hits,hitRatio 8388608,,read,4096,4,1,0.25 8388608,,read,8192,4,2,0.5 8388608,,read,16384,4,4,1 8388608,,write,4096,4,0,0 8388608,,write,8192,4,0,0 8388608,,write,16384,4,0,0 8388608,,total,4096,8,1,0.125 8388608,,total,8192,8,2,0.25 8388608,,total,16384,8,4,0.5 " ] ||
	fail "hit ratio, csv: '$(cat "$tmp/out")'"
run "hit ratio, json" 0 '' -- -P --hit-ratio-curve -p "$hr"
[ "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["hitRatioCurve"][0]
print(d["desc"]["device"]["id"], d["lineSize"], d["workset"], d["notSimulated"], d["duration"])
for op in ("read", "write", "total"):
    print(op, d[op]["accesses"], d[op]["coldMisses"],
          *("%s:%s:%s" % (c["cacheSize"], c["hits"], c["hitRatio"]) for c in d[op]["curve"]))' "$tmp/out" | tr '\n' '|')" = "8388608 4096 12288 0 700|read 4 0 4096:1:0.25 8192:2:0.5 16384:4:1|write 4 4 4096:0:0 8192:0:0 16384:0:0|total 8 4 4096:1:0.125 8192:2:0.25 16384:4:0.5|" ] ||
	fail "hit ratio, json: '$(cat "$tmp/out")'"
run "hit ratio, table" 0 '' -- -P --hit-ratio-curve -p "$hr" -f table
[ "$(sed -n '3p;6,8p' "$tmp/out" | tr -s ' ' | tr '\n' '|')" = "4 KiB lines accessed: 4 reads, 4 writes (cold: 0, 4); workset 12 KiB|4 KiB 25.00 0.00 12.50|8 KiB 50.00 0.00 25.00|16 KiB 100.00 0.00 50.00|" ] ||
	fail "hit ratio, table: '$(cat "$tmp/out")'"
# a filter first: the cache sees only the I/Os it keeps, from the first
# read on (reads: block 0 cold, then 0 and 1 (distance 1, cold), then 1
# (2, the write of block 2 between))
run "hit ratio, filtered" 0 '' -- -P --hit-ratio-curve -p "$hr" -f csv --from 0.0000002
[ "$(grep ',read,' "$tmp/out" | tr '\n' ' ')" = "8388608,,read,4096,4,1,0.25 8388608,,read,8192,4,2,0.5 8388608,,read,16384,4,2,0.5 " ] ||
	fail "hit ratio, filtered: '$(cat "$tmp/out")'"
run "hit ratio, nothing left" 0 '' -- -P --hit-ratio-curve -p "$hr" -f table --from 1
[ "$(cat "$tmp/out")" = "no read or write I/O in this trace matches the filters" ] ||
	fail "hit ratio, nothing left: '$(cat "$tmp/out")'"
# 8 KiB lines (16 sectors): writes line 0 (cold), lines 0 (1) and 1 (cold);
# reads line 0 (2), line 0 (1); a discard of line 1; a write of it (cold);
# a read of line 0 (2)
run "hit ratio, 8 KiB lines" 0 '' -- -P --hit-ratio-curve -p "$hr" -f csv --cache-line-size 8
[ "$(sed 1d "$tmp/out" | cut -d, -f3- | tr '\n' ' ')" = "read,8192,3,1,0.3333333333333333 read,16384,3,3,1 write,8192,4,1,0.25 write,16384,4,1,0.25 total,8192,7,2,0.2857142857142857 total,16384,7,4,0.5714285714285714 " ] ||
	fail "hit ratio, 8 KiB lines: '$(cat "$tmp/out")'"
for bad in 2 12 128 0x8 ''; do
	run "hit ratio, line size '$bad'" 2 "iotrace: invalid value '$bad' for --cache-line-size: expected 4, 8, 16, 32 or 64 (KiB)" -- -P --hit-ratio-curve -p "$hr" --cache-line-size "$bad"
done
run "line size, other view" 2 "iotrace: --cache-line-size goes with --hit-ratio-curve only" -- -P --statistics -p "$hr" --cache-line-size 8

# reads of blocks 0, 1, 0, the read of block 1 never completed: in a
# cache of one block the second read of 0 misses, as block 1 came
# between (in submission order, not at the end where --io lists it)
hrl=$tmp/hit-ratio-lost
mkdir "$hrl"
echo "$summary_ok" >"$hrl/octf.summary"
mkios "$hrl/octf.trace.0" <<'SPEC'
io 1 100 1 0 8 1
done 2 150 1
io 3 200 2 8 8 1
io 4 300 3 0 8 1
done 5 350 3
SPEC
run_match "hit ratio, never completed" 0 'never completed' -- -P --hit-ratio-curve -p "$hrl" -f csv
[ "$(grep '^8388608,,read,' "$tmp/out" | cut -d, -f4-6 | tr '\n' ' ')" = "4096,3,0 8192,3,1 " ] ||
	fail "hit ratio, never completed: '$(cat "$tmp/out")'"

# --- a view of what the trace does not have: empty, or no call counted,
# and a note that says what is missing; exit 0 all the same
# $j: an Open-CAS summary (no tag of ours), no VFS call, no file
# metadata, no process; the notes come after the join's warnings
run "no vfs, vfs" 0 "$counted
iotrace: this trace has no VFS records (Open-CAS's traces have none)" -- -P --vfs -p "$j"
[ -s "$tmp/out" ] && fail "no vfs, vfs: printed '$(head -c 100 "$tmp/out")'"
run "no metadata, fs-statistics" 0 "$counted
iotrace: this trace has no file metadata: none of its 3 I/Os is attributed to a file (no file system mounted on the traced devices?)" -- -P --fs-statistics -p "$j"
run "no metadata, file filter" 0 "$filtered
iotrace: this trace has no file metadata: none of its 3 I/Os is attributed to a file (no file system mounted on the traced devices?)" -- -P --io --file '/*' -p "$j"
[ -s "$tmp/out" ] && fail "no metadata, file filter: printed '$(head -c 100 "$tmp/out")'"
run "no process, pid" 0 "$filtered_counted
iotrace: no I/O in this trace names its process (Open-CAS's traces do not): --pid matches none" -- -P --statistics --pid 7 -p "$j"
run "no process, comm" 0 "$filtered
iotrace: no I/O in this trace names its process (Open-CAS's traces do not): --comm matches none" -- -P --io --comm fio -p "$j"
run "no process, cgroup" 0 "$filtered_counted
iotrace: no I/O in this trace names its process (Open-CAS's traces do not): --cgroup matches none" -- -P --latency-histogram --cgroup 1 -p "$j"
# ours, taken without --vfs, then with it and no call on the traced files
nv=$tmp/no-vfs
cp -r "$j" "$nv"
printf '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"iotraceVersion": "0.1.0", "options": "--time 5"}}\n' >"$nv/octf.summary"
run "ours, no vfs" 0 "$counted
iotrace: this trace has no VFS records (was it taken with --vfs?)" -- -P --vfs -p "$nv"
run "ours, no vfs, process statistics" 0 "$counted
iotrace: this trace has no VFS records (was it taken with --vfs?): no call is counted" -- -P --process-statistics -p "$nv"
run "ours, no vfs, file statistics" 0 "$counted
iotrace: this trace has no VFS records (was it taken with --vfs?): no call is counted
iotrace: this trace has no file metadata: none of its 3 I/Os is attributed to a file (no file system mounted on the traced devices?)" -- -P --file-statistics -p "$nv"
[ "$(cat "$tmp/out")" = "{
 \"files\": []
}" ] || fail "ours, no vfs, file statistics: '$(cat "$tmp/out")'"
printf '{"state": "COMPLETE", "droppedEvents": "0", "tags": {"iotraceVersion": "0.1.0", "options": "--vfs --time 5"}}\n' >"$nv/octf.summary"
run "ours, vfs, no call" 0 "$counted
iotrace: this trace has no VFS records (its tracer recorded no call on the traced files)" -- -P --vfs -p "$nv"
# a filter that leaves nothing of what the trace has is no news
run "vfs, filter leaves nothing" 0 '' -- -P --vfs --pid 999 -p "$v"
[ -s "$tmp/out" ] && fail "vfs, filter leaves nothing: printed '$(head -c 100 "$tmp/out")'"

# noted LABEL TRACE VIEW NOTES: VIEW (one or two words) on TRACE, a copy
# of $v with another summary, says the lines NOTES ('' = none) before
# what it says on $v, and exits and prints as it does there
noted() {
	local label=$1 trace=$2 view=$3 notes=$4 rc rc2
	# shellcheck disable=SC2086 # view: one or two words
	"$bin" -P $view -p "$v" >"$tmp/plain.out" 2>"$tmp/plain.err"
	rc=$?
	# shellcheck disable=SC2086
	"$bin" -P $view -p "$trace" >"$tmp/noted.out" 2>"$tmp/noted.err"
	rc2=$?
	{
		[ -n "$notes" ] && echo "$notes"
		cat "$tmp/plain.err"
	} >"$tmp/want.err"
	cmp -s "$tmp/want.err" "$tmp/noted.err" ||
		fail "$label, $view: stderr '$(cat "$tmp/noted.err")', want '$(cat "$tmp/want.err")'"
	[ $rc2 -eq $rc ] || fail "$label, $view: exit $rc2, want $rc"
	cmp -s "$tmp/plain.out" "$tmp/noted.out" || fail "$label, $view: the output changed"
}

# --- what the tracer was told to leave out (summary tags.options): a note
# on the views that would otherwise seem to show it all; nothing else changes
o=$tmp/vfs-options
cp -r "$v" "$o"
cat >"$o/octf.summary" <<'JSON'
{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "0",
 "tags": {"options": "--vfs --pids 101 --paths '/data/*' --no-file-events --time 60"}}
JSON
calls_note="iotrace: this trace holds only the calls its tracer was told to keep (--pids 101 --paths '/data/*'); other calls on the traced files are not in it"
files_note="iotrace: this trace was taken with --no-file-events: it has no Create, Delete or Move events, and renamed files keep their first names"
for case in "--vfs:calls files" "--file-statistics:calls files" "--process-statistics:calls" \
	"--io:files" "--fs-statistics:files" "--statistics:" "--time-series:" "--latency-histogram:" \
	"--io --raw:"; do
	notes=
	[[ ${case#*:} == *calls* ]] && notes=$calls_note
	[[ ${case#*:} == *files* ]] && notes+=${notes:+$'\n'}$files_note
	noted "options note" "$o" "${case%%:*}" "$notes"
done

# --- what the trace's kernel did not let its tracer follow (summary
# tags.notFollowed): a note on the views that would show it, each naming
# what it lacks (words of a newer tracer as they are); nothing else changes
nf=$tmp/not-followed
cp -r "$v" "$nf"
cat >"$nf/octf.summary" <<'JSON'
{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "0",
 "tags": {"iotraceVersion": "0.1.0", "notFollowed": "io_uring-vfs,move,io_uring-files,delete,fanotify"}}
JSON
nf_files="Delete and Move events; io_uring's opens, unlinks and renames (their Create, Delete and Move events)"
nf_vfs="io_uring requests' --vfs records"
for case in "--vfs:$nf_files; $nf_vfs" "--file-statistics:$nf_files; $nf_vfs" \
	"--process-statistics:$nf_vfs" "--io:$nf_files" "--fs-statistics:$nf_files" "--statistics:" \
	"--time-series:" "--io --raw:"; do
	notes=
	[ -n "${case#*:}" ] && notes="iotrace: this trace's tracer had no way to follow these: ${case#*:}; fanotify; any such event is missing from this trace, and not counted"
	noted "notFollowed note" "$nf" "${case%%:*}" "$notes"
done

# --- a FIFO where a file read whole is expected: said, never waited on ---
ff=$tmp/fifo-summary
cp -r "$t" "$ff"
rm "$ff/octf.summary"
mkfifo "$ff/octf.summary"
# by_name LABEL WANT_EXIT WANT_STDERR ARGS...: as run, within 20 s
by_name() {
	local name=$1 want_rc=$2 want_err=$3 rc
	shift 3
	timeout 20 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want_rc" ] && [ "$(cat "$tmp/err")" = "$want_err" ] ||
		fail "$name: exit $rc, want $want_rc; stderr '$(cat "$tmp/err")', want '$want_err'"
}
by_name "summary a FIFO, statistics" 3 "iotrace: warning: cannot read the trace's octf.summary (not a regular file): lost or missing events cannot be ruled out; output may be partial" -P --statistics -p "$ff"
by_name "summary a FIFO, -M -G" 1 "iotrace: cannot read the summary of trace '$ff': not a regular file" -M -G -p "$ff"
mkfifo "$tmp/config.fifo"
IOTRACE_CONFIG=$tmp/config.fifo by_name "config a FIFO" 0 "iotrace: warning: cannot read $tmp/config.fifo: not a regular file; using /var/lib/iotrace" -C -G
[ "$(cat "$tmp/out")" = '{"path":"/var/lib/iotrace"}' ] || fail "config a FIFO: printed '$(cat "$tmp/out")'"

if [ $fails -ne 0 ]; then
	echo "parser_cli: $fails failure(s)" >&2
	exit 1
fi
echo "parser_cli: ok"
