#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: calls on an overlayfs (a container's root file
# system) traced as calls on the real files behind it.
#
#   usage: tests/integration/overlay_files.sh PATH/TO/iotrace
#
# An ext4 on a loop device holds an overlay's lower, upper and work
# directories; the overlay is mounted apart. Traced with --vfs, from cold
# caches, through the overlay:
#   - reader reads etc/app.conf, which only the lower layer has;
#   - writer creates etc/new.dat (64 KiB) and fsyncs it;
#   - editor appends to etc/edit.conf, a lower file: its open copies the
#     file up (overlayfs writes the copy as a temporary file in the work
#     directory, fsyncs it and renames it into the upper directory, with
#     no rename(2)), then writes and fsyncs;
#   - new.dat is renamed to etc/renamed.dat, then onto etc/victim.dat, a
#     file made through the overlay (in the upper layer): its Delete is
#     sent; then removed;
#   - etc/over.dat is renamed onto etc/app.conf, which only the lower
#     layer has: no Delete, the lower file stays;
#   - etc/gone.conf, a lower file, is removed: the lower file stays.
# check_overlay.py then asserts from `iotrace -P --io --raw` that each
# call names the real file (lower or upper) with its path on the ext4,
# joined with that file's block I/O, that the copied-up file's later I/O
# carries its new path, and that the file events name the upper files.
#
# Needs root, BTF, loop devices, ext4, overlayfs and python3; a missing
# one is a failure, never a skip. Everything set up is torn down at exit,
# also on failure. IOTRACE_TEST_KEEP=1 keeps the temporary directory.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)

iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" \
	losetup mkfs.ext4 mount umount mountpoint dd python3 stat truncate
iotrace_require_loop
grep -qw overlay /proc/filesystems || die "the kernel has no overlayfs (not in /proc/filesystems)"

OVL=
iotrace_test_undo() {
	if [ -n "$OVL" ]; then
		mountpoint -q "$OVL" && umount "$OVL"
		rmdir "$OVL"
	fi
}
iotrace_fs_test_start overlay

iotrace_quiet_ext4 256M overlay "$T" || die "$SETUP_ERR"
echo "# device $LOOP ($MAJ:$MIN, dev_t $DEVT)"

mkdir -p "$MNT/lower/etc" "$MNT/upper" "$MNT/work" || die "cannot create the layers' directories"
for f in app.conf edit.conf gone.conf; do
	dd if=/dev/urandom of="$MNT/lower/etc/$f" bs=64k count=1 status=none || die "cannot write lower/etc/$f"
done
OVL=$(mktemp -d /tmp/iotrace-overlay-ovl.XXXXXX)
mount -t overlay overlay -o "lowerdir=$MNT/lower,upperdir=$MNT/upper,workdir=$MNT/work" "$OVL" ||
	die "cannot mount an overlay over $MNT"
sync
APP_INO=$(stat -c %i "$MNT/lower/etc/app.conf")
GONE_INO=$(stat -c %i "$MNT/lower/etc/gone.conf")
echo "# lower inodes: app.conf $APP_INO, gone.conf $GONE_INO; overlay st_dev $(iotrace_st_devt "$OVL/etc/app.conf")"

iotrace_test_start_tracer "" "$T/trace.out" "$T/trace.err" -S -d "$LN" --vfs -l overlay
iotrace_check_program handle_bio_queue

wrc=0
echo 3 >/proc/sys/vm/drop_caches
iotrace_record_pid "$T/reader.pid" dd if="$OVL/etc/app.conf" of=/dev/null bs=64k status=none || wrc=1
iotrace_record_pid "$T/writer.pid" dd if=/dev/urandom of="$OVL/etc/new.dat" bs=16k count=4 conv=fsync status=none || wrc=1
NEW_INO=$(stat -c %i "$MNT/upper/etc/new.dat") || wrc=1
iotrace_record_pid "$T/editor.pid" dd if=/dev/urandom of="$OVL/etc/edit.conf" bs=4k count=1 \
	oflag=append conv=notrunc,fsync status=none || wrc=1
EDIT_INO=$(stat -c %i "$MNT/upper/etc/edit.conf") || wrc=1
for f in victim.dat over.dat; do
	dd if=/dev/urandom of="$OVL/etc/$f" bs=4k count=1 conv=fsync status=none || wrc=1
done
VICTIM_INO=$(stat -c %i "$MNT/upper/etc/victim.dat") || wrc=1
mv "$OVL/etc/new.dat" "$OVL/etc/renamed.dat" || wrc=1
mv "$OVL/etc/renamed.dat" "$OVL/etc/victim.dat" || wrc=1
mv "$OVL/etc/over.dat" "$OVL/etc/app.conf" || wrc=1
rm "$OVL/etc/victim.dat" "$OVL/etc/gone.conf" || wrc=1
sync
check "workload ran" [ "$wrc" = 0 ]
check "the removed lower file stays in the lower layer" [ -f "$MNT/lower/etc/gone.conf" ]
check "the lower file renamed over stays in the lower layer" [ -f "$MNT/lower/etc/app.conf" ]
echo "# upper inodes: new.dat $NEW_INO, edit.conf $EDIT_INO, victim.dat $VICTIM_INO"
sleep 0.5
iotrace_test_stop_tracer "" "$T/trace.out" "$T/trace.err"

timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/events.jsonl" 2>"$T/parse.err"
rc=$?
check "-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]

python3 "$HERE/check_overlay.py" "$T/events.jsonl" --dev "$DEVT" \
	--reader "$APP_INO:$(cat "$T/reader.pid")" --writer "$NEW_INO:$(cat "$T/writer.pid")" \
	--editor "$EDIT_INO:$(cat "$T/editor.pid")" --gone "$GONE_INO" --victim "$VICTIM_INO" \
	>"$T/check.out" 2>&1
rc=$?
iotrace_test_relay "$T/check.out" "$rc" check_overlay.py
finish
