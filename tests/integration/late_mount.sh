#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: file systems mounted after tracing started.
#
#   usage: tests/integration/late_mount.sh PATH/TO/iotrace
#
# Two loop devices, one with an ext4 and one with a btrfs, neither
# mounted, are traced with --vfs --paths 'EXT4/keep/*,BTRFS/keep/*'.
# Then both are mounted (btrfs numbers its file system apart from its
# disk), and on each keep/a and drop/b are written and fsynced.
# check_late_mount.py asserts from `iotrace -P --io --raw` that the calls
# on each keep/a are recorded with its FileId (stat's device and inode)
# and its Create event sent, and that nothing of drop/b is; the tracer
# must have said on stderr that the btrfs is traced from then on.
#
# Needs root, BTF, loop devices, ext4, btrfs and python3; a missing one is
# a failure, never a skip. Everything set up is torn down at exit, also
# on failure. IOTRACE_TEST_KEEP=1 keeps the temporary directory.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)

iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" \
	losetup mkfs.ext4 mkfs.btrfs mount umount mountpoint findmnt dd python3 stat truncate
iotrace_require_loop
grep -qw btrfs /proc/filesystems || die "the kernel has no btrfs (not in /proc/filesystems)"

# the ext4 is the harness's file system (IMG, LOOP, MNT); the btrfs this one's
BIMG=
BLOOP=
BMNT=
iotrace_test_undo() {
	iotrace_undo_fs "$BMNT" "$BLOOP" "$BIMG"
}
iotrace_fs_test_start latemount

iotrace_fs_loop 128M latemount-ext4 || die "$SETUP_ERR"
mkfs.ext4 -q -F "$LOOP" >"$T/mkfs.ext4.log" 2>&1 || die "mkfs.ext4 failed: $(cat "$T/mkfs.ext4.log")"
MNT=$(mktemp -d /tmp/iotrace-latemount-ext4-mnt.XXXXXX)
BIMG=$(mktemp /dev/shm/iotrace-latemount-btrfs.XXXXXX.img)
truncate -s 512M "$BIMG"
BLOOP=$(losetup -f --show "$BIMG") || { BLOOP=; die "losetup cannot attach a loop device"; }
mkfs.btrfs -q -f "$BLOOP" >"$T/mkfs.btrfs.log" 2>&1 || die "mkfs.btrfs failed: $(cat "$T/mkfs.btrfs.log")"
BMNT=$(mktemp -d /tmp/iotrace-latemount-btrfs-mnt.XXXXXX)
echo "# ext4 on $LOOP, btrfs on $BLOOP, both mounted once the tracer runs"

iotrace_test_start_tracer "" "$T/trace.out" "$T/trace.err" \
	-S -d "$LN,${BLOOP#/dev/}" --vfs --paths "$MNT/keep/*,$BMNT/keep/*" -l late-mount

mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP (ext4)"
mount -o noatime "$BLOOP" "$BMNT" || die "cannot mount $BLOOP (btrfs)"
BDEV=$(findmnt -n -o MAJ:MIN "$BMNT" | tr -d ' ')
# the collector wakes on a change of the mount table
check "the tracer says the btrfs ($BDEV) is traced from now on" \
	iotrace_wait_said "$T/trace.err" "file system $BDEV, mounted from a traced device, is traced from now on"

wrc=0
args=()
for m in "$MNT" "$BMNT"; do
	mkdir "$m/keep" "$m/drop" || wrc=1
	dd if=/dev/urandom of="$m/keep/a" bs=4k count=4 conv=fsync status=none || wrc=1
	dd if=/dev/urandom of="$m/drop/b" bs=4k count=4 conv=fsync status=none || wrc=1
	args+=(--kept "$(iotrace_st_devt "$m/keep/a"):$(stat -c %i "$m/keep/a")"
		--dropped "$(iotrace_st_devt "$m/drop/b"):$(stat -c %i "$m/drop/b")")
done
sync
check "workload ran" [ "$wrc" = 0 ]
sleep 0.5
iotrace_test_stop_tracer "" "$T/trace.out" "$T/trace.err"

timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/events.jsonl" 2>"$T/parse.err"
rc=$?
check "-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]

python3 "$HERE/check_late_mount.py" "$T/events.jsonl" "${args[@]}" >"$T/check.out" 2>&1
rc=$?
iotrace_test_relay "$T/check.out" "$rc" check_late_mount.py
finish
