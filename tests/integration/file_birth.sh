#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a FileId's creation date is the file's birth time
# where its file system keeps one (ext4 with room in the inode, xfs v5,
# btrfs), so it does not depend on when the tracer met the file.
#
#   usage: tests/integration/file_birth.sh PATH/TO/iotrace
#
# The date used to be the inode's ctime at first sight. Every write moves
# the ctime, so a file the tracer's table of 65,536 files dropped and met
# again at its next write got a new FileId: one file, two entries in the
# per-file views. Here a file is made, its ctime moved (chmod) a second
# later, and only a second after that the tracer starts and the file is
# written: the I/O's creationDate must be what stat(1) says the file was
# born, on each file system. On ext4 with 128-byte inodes (no birth time)
# the date stays the ctime at first sight: a time within the trace.
#
# Needs root, BTF, loop devices, mkfs.ext4, mkfs.xfs and mkfs.btrfs; a
# missing one is a failure, not a skip. Everything set up is torn down at
# exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.ext4 mkfs.xfs mkfs.btrfs
iotrace_require_loop

iotrace_fs_test_start file-birth "traces"
export TZ=UTC

# the file, born before the trace, its ctime moved after its birth
make_file() {
	dd if=/dev/urandom of="$MNT/f" bs=64k count=1 conv=fsync status=none || return 1
	sleep 1.1
	chmod 600 "$MNT/f"
	sync -f "$MNT"
	sleep 1.1
}

# traced FS: a page-cache write and a direct read of the file; the dates
# of its data I/O, one per line, into $T/dates.FS
trace_file() {
	local fs=$1

	iotrace_test_start_tracer "$fs: " "$T/out.$fs" "$T/err.$fs" -S -d "$LN"
	dd if=/dev/urandom of="$MNT/f" bs=4k count=4 conv=notrunc,fsync status=none
	dd if="$MNT/f" of=/dev/null bs=4k count=4 iflag=direct status=none
	iotrace_test_stop_tracer "$fs: " "$T/out.$fs" "$T/err.$fs"
	"$BIN" -P --io -f csv -p "$TRACE" >"$T/io.$fs.csv" 2>"$T/parse.$fs.err"
	check "$fs: -P --io exit 0" [ $? = 0 ]
	python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["file.path"] == "/f" and r["io.flags.metadata"] == "false" and r["file.eventType"] == "Access":
        print(r["file.creationDate"])' "$T/io.$fs.csv" | sort -u >"$T/dates.$fs"
	TRACE=
}

for fs in ext4 xfs btrfs; do
	if [ "$fs" = ext4 ]; then
		iotrace_quiet_ext4 64M file-birth "$T" || die "$SETUP_ERR"
	else
		iotrace_shm_fs "$fs" 320M file-birth "$T" || die "$SETUP_ERR"
	fi
	make_file || die "$fs: cannot write $MNT/f"
	birth=$(iotrace_birth_time "$MNT/f")
	ctime=$(stat -c %z "$MNT/f")
	trace_file "$fs"
	dates=$(paste -sd' ' "$T/dates.$fs")
	check "$fs: the file has a birth time ($birth), after which its ctime moved ($ctime)" \
		test -n "$birth" -a "$birth" != -
	check "$fs: its I/O has one creationDate, its birth time $birth (got '$dates')" \
		[ "$dates" = "$birth" ]
	iotrace_teardown_fs
done

# ext4 without room for a birth time in its 128-byte inodes: the ctime at
# first sight (whole seconds: no room for nanoseconds either), the one
# the chmod set or one the traced write set
iotrace_fs_loop 64M file-birth-128 || die "$SETUP_ERR"
mkfs.ext4 -q -F -I 128 -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" >"$T/mkfs.log" 2>&1 ||
	die "mkfs.ext4 -I 128 failed: $(cat "$T/mkfs.log")"
MNT=$(mktemp -d /tmp/iotrace-file-birth-128-mnt.XXXXXX)
mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"
make_file || die "ext4-128: cannot write $MNT/f"
birth=$(stat -c %w "$MNT/f")
check "ext4 -I 128: stat has no birth time, the case tested ('$birth')" [ "$birth" = - ]
ctime=$(date -u -d "@$(stat -c %Z "$MNT/f")" +%Y-%m-%dT%H:%M:%SZ)
before=$(date -u +%Y-%m-%dT%H:%M:%SZ)
trace_file ext4-128
after=$(date -u +%Y-%m-%dT%H:%M:%SZ)
dates=$(paste -sd' ' "$T/dates.ext4-128")
# fixed-width ISO dates compare as strings
ok=0
if [ "$(wc -l <"$T/dates.ext4-128")" = 1 ]; then
	[ "$dates" = "$ctime" ] && ok=1
	[[ ! "$dates" < "$before" ]] && [[ ! "$dates" > "$after" ]] && ok=1
fi
check "ext4 -I 128: one creationDate, a ctime of the file: $ctime, or $before to $after (got '$dates')" \
	[ "$ok" = 1 ]
iotrace_teardown_fs

finish
