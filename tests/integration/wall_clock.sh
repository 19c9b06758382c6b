#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a trace says when its events happened, and the
# parser's --from/--to take the times a log has.
#
#   usage: tests/integration/wall_clock.sh PATH/TO/iotrace
#
# A raw loop device gets three direct 4 KiB reads, 0.3 s apart, at LBAs
# 800, 1600 and 2400, each between two readings of the wall clock. Then:
#   - the summary's tags.timestampOrigin is a UTC time between the
#     tracer's launch and the moment its trace was listed RUNNING;
#   - each read's timestampOrigin + header.timestamp lies between the two
#     readings around it (within 1 ms);
#   - --from/--to as dated UTC times around the second read, and as local
#     times of day (TZ=CET-1) around it, give that read and neither other;
#   - --io --wall-clock prints each record's header.wallClock, which is
#     timestampOrigin + header.timestamp to the ns;
#   - tags.timestampOriginClock is the timestamp of sid 1, the device's
#     description, which header.timestamp counts from.
#
# Needs root, BTF, loop devices, dd, date and python3; a missing one is a
# failure, never a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup dd date python3
iotrace_loop_test wallclock 64M
udevadm settle 2>/dev/null

launched=$(date +%s%N)
"$BIN" -S -d "$DEV" >"$T/out" 2>"$T/err" &
TRACER_PID=$!
iotrace_wait_running "$BIN" "$TRACER_PID" "$IOTRACE_TRACE_DIR" || die "tracer did not start: $(cat "$T/err")"
running=$(date +%s%N)
for i in 1 2 3; do
	echo "$(date +%s%N) $(dd if="$LOOP" of=/dev/null bs=4k count=1 skip=$((100 * i)) iflag=direct \
		status=none && date +%s%N)" >>"$T/reads"
	sleep 0.3
done
iotrace_test_stop_tracer "" "$T/out" "$T/err"

trace=$IOTRACE_TRACE_DIR/$TRACE
"$BIN" -P --io -f csv -p "$trace" >"$T/io.csv" 2>"$T/parse.err" || fail "the parser failed: $(cat "$T/parse.err")"
python3 - "$trace/octf.summary" "$T/io.csv" "$T/reads" "$launched" "$running" >"$T/check.out" <<'EOF'
import calendar, csv, json, re, sys

summary, io_csv, reads, launched, running = sys.argv[1:4] + [int(x) for x in sys.argv[4:6]]


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


origin_text = json.load(open(summary)).get("tags", {}).get("timestampOrigin", "")
m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z", origin_text)
say(m is not None, "the summary's timestampOrigin is a UTC time ('%s')" % origin_text)
if not m:
    sys.exit(0)
origin = calendar.timegm(tuple(int(x) for x in m.groups()[:6])) * 10**9
origin += int((m.group(7) or "0").ljust(9, "0"))
say(launched <= origin <= running,
    "it is between the tracer's launch and RUNNING (%+.3f ms, %+.3f ms)"
    % ((origin - launched) / 1e6, (origin - running) / 1e6))

at = {}
for r in csv.DictReader(open(io_csv)):
    if r["io.operation"] == "Read" and r["io.len"] == "8":
        at.setdefault(int(r["io.lba"]), origin + int(r["header.timestamp"]))
for i, line in enumerate(open(reads), 1):
    before, after = (int(x) for x in line.split())
    t = at.get(800 * i)
    say(t is not None and before - 10**6 <= t <= after + 10**6,
        "read %d: its wall-clock time is between the readings around it (%s)"
        % (i, "none" if t is None else "%+.3f ms after the first" % ((t - before) / 1e6)))
EOF
iotrace_test_relay "$T/check.out" $? "the wall-clock check"

# WINDOW LABEL FROM TO [ENV...]: --io between FROM and TO, the LBAs of its reads
window() {
	local label=$1 from=$2 to=$3
	shift 3
	env "$@" "$BIN" -P --io -f csv -p "$trace" --from "$from" --to "$to" 2>"$T/w.err" |
		python3 -c '
import csv, sys
print(" ".join(r["io.lba"] for r in csv.DictReader(sys.stdin) if r["io.operation"] == "Read"))' >"$T/w.out"
	check "$label: --from $from --to $to gives the second read only ($(cat "$T/w.out"))" \
		[ "$(cat "$T/w.out")" = 1600 ]
	[ -s "$T/w.err" ] && sed 's/^/      stderr: /' "$T/w.err"
}
read -r before after < <(sed -n 2p "$T/reads")
window "UTC" "$(TZ=UTC date -d "@${before:0:-9}.${before: -9}" +%Y-%m-%dT%H:%M:%S.%NZ)" \
	"$(TZ=UTC date -d "@${after:0:-9}.${after: -9}" +%Y-%m-%dT%H:%M:%S.%NZ)"
window "local time of day" "$(TZ=CET-1 date -d "@${before:0:-9}.${before: -9}" +%H:%M:%S.%N)" \
	"$(TZ=CET-1 date -d "@${after:0:-9}.${after: -9}" +%H:%M:%S.%N)" TZ=CET-1

"$BIN" -P --io -f csv --wall-clock -p "$trace" >"$T/wall.csv" 2>"$T/parse.err" ||
	fail "--wall-clock: the parser failed: $(cat "$T/parse.err")"
python3 - "$trace/octf.summary" "$T/wall.csv" >"$T/wall.out" <<'EOF'
import calendar, csv, json, re, sys


def ns_of(text):
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z", text)
    return calendar.timegm(tuple(int(x) for x in m.groups()[:6])) * 10**9 + \
        int((m.group(7) or "0").ljust(9, "0"))


origin = ns_of(json.load(open(sys.argv[1]))["tags"]["timestampOrigin"])
rows = list(csv.DictReader(open(sys.argv[2])))
bad = [r["header.sid"] for r in rows
       if ns_of(r["header.wallClock"]) != origin + int(r["header.timestamp"])]
print(("ok: " if rows and not bad else "FAIL: ") +
      "--wall-clock: each of %d records' header.wallClock is the origin + its timestamp (%s)"
      % (len(rows), bad[:3]))
EOF
iotrace_test_relay "$T/wall.out" $? "the --wall-clock check"

# the events' clock at the origin: the device description's timestamp,
# which header.timestamp counts from when it is lost
first=$("$BIN" -P --io --raw -p "$trace" 2>/dev/null | head -1 | python3 -c '
import json, sys
e = json.loads(sys.stdin.readline())
print(e["header"]["timestamp"] if e["header"]["sid"] == "1" and "deviceDescription" in e else "")')
clock=$(iotrace_json_get "$trace/octf.summary" tags timestampOriginClock)
check "the summary's timestampOriginClock ($clock) is the device description's timestamp (${first:-none})" \
	[ "${clock:-none}" = "${first:-missing}" ]

finish
