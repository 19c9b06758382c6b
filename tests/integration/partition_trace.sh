#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: tracing one partition of a disk (--devices loopNp1)
# records that partition's I/O and calls, and nothing of its neighbour's.
#
#   usage: tests/integration/partition_trace.sh PATH/TO/iotrace
#
# A loop device over /dev/shm gets an MBR with two partitions (written
# here; partx adds them, as this kernel does not scan loop devices), ext4
# on each. The tracer traces p1 with --vfs while the same workload runs on
# both: buffered writes with fsync, a direct write, cold reads, fstrim,
# and direct reads of p2's raw device. Then:
#   - every io carries the disk's id and p1's partition id and lies in
#     p1's sectors; each has its completion (check_trace.py --part);
#   - read, write and discard sectors equal p1's own stat deltas;
#   - the trace describes the disk and p1;
#   - -P --vfs has the calls on p1's files, on the partition, and none on
#     p2's;
#   - the parser's --device, with the disk's name or p1's, keeps all of it,
#     and refuses p2's, which the trace does not describe.
#
# Needs root, BTF, tracefs, loop devices, partx, mkfs.ext4, fstrim and
# python3; a missing one is a failure, never a skip. Everything set up is
# torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" \
	losetup partx mkfs.ext4 mount umount mountpoint fstrim dd python3
iotrace_require_loop

iotrace_fs_test_start partition "traces, parsed events"
MNT2=
PARTS=
iotrace_test_undo() {
	[ -n "$MNT" ] && mountpoint -q "$MNT" && umount "$MNT"
	iotrace_undo_fs "$MNT2" "" ""
	[ -n "$PARTS" ] && partx -d "$LOOP"
}

iotrace_fs_loop 256M partition || die "$SETUP_ERR"
# two primary partitions of 100 MiB from sector 2048, type 0x83
python3 - "$LOOP" <<'EOF' || die "cannot write the partition table of $LOOP"
import struct, sys
mbr = bytearray(512)
for i, start in enumerate((2048, 2048 + 204800)):
    mbr[446 + 16 * i:462 + 16 * i] = struct.pack("<B3sB3sII", 0, bytes(3), 0x83, bytes(3), start, 204800)
mbr[510:512] = b"\x55\xaa"
with open(sys.argv[1], "r+b") as f:
    f.write(mbr)
EOF
partx -a "$LOOP" || die "partx cannot add the partitions of $LOOP"
PARTS=1
P1=${LN}p1
P2=${LN}p2
for p in "$P1" "$P2"; do
	[ -b "/dev/$p" ] || die "no /dev/$p after partx"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$p" >"$T/mkfs.log" 2>&1 ||
		die "mkfs.ext4 on $p failed: $(cat "$T/mkfs.log")"
done
MNT=$(mktemp -d /tmp/iotrace-partition-mnt1.XXXXXX)
MNT2=$(mktemp -d /tmp/iotrace-partition-mnt2.XXXXXX)
mount -o noatime,no_prefetch_block_bitmaps "/dev/$P1" "$MNT" || die "cannot mount $P1"
mount -o noatime,no_prefetch_block_bitmaps "/dev/$P2" "$MNT2" || die "cannot mount $P2"
IFS=: read -r ma mi <"/sys/class/block/$P1/dev"
P1DEVT=$(((ma << 20) | mi))
P1START=$(cat "/sys/class/block/$P1/start")
P1SIZE=$(cat "/sys/class/block/$P1/size")
echo "# $LOOP (dev_t $DEVT), $P1 (dev_t $P1DEVT, sectors $P1START+$P1SIZE) traced, $P2 not"
iotrace_kernel_completions_start "$DEVT" || die "$SETUP_ERR"

# workload DIR TAG: writes, a direct write, cold reads, a trim
workload() {
	dd if=/dev/urandom of="$1/$2.buf" bs=64k count=32 conv=fsync status=none &&
		dd if=/dev/urandom of="$1/$2.dir" bs=64k count=16 oflag=direct status=none &&
		sync && echo 3 >/proc/sys/vm/drop_caches &&
		cat "$1/$2.buf" "$1/$2.dir" >/dev/null &&
		rm "$1/$2.dir" && sync && fstrim "$1"
}

sync
iotrace_kernel_completions_record || die "cannot record the kernel's completions"
iotrace_test_start_tracer "" "$T/trace.out" "$T/trace.err" -S -d "$P1" --vfs
cp "/sys/class/block/$P1/stat" "$T/stat.before"
wrc=0
workload "$MNT" one || wrc=1
workload "$MNT2" two || wrc=1
dd if="/dev/$P2" of=/dev/null bs=64k count=64 iflag=direct status=none || wrc=1
sync
cp "/sys/class/block/$P1/stat" "$T/stat.after"
check "workload ran" [ "$wrc" = 0 ]
iotrace_test_stop_tracer "" "$T/trace.out" "$T/trace.err"
iotrace_test_kernel_completions_take "" "$T/kernel"

