#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a failing wait for records does not end the
# trace, and one that never recovers ends it with what was recorded kept.
#
#   usage: tests/integration/poll_failure.sh PATH/TO/iotrace PATH/TO/poll_fail.so
#
# poll_fail.so (poll_fail.c, preloaded) makes the collector's poll() fail
# while a file exists. A loop device gets direct 4 KiB reads in batches:
#   1. poll() fails with 516 (ERESTART_RESTARTBLOCK, what a debugger's
#      call into the collector made it return) for 1 s, during a batch:
#      the tracer says so once, runs on, stops with exit 0, and every read
#      of the three batches is in the trace with its completion;
#   2. poll() fails with ENOMEM from a point on: the reads made while it
#      fails still reach the trace, and 10 s on the tracer ends by itself
#      with one error line and a non-zero exit; the trace parses with all
#      of them.
#
# Needs root, BTF, loop devices and dd; a missing one is a failure, not a
# skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

BIN=$(realpath -e "$1") || { echo "FAIL: no binary at '${1:-}'" >&2; exit 1; }
SHIM=$(realpath -e "${2:-}") || { echo "FAIL: no poll_fail.so at '${2:-}'" >&2; exit 1; }
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup dd

iotrace_loop_test poll_failure 64M
FAILING=$T/failing
BATCH=50

# reads BATCH_NO: BATCH direct 4 KiB reads, at offsets of their own
reads() {
	dd if="$LOOP" of=/dev/null bs=4k count=$BATCH skip=$(($1 * BATCH)) iflag=direct status=none ||
		die "dd batch $1"
}

# completed TRACE: I/Os of the trace with a latency (their completion)
completed() {
	"$BIN" -P --io -f csv -p "$1" 2>"$T/perr" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "io.latency") l = i; next }
			$l != "" { n++ } END { print n + 0 }'
}

# start ERRNO: a tracer whose poll() fails with ERRNO while $FAILING exists
start() {
	rm -f "$FAILING"
	LD_PRELOAD=$SHIM IOTRACE_TEST_POLL_FAIL_WHILE=$FAILING IOTRACE_TEST_POLL_ERRNO=$1 \
		"$BIN" --start-tracing --devices "$DEV" >"$T/out" 2>"$T/err" &
	TRACER_PID=$!
	iotrace_wait_running "$BIN" "$TRACER_PID" "$T/repo" || die "tracer did not start: $(cat "$T/err")"
}

# 1. a second of failures, then none
start 516
reads 0
touch "$FAILING"
reads 1
sleep 1
rm -f "$FAILING"
reads 2
sleep 0.5
kill -0 "$TRACER_PID" 2>/dev/null && ok "516 for 1 s: the tracer runs on" ||
	fail "516 for 1 s: the tracer ended: $(cat "$T/err")"
kill -INT "$TRACER_PID" 2>/dev/null
iotrace_wait_exit "$TRACER_PID" 30 || fail "516: tracer still running 30 s after SIGINT"
wait "$TRACER_PID"
rc=$?
TRACER_PID=
check "516: exit 0 (got $rc)" [ "$rc" = 0 ]
said=$(grep -c 'waiting for records failed' "$T/err")
check "516: said once ($said times): $(grep -m1 'waiting for records failed' "$T/err")" [ "$said" = 1 ]
n=$(completed "$T/repo/$TRACE")
check "516: all $((3 * BATCH)) reads in the trace, completed (got $n)" [ "$n" = $((3 * BATCH)) ]
"$BIN" -M -R -p "$TRACE" >/dev/null 2>&1

# 2. failures from a point on
start 12
reads 0
touch "$FAILING"
t0=$(date +%s)
reads 1
iotrace_wait_exit "$TRACER_PID" 30 || fail "ENOMEM: tracer still running 30 s on"
wait "$TRACER_PID"
rc=$?
TRACER_PID=
took=$(($(date +%s) - t0))
check "ENOMEM for good: non-zero exit (got $rc)" [ "$rc" != 0 ]
in_time=$([ "$took" -ge 9 ] && [ "$took" -le 15 ] && echo yes)
check "ENOMEM for good: ended 10-15 s on (took $took s)" [ "$in_time" = yes ]
msg=$(grep 'waiting for records failed for' "$T/err")
check "ENOMEM for good: the error line says why: $msg" \
	grep -q 'waiting for records failed for 10 s on end: Cannot allocate memory' "$T/err"
n=$(completed "$T/repo/$TRACE")
check "ENOMEM for good: both batches in the trace, completed (got $n)" [ "$n" = $((2 * BATCH)) ]
state=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" state)
check "ENOMEM for good: the summary's state ERROR (got '$state')" [ "$state" = ERROR ]
check "ENOMEM for good: the summary says why it stopped" \
	grep -q '"stopReason": "read error"' "$T/repo/$TRACE/octf.summary"
finish
