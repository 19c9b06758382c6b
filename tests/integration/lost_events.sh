#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: events the kernel buffers had no room for.
#
#   usage: tests/integration/lost_events.sh PATH/TO/iotrace
#
# A loop device is traced with the smallest buffer (--buffer 1) while
# direct writes run flat out (fio), and the tracer is stopped (SIGSTOP)
# until the device has done 40,000 writes, or for 5 s at most if 20,000
# (40,000 records, twice what the rings hold) are done by then, so that
# its per-CPU rings overflow however fast the machine is. Expected: the loss is never
# silent. The tracer exits 3 with one warning line giving the count per
# CPU and the longest gap between reads in which events were lost: at
# least the time it was stopped, and less than an earlier, longer stop
# while the device was idle, which lost nothing. The summary's droppedEvents is that count and the sum of its
# per-CPU list; and it is exactly what the sids say is missing: on a raw device every
# record takes one sid, so the highest sid is the device descriptions plus
# the events on disk plus the lost ones. The parser reads the trace, warns
# with the same count and exits 3.
#
# Needs root, BTF, loop devices and fio; a missing one is a failure, not a skip.
# Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

BIN=$(realpath -e "$1") || { echo "FAIL: no binary at '${1:-}'" >&2; exit 1; }
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" fio

T=$(mktemp -d /tmp/iotrace-lost.XXXXXX)
IMG=
LOOP=
TRACER=
WRITER=
cleanup() {
	[ -n "$TRACER" ] && kill -CONT "$TRACER" 2>/dev/null
	# the writer holds the loop device open: let it end before detaching
	[ -n "$WRITER" ] && kill -INT "$WRITER" && wait "$WRITER" 2>/dev/null
	iotrace_stop "$TRACER"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$T" "$IMG"
}
trap cleanup EXIT

iotrace_shm_loop 64M || die "losetup"

"$BIN" --start-tracing --devices "$(basename "$LOOP")" --buffer 1 >"$T/out" 2>"$T/err" &
TRACER=$!
iotrace_wait_running "$BIN" "$TRACER" "$T/repo" || die "tracer did not start: $(cat "$T/err")"

# a gap between reads longer than the lossy one below (at most 5 s), with
# nothing to lose; the gap the warning gives for that one also holds the
# collector's last 100 ms before it and its way back after it, which took
# 0.44 s on a loaded CI machine
IDLE_STOP_MS=8000
kill -STOP "$TRACER"
sleep $((IDLE_STOP_MS / 1000))
kill -CONT "$TRACER"

# O_DIRECT writes of 4 KiB, 32 at a time, each a block I/O, until stopped
fio --name=lost --filename="$LOOP" --direct=1 --ioengine=libaio --iodepth=32 --rw=randwrite \
	--bs=4k --thread --time_based --runtime=120 --output=/dev/null >/dev/null 2>&1 &
WRITER=$!
sleep 0.5
# The tracer stays stopped until the device has completed enough writes to
# fill the rings many times over (each takes two records, 2 MiB is 20k
# records and more), however fast this machine does them: 40,000, or after
# 5 s, 20,000, within 60 s.
kill -STOP "$TRACER"
stopped_at=$(date +%s%N)
writes() { awk '{ print $5 }' "/sys/block/$(basename "$LOOP")/stat"; }
w0=$(writes)
for i in $(seq 600); do
	n=$(($(writes) - w0))
	[ "$n" -ge 40000 ] && break
	[ "$i" -ge 50 ] && [ "$n" -ge 20000 ] && break
	sleep 0.1
done
done_writes=$(($(writes) - w0))
# measured inside the stop (before the SIGCONT): at most what the collector saw
stopped_ms=$((($(date +%s%N) - stopped_at) / 1000000))
kill -CONT "$TRACER"
note "$done_writes writes while the tracer was stopped ($stopped_ms ms)"
[ "$done_writes" -ge 20000 ] || fail "only $done_writes writes in 60 s with the tracer stopped; the rings may not overflow"
sleep 0.5
kill -INT "$WRITER"
wait "$WRITER" 2>/dev/null
WRITER=
kill -INT "$TRACER"
wait "$TRACER"
rc=$?
TRACER=

