#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: I/Os the device fails are in the trace as failed.
#
#   usage: tests/integration/io_errors.sh PATH/TO/iotrace
#
# A 64 MiB loop device over a sparse file on an 8 MiB tmpfs: a direct
# write of the whole device fails once the tmpfs is full, as a disk with
# bad sectors fails. Traced (with --dispatch):
#   - the parser exits 0: a failed I/O is no damage to the trace;
#   - some writes have io.error true, none that is a read of what was
#     written, and no write below 4 MiB (the tmpfs had room there);
#   - each failed write still has its latency, and its queue and device
#     times that make it up;
#   - --statistics counts exactly those writes as the writes' errors, and
#     none in the reads;
#   - dd stops at its first failed write: every failed I/O is a piece
#     of its last 1 MiB write, and every write before it succeeded.
#
# Needs root, BTF, loop devices, a tmpfs mount, dd and python3; a missing
# one is a failure, never a skip. Everything set up is torn down at exit,
# also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, tmpfs mount, BPF" losetup mount umount dd python3 truncate
iotrace_require_loop
iotrace_fs_test_start ioerrors
SMALL=$T/small
iotrace_test_undo() {
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	LOOP=
	mountpoint -q "$SMALL" && umount "$SMALL"
	return 0
}

mkdir -p "$SMALL" || die "mkdir $SMALL"
mount -t tmpfs -o size=8m,mode=0700 iotrace-ioerrors "$SMALL" || die "cannot mount a tmpfs"
truncate -s 64M "$SMALL/img" || die "truncate"
LOOP=$(losetup -f --show "$SMALL/img") || { LOOP=; die "losetup cannot attach a loop device"; }
LN=${LOOP#/dev/}

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN" --dispatch -l io-errors
# 1 MiB writes until the tmpfs is full, then read back the first 4 MiB
dd if=/dev/zero of="$LOOP" bs=1M count=64 oflag=direct status=none 2>"$T/dd.err"
drc=$?
check "dd's writes failed (exit $drc)" [ "$drc" != 0 ]
dd if="$LOOP" of=/dev/null bs=1M count=4 iflag=direct status=none ||
	fail "reading back the first 4 MiB failed"
sleep 0.3
iotrace_test_stop_tracer "" "$T/out" "$T/err"

"$BIN" -P --io -p "$IOTRACE_TRACE_DIR/$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
prc=$?
check "the parser exits 0 (got $prc)" [ "$prc" = 0 ]
[ -s "$T/parse.err" ] && sed 's/^/      parser: /' "$T/parse.err"
"$BIN" -P --statistics -p "$IOTRACE_TRACE_DIR/$TRACE" >"$T/stats.json" 2>>"$T/parse.err" ||
	fail "the parser's --statistics failed"

python3 - "$T/io.csv" "$T/stats.json" >"$T/check.out" <<'EOF'
import csv, json, sys

failed, reads_failed, low, incomplete, parts = 0, 0, [], [], []
windows, failed_windows = set(), set()  # the 1 MiB writes (2048 sectors) by index
for r in csv.DictReader(open(sys.argv[1])):
    if not r["io.operation"]:
        continue
    bad = r["io.error"] == "true"
    if r["io.operation"] == "Read":
        reads_failed += bad
        continue
    if r["io.operation"] != "Write":
        continue
    windows.add(int(r["io.lba"]) // 2048)
    if not bad:
        continue
    failed_windows.add(int(r["io.lba"]) // 2048)
    failed += 1
    if int(r["io.lba"]) < 8192:
        low.append(r["header.sid"])
    if not r["io.latency"]:
        incomplete.append(r["header.sid"])
    elif int(r["io.queueTime"]) + int(r["io.deviceTime"]) != int(r["io.latency"]):
        parts.append(r["header.sid"])


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


say(failed > 0, "writes with io.error true (%d)" % failed)
say(reads_failed == 0, "no read failed (%d)" % reads_failed)
say(not low, "no failed write below 4 MiB (%s)" % low[:3])
say(failed_windows == {max(windows, default=-1)},
    "the failed writes are pieces of dd's last write (MiB %s of %s written)"
    % (sorted(failed_windows), max(windows, default=-1) + 1))
say(not incomplete, "each failed write has its latency (%s)" % incomplete[:3])
say(not parts, "queue and device time make up its latency (%s)" % parts[:3])

stats = json.load(open(sys.argv[2]))
errs = {}
for dev in stats["statistics"]:
    for op in ("read", "write"):
        errs[op] = errs.get(op, 0) + int(dev[op]["errors"])
say(errs.get("write") == failed, "--statistics: %s write errors, the failed writes" % errs.get("write"))
say(errs.get("read") == 0, "--statistics: %s read errors" % errs.get("read"))
EOF
iotrace_test_relay "$T/check.out" $? "the check of the failed I/Os"

finish
