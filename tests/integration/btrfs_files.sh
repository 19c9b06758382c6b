#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: block I/O on btrfs attributed to its files.
#
#   usage: tests/integration/btrfs_files.sh PATH/TO/iotrace
#
# btrfs names the file of some bios only in the bio itself, not in its
# pages (bpf/btrfs.bpf.h). On a btrfs keeping two copies of data and
# metadata (-d dup -m dup) on a loop device, from cold caches:
#   - data.dat (1 MiB) is read with O_DIRECT: the pages are the user's;
#     then again into a shared buffer (MAP_SHARED, pages of a shmem file,
#     as a database's buffer pool), and the device itself likewise: a
#     shared buffer is not the I/O's file;
#   - dup.dat (1 MiB) is written and fsynced: each block goes to disk
#     twice, the first copy as a clone of the bio;
#   - text.log (4 MiB of text, stored zstd-compressed) is read: btrfs reads
#     the compressed extents into pages of its own;
#   - sv/s.dat, in a subvolume, and its copy snap/s.dat in a snapshot of
#     it (same inode number, generation and times) are read with O_DIRECT.
# check_btrfs.py then asserts from `iotrace -P --io --raw` that each is
# attributed to its file and offsets, that the snapshot's copy is a file
# of its own (its FileId has the snapshot's device), and that the trees
# btrfs writes meanwhile (its metadata) are attributed to no file.
#
# Needs root, BTF, loop devices, btrfs (kernel and btrfs-progs) and
# python3; a missing one is a failure, never a skip. Everything set up is
# torn down at exit, also on failure. IOTRACE_TEST_KEEP=1 keeps the
# temporary directory.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)

iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" \
	losetup mkfs.btrfs btrfs mount umount mountpoint findmnt dd python3 stat truncate
iotrace_require_loop
grep -qw btrfs /proc/filesystems || die "the kernel has no btrfs (not in /proc/filesystems)"

iotrace_fs_test_start btrfs

iotrace_shm_loop 1G || die "cannot set up a loop device over /dev/shm"
LN=${LOOP#/dev/}
IFS=: read -r MAJ MIN <"/sys/block/$LN/dev"
DEVT=$(( (MAJ << 20) | MIN ))
mkfs.btrfs -q -f -d dup -m dup "$LOOP" >"$T/mkfs.log" 2>&1 || die "mkfs.btrfs failed: $(cat "$T/mkfs.log")"
MNT=$(mktemp -d /tmp/iotrace-btrfs-mnt.XXXXXX)
mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP (btrfs)"
echo "# device $LOOP ($MAJ:$MIN, dev_t $DEVT)"

mkdir "$MNT/z" || die "cannot create $MNT/z"
btrfs property set "$MNT/z" compression zstd || die "cannot set zstd compression on $MNT/z"
dd if=/dev/urandom of="$MNT/data.dat" bs=1M count=1 status=none || die "cannot write data.dat"
# text compresses well: zstd keeps far fewer sectors than the file has
yes "iotrace compressed text line" | head -c 4M >"$MNT/z/text.log" || die "cannot write text.log"
: >"$MNT/dup.dat"
btrfs subvolume create "$MNT/sv" >"$T/subvol.log" 2>&1 || die "cannot create a subvolume: $(cat "$T/subvol.log")"
dd if=/dev/urandom of="$MNT/sv/s.dat" bs=256k count=1 status=none || die "cannot write sv/s.dat"
btrfs subvolume snapshot "$MNT/sv" "$MNT/snap" >>"$T/subvol.log" 2>&1 || die "cannot snapshot sv: $(cat "$T/subvol.log")"
sync
DATA_INO=$(stat -c %i "$MNT/data.dat")
DUP_INO=$(stat -c %i "$MNT/dup.dat")
TEXT_INO=$(stat -c %i "$MNT/z/text.log")
SV_INO=$(stat -c %i "$MNT/sv/s.dat")
# btrfs gives each subvolume a device number of its own
FSDEV=$(iotrace_st_devt "$MNT")
SVDEV=$(iotrace_st_devt "$MNT/sv/s.dat")
SNAPDEV=$(iotrace_st_devt "$MNT/snap/s.dat")
echo "# inodes: data.dat $DATA_INO, dup.dat $DUP_INO, z/text.log $TEXT_INO, sv/s.dat $SV_INO;" \
	"devices: top level $FSDEV, sv $SVDEV, snap $SNAPDEV"

iotrace_test_start_tracer "" "$T/trace.out" "$T/trace.err" -S -d "$LN" -l btrfs-files
iotrace_check_program handle_bio_queue

wrc=0
echo 3 >/proc/sys/vm/drop_caches
iotrace_record_pid "$T/direct.pid" dd if="$MNT/data.dat" of=/dev/null bs=64k iflag=direct status=none || wrc=1
iotrace_record_pid "$T/shared.pid" python3 "$HERE/shared_direct_read.py" "$MNT/data.dat" || wrc=1
iotrace_record_pid "$T/rawshared.pid" python3 "$HERE/shared_direct_read.py" "$LOOP" 1048576 || wrc=1
iotrace_record_pid "$T/writer.pid" dd if=/dev/urandom of="$MNT/dup.dat" bs=64k count=16 conv=fsync,notrunc status=none || wrc=1
iotrace_record_pid "$T/reader.pid" dd if="$MNT/z/text.log" of=/dev/null bs=1M status=none || wrc=1
iotrace_record_pid "$T/sv.pid" dd if="$MNT/sv/s.dat" of=/dev/null bs=64k iflag=direct status=none || wrc=1
iotrace_record_pid "$T/snap.pid" dd if="$MNT/snap/s.dat" of=/dev/null bs=64k iflag=direct status=none || wrc=1
sync
check "workload ran" [ "$wrc" = 0 ]
sleep 0.5
iotrace_test_stop_tracer "" "$T/trace.out" "$T/trace.err"

timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/events.jsonl" 2>"$T/parse.err"
rc=$?
check "-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]

python3 "$HERE/check_btrfs.py" "$T/events.jsonl" --fs-dev "$FSDEV" \
	--direct "$DATA_INO:$(cat "$T/direct.pid")" --shared "$DATA_INO:$(cat "$T/shared.pid")" \
	--raw-shared "$(cat "$T/rawshared.pid")" --dup "$DUP_INO:$(cat "$T/writer.pid")" \
	--compressed "$TEXT_INO:$(cat "$T/reader.pid")" \
	--subvolume "$SV_INO:$SVDEV:$(cat "$T/sv.pid")" --snapshot "$SV_INO:$SNAPDEV:$(cat "$T/snap.pid")" \
	>"$T/check.out" 2>&1
rc=$?
iotrace_test_relay "$T/check.out" "$rc" check_btrfs.py
finish
