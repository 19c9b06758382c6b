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
#      longest (5 s): a second SIGINT, 2.5 s into the wait, ends it; the
#      summary's traceDuration leaves the wait out (it is the time traced,
#      no more than from the launch to the first SIGINT); the tracer says
#      what ended the wait, which took a second or more (a shorter one,
#      as in 1, is not said);
#   3. a write held 0.4 s completed before (patience 1.6 s): the tracer
#      gives up on the stuck write then, and says so.
# Timing bounds are wide.
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
not_said() { ! grep -q "$1" "$2"; }
# seconds from $1 to $2, as a float
secs() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
under() { python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$1" "$2"; }

# last_sigint N: stops tracer N with SIGINT (iotrace_test_stop_tracer:
# exit 0, no events lost), thaws the file system and lets the held write
# end; sets TOOK to the seconds from the signal to the exit
last_sigint() {
	local t0 t1
	t0=$(now)
	iotrace_test_stop_tracer "$1: " "$T/$1.out" "$T/$1.err"
	t1=$(now)
	fsfreeze -u "$MNT"
	wait "$WRITER"
	WRITER=
	TOOK=$(secs "$t0" "$t1")
}

# stuck_write_reported LABEL: the parser lists the held write of the
# trace just taken (TRACE) as never completed; its CSV is in $T/LABEL.csv
stuck_write_reported() {
	local perr
	"$BIN" -P --io -f csv -p "$TRACE" >"$T/$1.csv" 2>"$T/$1.perr"
	perr=$(cat "$T/$1.perr")
	check "$1: the parser says the stuck write never completed: $perr" \
		grep -q '^iotrace: warning: 1 I/O never completed' "$T/$1.perr"
}

echo "# 1: nothing completed before the stuck write"
iotrace_test_start_tracer "1: " "$T/1.out" "$T/1.err" -S -d "$IN"
fsfreeze -f "$MNT" || die "fsfreeze -f $MNT failed"
held_write 1
sleep 0.5
last_sigint 1
check "1: the stop gave up on the stuck write: took $TOOK s (the wait is 0.1 s)" under "$TOOK" 3
check "1: a wait under a second is not said" not_said "the stop" "$T/1.err"
stuck_write_reported 1

echo "# 2: a second SIGINT ends the wait"
launched=$(now)
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
ran=$(secs "$launched" "$(now)")
sleep 2.5
last_sigint 2
check "2: the second SIGINT ended the wait: exit $TOOK s after it (the wait would take 2.5 s more)" under "$TOOK" 1.5
said=$(grep "stop's wait" "$T/2.err")
check "2: the tracer says what ended its wait, after how long, and what it left: $said" \
	grep -Eq "^iotrace: a second signal ended the stop's wait for the I/Os in flight after 2\.[4-9] s; 1 had not completed" "$T/2.err"
dur=$(iotrace_json_get "$T/2.out" traceDuration)
check "2: traceDuration ${dur:-none} s leaves the stop's wait out (the tracer ran $ran s before the first SIGINT)" \
	python3 -c "import sys; sys.exit(0 if 0 <= int(sys.argv[1]) <= float(sys.argv[2]) else 1)" "${dur:--1}" "$ran"
stuck_write_reported 2
lat=$(python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("io.lba") == "16"]
print(rows[0]["io.latency"] if rows else "")' "$T/2.csv")
check "2: the write held 2 s has its latency in the trace (${lat:-none} ns)" [ "${lat:-0}" -gt 1500000000 ]

echo "# 3: the stop gives up after four times the longest latency, and says so"
iotrace_test_start_tracer "3: " "$T/3.out" "$T/3.err" -S -d "$IN"
fsfreeze -f "$MNT" || die "fsfreeze -f $MNT failed"
held_write 4
sleep 0.4
fsfreeze -u "$MNT"
wait "$WRITER"
WRITER=
fsfreeze -f "$MNT" || die "fsfreeze -f $MNT failed"
held_write 5
sleep 0.5
last_sigint 3
check "3: the stop gave up on the stuck write within 4 s: took $TOOK s (1.6 s from its submission)" under "$TOOK" 4
said=$(grep "the stop waited" "$T/3.err")
check "3: the tracer says it gave up, on how many, after how long: $said" \
	grep -Eq "^iotrace: the stop waited [12]\.[0-9] s for the I/Os in flight, and gave up on 1 in flight for (1\.[6-9]|2\.[0-4]) s" "$T/3.err"
stuck_write_reported 3

finish
