#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a disk with more partitions than the syscall
# programs' list of file systems holds (64).
#
#   usage: tests/integration/many_partitions.sh PATH/TO/iotrace
#
# A loop device gets partitions with addpart (this kernel scans no
# partition tables). First one, then a second while a tracer runs: after
# the next change of the mount table (a tmpfs mounted elsewhere) the
# tracer must name it as a new partition, not as a mounted file system.
# Then 63, which fit with the disk, and the 64th to 66th made while a
# tracer runs: it warns at the next change of the mount table, and
# tags.notFollowed says file-systems-over-limit from then on. Then 66 at
# the start: traced with --vfs, whose calls would go unseen on the
# partitions past the list, the tracer refuses with one line and exit 1.
# Traced without --vfs, where only file events on those partitions are
# lost, it warns with one line, runs, traces raw reads of the last
# partition, and its summary has the tag.
#
# Needs root, BTF, loop devices and addpart; a missing one is a failure,
# never a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, partitions, BPF" losetup addpart partx dd truncate
iotrace_require_loop
PARTS=
TMNT=
iotrace_test_undo() {
	[ -n "$TMNT" ] && { umount "$TMNT"; rmdir "$TMNT"; }
	[ -n "$PARTS" ] && partx -d "$LOOP"
}
iotrace_fs_test_start manyparts
iotrace_fs_loop 80M manyparts || die "$SETUP_ERR"
PARTS=1
addpart "$LOOP" 1 2048 2048 || die "addpart cannot add partition 1 to $LOOP"

iotrace_test_start_tracer "" "$T/new.out" "$T/new.err" -S -d "$LN"
addpart "$LOOP" 2 4096 2048 || die "addpart cannot add partition 2 to $LOOP"
P2=$(cat "/sys/class/block/${LN}p2/dev") || die "no ${LN}p2 in sysfs after addpart"
# the tracer looks for new partitions when the mount table changes
TMNT=$(mktemp -d /tmp/iotrace-manyparts-tmpfs.XXXXXX)
mount -t tmpfs iotrace-test "$TMNT" || { rmdir "$TMNT"; TMNT=; die "cannot mount a tmpfs"; }
check "a partition made while tracing ($P2) is named as one" iotrace_wait_said "$T/new.err" \
	"iotrace: partition ${LN}p2 ($P2), new on a traced device: its files are traced from now on"
check "... not as a mounted file system" bash -c "! grep -qF 'file system $P2' '$T/new.err'"
umount "$TMNT" && rmdir "$TMNT" && TMNT=
iotrace_test_stop_tracer "" "$T/new.out" "$T/new.err"
got=$(iotrace_json_get "$T/new.out" tags notFollowed)
check "2 partitions: no tags.notFollowed (${got:-none})" [ -z "$got" ]

for i in $(seq 3 63); do
	addpart "$LOOP" "$i" $((2048 * i)) 2048 || die "addpart cannot add partition $i to $LOOP"
done
# the disk and 63 partitions fit; the 64th to 66th, made while tracing, do not
iotrace_test_start_tracer "63: " "$T/full.out" "$T/full.err" -S -d "$LN"
for i in 64 65 66; do
	addpart "$LOOP" "$i" $((2048 * i)) 2048 || die "addpart cannot add partition $i to $LOOP"
done
[ -b "/dev/${LN}p66" ] || die "no /dev/${LN}p66 after addpart"
TMNT=$(mktemp -d /tmp/iotrace-manyparts-tmpfs.XXXXXX)
mount -t tmpfs iotrace-test "$TMNT" || { rmdir "$TMNT"; TMNT=; die "cannot mount a tmpfs"; }
check "64 to 66 made while tracing: the tracer warns" iotrace_wait_said "$T/full.err" \
	"iotrace: warning: a file system mounted from a traced device is not traced: more than 64 partitions and file systems"
# the summary is rewritten every second
for _ in $(seq 50); do
	got=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags notFollowed)
	[ -n "$got" ] && break
	sleep 0.1
done
check "... and the running trace's tags.notFollowed says so ($got)" [ "$got" = file-systems-over-limit ]
umount "$TMNT" && rmdir "$TMNT" && TMNT=
iotrace_test_stop_tracer "63: " "$T/full.out" "$T/full.err"
got=$(iotrace_json_get "$T/full.out" tags notFollowed)
check "... and the final one ($got)" [ "$got" = file-systems-over-limit ]

iotrace_test_refused "--vfs: " vfs \
	"iotrace: too many partitions and file systems on the traced devices for --vfs (at most 64)" \
	-S -d "$LN" --vfs

iotrace_test_start_tracer "" "$T/blk.out" "$T/blk.err" -S -d "$LN"
check "without --vfs: one warning line" iotrace_said_only "$T/blk.err" \
	"iotrace: warning: file events on some file systems of the traced devices are not traced: more than 64 partitions and file systems"
dd if="/dev/${LN}p66" of=/dev/null bs=4k count=16 iflag=direct status=none || fail "raw reads of ${LN}p66 failed"
sleep 0.3
iotrace_test_stop_tracer "" "$T/blk.out" "$T/blk.err"
got=$(iotrace_json_get "$T/blk.out" tags notFollowed)
check "without --vfs: tags.notFollowed names the file systems over the limit ($got)" \
	[ "$got" = file-systems-over-limit ]
n=$(iotrace_json_get "$T/blk.out" tracedEvents)
check "without --vfs: the 16 raw reads traced ($n events)" [ "${n:-0}" -ge 32 ]
finish
