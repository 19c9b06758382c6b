#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a traced device that goes away or gets another
# medium is said, its I/O on another medium is left out, and once no
# traced device is left the trace ends by itself.
#
#   usage: tests/integration/device_gone.sh PATH/TO/iotrace
#
# Two loop devices A and B are traced; each gets 10 direct 4 KiB writes
# at sector 0. Then:
#   1. A is detached: the tracer says A lost its medium. A is attached
#      again to another file and written at sector 8000, B too.
#   2. With the tracer stopped (SIGSTOP, so that only the programs can
#      tell), B is detached, attached again to another file and written at
#      sector 16000; then the tracer goes on and says B holds a new medium.
#   3. No traced device is left: the tracer ends with exit 0, stopReason
#      "devices gone" and devicesGone "A,B".
#   4. Another tracer, of a device C detached just before its stop (within
#      a round): its final summary names C in devicesGone.
# The trace holds A's first 10 writes and B's 17, each completed, none of
# the writes on the new media; the parser says which devices went away.
#
# Needs root, BTF, loop devices and a kernel with diskseq (5.15+); a
# missing one is a failure, not a skip. Everything set up is torn down at
# exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup dd python3
iotrace_require_loop

T=$(mktemp -d /tmp/iotrace-device-gone.XXXXXX) || die "mktemp"
IMGS=()
TRACER_PID=
cleanup() {
	local img loop

	[ -n "$TRACER_PID" ] && kill -CONT "$TRACER_PID" 2>/dev/null
	iotrace_stop "$TRACER_PID"
	for img in "${IMGS[@]}"; do
		for loop in $(losetup -j "$img" -O NAME -n); do
			losetup -d "$loop"
		done
		rm -f "$img"
	done
	rm -rf "$T"
}
trap cleanup EXIT

# image NAME: a 64 MiB file in /dev/shm, in IMG
image() {
	IMG=/dev/shm/$(basename "$T")-$1.img
	IMGS+=("$IMG")
	truncate -s 64M "$IMG" || die "cannot make $IMG"
}

# writes LOOP SEEK N: N direct 4 KiB writes from 4 KiB block SEEK on
writes() {
	dd if=/dev/zero of="$1" bs=4k count="$3" seek="$2" oflag=direct status=none ||
		die "dd on $1"
}

image a1
A=$(losetup -f --show "$IMG") || die "losetup"
image b1
B=$(losetup -f --show "$IMG") || die "losetup"
DA=$(basename "$A")
DB=$(basename "$B")
[ -r "/sys/block/$DA/diskseq" ] || die "this kernel has no diskseq (5.15+): cannot tell a new medium"
iotrace_temp_repository "$T/repo"
image a2
A2=$IMG
image b2
B2=$IMG

iotrace_test_start_tracer "" "$T/out" "$T/err" --start-tracing --devices "$DA,$DB"
writes "$A" 0 10
writes "$B" 0 10

losetup -d "$A" || die "losetup -d $A"
check "a detached device is said" \
	iotrace_wait_said "$T/err" "device $DA ($(cat "/sys/block/$DA/dev")) lost its medium"
losetup "$A" "$A2" || die "cannot attach $A again"
writes "$A" 1000 7
writes "$B" 1000 7

seq0=$(cat "/sys/block/$DB/diskseq")
kill -STOP "$TRACER_PID"
losetup -d "$B" || die "losetup -d $B"
losetup "$B" "$B2" || die "cannot attach $B again"
writes "$B" 2000 5
seq1=$(cat "/sys/block/$DB/diskseq")
kill -CONT "$TRACER_PID"
note "$DB diskseq $seq0 -> $seq1"
check "a device with a new medium is said" \
	iotrace_wait_said "$T/err" "device $DB ($(cat "/sys/block/$DB/dev")) holds a new medium"

iotrace_wait_exit "$TRACER_PID" 10 || die "the tracer runs on with no traced device left"
wait "$TRACER_PID"
rc=$?
TRACER_PID=
check "the tracer ends by itself with exit 0 (got $rc)" [ "$rc" = 0 ]
check "it says why" grep -qxF "iotrace: warning: no traced device is left; the trace ends" "$T/err"
sed 's/^/      stderr: /' "$T/err"
reason=$(iotrace_json_get "$T/out" tags stopReason)
check "stopReason 'devices gone' (got '$reason')" [ "$reason" = "devices gone" ]
gone=$(iotrace_json_get "$T/out" tags devicesGone)
check "devicesGone '$DA,$DB' (got '$gone')" [ "$gone" = "$DA,$DB" ]
# no --size given: Open-CAS's default limit
limit=$(iotrace_json_get "$T/out" tags sizeLimitMiB)
check "without --size, the default limit of 1000 MiB (got '$limit')" [ "$limit" = 1000 ]