read -r rd wr ds < <(iotrace_stat_sectors "$T/stat.before" "$T/stat.after")
timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/events.jsonl" 2>"$T/raw.err"
rc=$?
check "-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]
python3 "$HERE/check_trace.py" "$T/events.jsonl" --dev "$DEVT" --name "$LN" \
	--part "$P1DEVT:$P1START:$P1SIZE" --stat-name "$P1" --min-io 100 --no-dispatch \
	--read-sectors "$rd" --write-sectors "$wr" --discard-sectors "$ds" --kernel-completions "$T/kernel" >"$T/check" 2>&1
iotrace_test_relay "$T/check" $? check_trace.py
described=$(python3 -c '
import json, sys
print(" ".join(sorted(json.loads(l)["deviceDescription"]["name"] for l in open(sys.argv[1])
                      if "deviceDescription" in l)))' "$T/events.jsonl")
check "the trace describes the disk and the partition ($described)" [ "$described" = "$LN $P1" ]
sizes=$(python3 -c '
import json, sys
print(" ".join(sorted("%s:%s" % (d["name"], d.get("size", "0")) for d in
                      (json.loads(l)["deviceDescription"] for l in open(sys.argv[1])
                       if "deviceDescription" in l))))' "$T/events.jsonl")
want="$LN:$(cat "/sys/class/block/$LN/size") $P1:$P1SIZE"
check "each described with its own size ($sizes; want $want)" [ "$sizes" = "$want" ]
# --devices: the partition's I/Os (as --io lists them) are its own, and
# all of its disk's here
timeout -k 5 120 "$BIN" -P --devices -f csv -p "$TRACE" >"$T/devices.csv" 2>"$T/devices.err"
counts=$(python3 -c '
import csv, sys
print(" ".join(sorted("%s:%s" % (r["name"], r["ios"]) for r in csv.DictReader(open(sys.argv[1])))))' "$T/devices.csv")
timeout -k 5 120 "$BIN" -P --io -f csv -p "$TRACE" >"$T/io.csv" 2>"$T/io.err"
nio=$(python3 -c '
import csv, sys
print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["io.operation"]))' "$T/io.csv")
want="$LN:$nio $P1:$nio"
check "-P --devices counts the I/Os for the disk and the partition ($counts; want $want)" [ "$counts" = "$want" ]

timeout -k 5 120 "$BIN" -P --vfs -f csv -p "$TRACE" >"$T/vfs.csv" 2>"$T/vfs.err"
rc=$?
check "-P --vfs exit 0 (got $rc)" [ "$rc" = 0 ]
python3 - "$T/vfs.csv" "$P1DEVT" >"$T/vfs.check" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
one = [r for r in rows if r["file.path"].startswith("/one.")]
two = [r for r in rows if r["file.path"].startswith("/two.")]
calls = sorted(set(r["vfs.call"] for r in one))
print(("ok: " if len(one) >= 40 and "write" in calls and "read" in calls else "FAIL: ") +
      "-P --vfs has the calls on p1's files (%d: %s)" % (len(one), ",".join(calls)))
print(("ok: " if not two else "FAIL: ") + "-P --vfs has no call on p2's files (%d)" % len(two))
bad = [r["file.path"] + " " + r["device.partition"] for r in one if r["device.partition"] != sys.argv[2]]
print(("ok: " if not bad else "FAIL: ") + "the calls' device.partition is p1's %s %s" % (sys.argv[2], bad[:3]))
EOF
iotrace_test_relay "$T/vfs.check" $? "the -P --vfs check"

# the parser's --device: the disk's name and p1's each keep every I/O and
# every call here (the I/Os name the disk, and p1 as their partition; the
# calls name p1's file system); a partition the trace does not describe
# is refused with the names it has
for dev in "$LN" "$P1"; do
	timeout -k 5 120 "$BIN" -P --io -f csv -p "$TRACE" --device "$dev" >"$T/io-$dev.csv" 2>"$T/io-$dev.err"
	timeout -k 5 120 "$BIN" -P --vfs -f csv -p "$TRACE" --device "/dev/$dev" >"$T/vfs-$dev.csv" 2>"$T/vfs-$dev.err"
	same=$(cmp -s "$T/io.csv" "$T/io-$dev.csv" && echo io)$(cmp -s "$T/vfs.csv" "$T/vfs-$dev.csv" && echo +vfs)
	check "--device $dev keeps every I/O and every call (the same: '$same')" [ "$same" = io+vfs ]
done
timeout -k 5 120 "$BIN" -P --io -p "$TRACE" --device "${LN}p2" >/dev/null 2>"$T/p2.err"
rc=$?
refused=$([ $rc -eq 2 ] && grep -cx "iotrace: --device ${LN}p2: the trace has no such device (it has $LN, $P1)" "$T/p2.err")
check "--device ${LN}p2 is refused with the trace's devices (exit $rc: $(cat "$T/p2.err"))" [ "$refused" = 1 ]

finish