[ "$rc" -eq 3 ] && ok "tracer exit status 3" || fail "tracer exit status $rc, want 3: $(cat "$T/err")"
lost=$(sed -n 's/^iotrace: warning: \([0-9]*\) events\{0,1\} \(was\|were\) lost (per CPU: .*/\1/p' "$T/err")
if [ "$(wc -l <"$T/err")" -eq 1 ] && [ -n "$lost" ] && [ "$lost" -gt 0 ]; then
	ok "one warning line: $lost events lost"
else
	fail "stderr: $(cat "$T/err")"
fi
# the events were lost while the tracer was stopped: the warning gives that gap, not the idle one
gap=$(sed -n 's/.*the buffers overflowed, in gaps between reads of up to \([0-9.]*\) ms (the longest write of the trace took \([0-9.]*\) ms); try a larger --buffer$/\1/p' "$T/err")
if [ "$stopped_ms" -ge "$IDLE_STOP_MS" ]; then
	fail "the lossy stop ($stopped_ms ms) was not shorter than the idle one ($IDLE_STOP_MS ms): cannot tell them apart"
elif [ -n "$gap" ] && awk -v g="$gap" -v s="$stopped_ms" -v i="$IDLE_STOP_MS" 'BEGIN { exit !(g >= s && g < i) }'; then
	ok "the warning gives the $gap ms gap of the loss (stopped for $stopped_ms ms; idle stop of $IDLE_STOP_MS ms not blamed)"
else
	fail "warning without the lossy gap of at least $stopped_ms ms, under the idle $IDLE_STOP_MS ms: $(cat "$T/err")"
fi

trace=$T/repo/$TRACE
dropped=$(iotrace_json_get "$trace/octf.summary" droppedEvents)
per_cpu=$(iotrace_json_get "$trace/octf.summary" tags droppedEventsPerQueue)
traced=$(iotrace_json_get "$trace/octf.summary" tracedEvents)
[ "$dropped" = "$lost" ] && ok "summary droppedEvents = the warning's count ($dropped)" ||
	fail "summary droppedEvents '$dropped', warning said '$lost'"
sum=$(echo "$per_cpu" | tr ',' '\n' | awk '{ s += $1 } END { print s + 0 }')
grep -q "(per CPU: $per_cpu)" "$T/err" && ok "the warning gives the same per-CPU counts" ||
	fail "warning: $(cat "$T/err"); summary per CPU: $per_cpu"
[ "$sum" = "$dropped" ] && ok "droppedEventsPerQueue ($per_cpu) sums to droppedEvents" ||
	fail "droppedEventsPerQueue '$per_cpu' sums to $sum, droppedEvents $dropped"
[ "$(echo "$per_cpu" | tr ',' '\n' | wc -l)" = "$(nproc)" ] && ok "one count per CPU" ||
	fail "droppedEventsPerQueue '$per_cpu' for $(nproc) CPUs"

"$BIN" -P --io --raw -f csv -p "$trace" >"$T/events.csv" 2>"$T/perr"
prc=$?
[ "$prc" -eq 3 ] && ok "parser exit status 3" || fail "parser exit status $prc, want 3: $(cat "$T/perr")"
if [ "$(wc -l <"$T/perr")" -eq 1 ] &&
	grep -qE "^iotrace: warning: $dropped events? (was|were) lost while tracing" "$T/perr"; then
	ok "parser warns once with the same count"
else
	fail "parser stderr: $(cat "$T/perr")"
fi
# header line; then sid first. Device descriptions carry deviceDescription.id.
read -r events max_sid descs < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "deviceDescription.id") d = i; next }
	{ n++; if ($1 > m) m = $1; if ($d != "") k++ } END { print n, m, k }' "$T/events.csv")
[ "$events" = "$traced" ] && ok "events on disk = tracedEvents ($traced)" ||
	fail "$events events on disk, tracedEvents $traced"
kernel=$((events - descs))
[ "$max_sid" = $((descs + kernel + dropped)) ] &&
	ok "highest sid $max_sid = $descs descriptions + $kernel events + $dropped lost" ||
	fail "highest sid $max_sid, but $descs descriptions + $kernel events + $dropped lost = $((descs + kernel + dropped))"
finish
