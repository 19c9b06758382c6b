#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a stopping tracer does not wait without end for
# an I/O that does not complete.
#
#   usage: tests/integration/stop_stuck.sh PATH/TO/iotrace
#
# The traced device is a loop device over a file on ext4 (itself on a
# loop device); freezing that ext4 (fsfreeze) holds every write to the
# traced device until it is thawed. Two tracers are stopped with such a
# write in flight:
#   1. nothing completed before: the tracer gives up on the write after
#      its least patience (0.1 s), exits 0 at once, and the trace holds
#      the write as never completed;
#   2. a write held 2 s completed before, which makes the patience the
#      longest (5 s): a second SIGINT, 1 s into the wait, ends it.
# Timing bounds are wide (the stop itself takes about 0.6 s).
#
# Needs root, BTF, loop devices, mkfs.ext4, fsfreeze and python3; a missing
# one is a failure, never a skip. Everything set up is torn down at exit,
# also on failure, the file system thawed first.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, fsfreeze, BPF" \
	losetup mkfs.ext4 mount umount fsfreeze dd python3
iotrace_require_loop

iotrace_fs_test_start stop-stuck "traces"
INNER=
WRITER=
iotrace_test_undo() {
	[ -n "$MNT" ] && fsfreeze -u "$MNT" 2>/dev/null
	iotrace_kill_wait "$WRITER"
	[ -n "$INNER" ] && losetup -d "$INNER"
}

iotrace_quiet_ext4 256M stop-stuck "$T" || die "$SETUP_ERR"
truncate -s 64M "$MNT/inner.img"
INNER=$(losetup -f --show "$MNT/inner.img") || { INNER=; die "losetup on ext4 failed"; }
IN=${INNER#/dev/}

# held_write: a 4 KiB direct write to the inner device, in the
# background (WRITER), that waits while the ext4 below is frozen
held_write() {
	dd if=/dev/zero of="$INNER" bs=4k count=1 seek="$1" oflag=direct status=none &
	WRITER=$!
}

now() { date +%s.%N; }
# seconds from $1 to $2, as a float
secs() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
under() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$1" "$2"; }

# wait_exit SECONDS: waits for the tracer; sets RC, or fails after SECONDS
wait_exit() {
	for _ in $(seq $(($1 * 10))); do
		kill -0 "$TRACER_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$TRACER_PID" 2>/dev/null; then
		fail "tracer still running $1 s after the signal"
		kill -KILL "$TRACER_PID"
	fi
	wait "$TRACER_PID"
	RC=$?
	TRACER_PID=
}

echo "# 1: nothing completed before the stuck write"
iotrace_test_start_tracer "1: " "$T/1.out" "$T/1.err" -S -d "$IN"
fsfreeze -f "$MNT" || die "fsfreeze -f $MNT failed"
held_write 1
sleep 0.5
t0=$(now)
kill -INT "$TRACER_PID"
wait_exit 20
t1=$(now)
fsfreeze -u "$MNT"
wait "$WRITER"
WRITER=
took=$(secs "$t0" "$t1")
check "1: tracer exit 0 (got $RC)" [ "$RC" = 0 ]
check "1: the stop gave up on the stuck write: took $took s (the wait is 0.1 s)" under "$took" 3
"$BIN" -P --io -f csv -p "$TRACE" >"$T/1.csv" 2>"$T/1.perr"
perr=$(cat "$T/1.perr")
check "1: the parser says the write never completed: $perr" \
	grep -q '^iotrace: warning: 1 I/Os never completed' "$T/1.perr"

echo "# 2: a second SIGINT ends the wait"
iotrace_test_start_tracer "2: " "$T/2.out" "$T/2.err" -S -d "$IN"
fsfreeze -f "$MNT" || die "fsfreeze -f $MNT failed"
held_write 2
sleep 2
fsfreeze -u "$MNT"
wait "$WRITER"
WRITER=
fsfreeze -f "$MNT" || die "fsfreeze -f $MNT failed"
held_write 3
sleep 0.5
kill -INT "$TRACER_PID"
sleep 1
t0=$(now)
kill -INT "$TRACER_PID"
wait_exit 20
t1=$(now)
fsfreeze -u "$MNT"
wait "$WRITER"
WRITER=
took=$(secs "$t0" "$t1")
check "2: tracer exit 0 (got $RC)" [ "$RC" = 0 ]
check "2: the second SIGINT ended the wait: exit $took s after it (the wait would take 5 s)" under "$took" 2.5
"$BIN" -P --io -f csv -p "$TRACE" >"$T/2.csv" 2>"$T/2.perr"
lat=$(python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("io.lba") == "16"]
print(rows[0]["io.latency"] if rows else "")' "$T/2.csv")
check "2: the write held 2 s has its latency in the trace (${lat:-none} ns)" [ "${lat:-0}" -gt 1500000000 ]
perr=$(cat "$T/2.perr")
check "2: the parser says the stuck write never completed: $perr" \
	grep -q '^iotrace: warning: 1 I/Os never completed' "$T/2.perr"

finish