"$BIN" -P --io -f csv -p "$TRACE" >"$T/io.csv" 2>"$T/perr"
rc=$?
check "the parser reads the trace (exit $rc)" [ "$rc" = 0 ]
check "the parser says which devices went away" grep -qF \
	"devices removed, emptied or given a new medium while traced: $DA,$DB" "$T/perr"
# device, lba range, completed: counts of the writes per device and place
python3 - "$T/io.csv" "$DA" "$DB" >"$T/counts" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for dev in sys.argv[2:]:
    mine = [r for r in rows if r["device.name"] == dev and r["io.operation"] == "Write"]
    for lo, hi in ((0, 80), (8000, 8056), (16000, 16040)):
        n = sum(1 for r in mine if lo <= int(r["io.lba"]) < hi)
        print(dev, lo, n)
    print(dev, "open", sum(1 for r in mine if r["io.latency"] == ""))
    print(dev, "all", len(mine))
EOF
count() { awk -v d="$1" -v k="$2" '$1 == d && $2 == k { print $3 }' "$T/counts"; }
check "$DA: its 10 writes before the detach (got $(count "$DA" 0))" [ "$(count "$DA" 0)" = 10 ]
check "$DA: none on its new medium (got $(count "$DA" 8000))" [ "$(count "$DA" 8000)" = 0 ]
check "$DA: nothing else (got $(count "$DA" all))" [ "$(count "$DA" all)" = 10 ]
check "$DB: its 10 first writes (got $(count "$DB" 0))" [ "$(count "$DB" 0)" = 10 ]
check "$DB: its 7 after $DA went away (got $(count "$DB" 8000))" [ "$(count "$DB" 8000)" = 7 ]
check "$DB: none on its new medium, left out by the programs (got $(count "$DB" 16000))" \
	[ "$(count "$DB" 16000)" = 0 ]
check "$DB: nothing else (got $(count "$DB" all))" [ "$(count "$DB" all)" = 17 ]
check "every write in the trace completed" [ "$(count "$DA" open)$(count "$DB" open)" = 00 ]

# 4. A device that goes away just before the stop, inside the second the
#    tracer waits between its looks: the final summary still names it.
#    The tracer is held (SIGSTOP) from before the detach until the
#    SIGINT is pending, so that no look of its rounds comes in between.
image c1
C=$(losetup -f --show "$IMG") || die "losetup"
DC=$(basename "$C")
TRACE=
iotrace_test_start_tracer "last second: " "$T/late.out" "$T/late.err" --start-tracing --devices "$DC"
writes "$C" 0 3
kill -STOP "$TRACER_PID"
losetup -d "$C" || die "losetup -d $C"
kill -INT "$TRACER_PID"
kill -CONT "$TRACER_PID"
iotrace_wait_exit "$TRACER_PID" 30 || die "the tracer runs on 30 s after SIGINT"
wait "$TRACER_PID"
rc=$?
TRACER_PID=
check "last second: the tracer exits 0 (got $rc)" [ "$rc" = 0 ]
check "last second: it says the device lost its medium" \
	grep -qF "device $DC (" "$T/late.err"
reason=$(iotrace_json_get "$T/late.out" tags stopReason)
check "last second: stopReason 'signal' (got '$reason')" [ "$reason" = signal ]
gone=$(iotrace_json_get "$T/late.out" tags devicesGone)
check "last second: devicesGone '$DC' (got '$gone')" [ "$gone" = "$DC" ]
iotrace_wait_detached || fail "last second: a detach helper still runs"

# a loop device with nothing attached: refused at the start, as an unknown one
FREE=$(losetup -f) || die "losetup -f"
FREE=$(basename "$FREE")
"$BIN" --start-tracing --devices "$FREE" >"$T/free.out" 2>"$T/free.err"
rc=$?
check "a device without a medium ($FREE) is refused: exit 2 (got $rc)" [ "$rc" = 2 ]
check "  with one line saying why" iotrace_said_only "$T/free.err" \
	"iotrace: device '$FREE' has no medium (size 0): attach a file to it (losetup), give it a size (zram) or put one in first"
check "  and nothing on stdout" [ ! -s "$T/free.out" ]
finish
