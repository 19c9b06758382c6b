#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a node where no one mounted tracefs.
#
#   usage: tests/integration/tracefs_mount.sh PATH/TO/iotrace
#
# Classic tracepoints (the system calls of --vfs, the rename exits that
# refresh file names) are found and attached through tracefs, and a node
# booted without systemd may not have it mounted. The test runs in a
# mount namespace of its own, so that what it unmounts there stays
# mounted for the host. With tracefs and debugfs unmounted, an ext4 file
# system on a loop device is traced with --vfs while dd writes a file and
# mv renames it. Expected: the tracer mounts tracefs, reaches RUNNING,
# loads the rename exits, records dd's writes and the rename, and
# unmounts tracefs at exit. Where tracefs cannot be mounted (/sys/kernel
# hidden), --vfs fails with one line saying so, and block I/O is traced
# with one warning that no file events are traced and renames go unseen,
# and tags.notFollowed names those events. Started where tracefs is
# mounted, the tracer leaves it mounted, and the tag is not there.
#
# Needs root, BTF, unshare, loop devices, mkfs.ext4 and bpftool; a missing
# one is a failure, not a skip. Everything set up is torn down at exit,
# also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "mount namespaces, loop devices, BPF" \
	unshare mountpoint losetup mkfs.ext4 bpftool
iotrace_require_loop
if [ -z "${IOTRACE_TRACEFS_NS:-}" ]; then
	# shellcheck disable=SC2093 # the rest runs only if unshare cannot start
	IOTRACE_TRACEFS_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
	die "unshare --mount failed"
fi

for m in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
	while mountpoint -q "$m"; do
		umount "$m" || die "cannot unmount $m in the test's mount namespace"
	done
done
check "no tracefs before the tracer starts" [ ! -e /sys/kernel/tracing/events ]

iotrace_fs_test_start tracefs "traces"
iotrace_quiet_ext4 64M tracefs "$T" || die "$SETUP_ERR"

iotrace_test_start_tracer "" "$T/vfs.out" "$T/vfs.err" -S -d "$LN" --vfs
check "the tracer mounted tracefs on /sys/kernel/tracing" mountpoint -q /sys/kernel/tracing
# a rename exit whose tracepoint it could not see would not be loaded
check "rename exits loaded" bash -c "bpftool prog show | grep -qw 'name handle_ns_exit'"
dd if=/dev/zero of="$MNT/f" bs=4k count=8 conv=fsync status=none || die "dd failed"
mv "$MNT/f" "$MNT/g" || die "mv failed"
iotrace_test_stop_tracer "" "$T/vfs.out" "$T/vfs.err"
check "tracefs unmounted at the tracer's exit" bash -c "! mountpoint -q /sys/kernel/tracing"

"$BIN" -P --vfs -p "$TRACE" -f csv >"$T/vfs.csv" 2>"$T/vfs.parse.err"
check "-P --vfs exit 0" [ $? = 0 ]
count_calls() { # CALL_PREFIX COMM PATH: rows of vfs.csv with such a call
	python3 -c '
import csv, sys
call, comm, path = sys.argv[2:]
print(sum(1 for r in csv.DictReader(open(sys.argv[1]))
          if r["vfs.call"].startswith(call) and r["process.comm"] == comm
          and (not path or r["file.path"] == path)))' "$T/vfs.csv" "$@"
}
writes=$(count_calls write dd /f)
check "dd's 8 writes to /f recorded (got $writes)" [ "$writes" = 8 ]
renames=$(count_calls rename mv "")
check "mv's rename recorded (got $renames)" [ "$renames" -ge 1 ]

# where tracefs cannot be mounted: /sys/kernel hidden under a tmpfs that
# holds only the kernel's BTF (and the file system mounted halfway, below)
mkdir "$T/kernel" && mount -t tmpfs iotrace-test "$T/kernel" &&
	mkdir "$T/kernel/btf" && cp /sys/kernel/btf/vmlinux "$T/kernel/btf/" &&
	mount --bind "$T/kernel" /sys/kernel || die "cannot hide /sys/kernel"
iotrace_test_refused "--vfs without tracefs: " none \
	"iotrace: --vfs needs syscall tracepoints: tracefs is not mounted and mounting it on /sys/kernel/tracing failed: No such file or directory" \
	-S -d "$LN" --vfs
# mounted once the tracer runs: with no syscall program to attach, it
# must not say that file events are traced from now on
umount "$MNT" || die "cannot unmount $MNT"
iotrace_test_start_tracer "block I/O without tracefs: " "$T/blk0.out" "$T/blk0.err" -S -d "$LN"
mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP again"
dd if="$LOOP" of=/dev/null bs=4k count=4 iflag=direct status=none
sleep 0.3
iotrace_test_stop_tracer "block I/O without tracefs: " "$T/blk0.out" "$T/blk0.err"
check "block I/O without tracefs: one warning line, that renames go unseen" iotrace_said_only "$T/blk0.err" \
	"iotrace: warning: no Create, Delete or Move events are traced, and files renamed while tracing keep their old names in the trace (no syscall tracepoints: tracefs is not mounted and mounting it on /sys/kernel/tracing failed: No such file or directory)"
n=$(iotrace_json_get "$T/blk0.out" tags notFollowed)
check "block I/O without tracefs: tags.notFollowed names the file events, io_uring's too ($n)" \
	[ "$n" = create,delete,move,io_uring-files ]
n=$(iotrace_json_get "$T/blk0.out" tracedEvents)
check "block I/O without tracefs: dd's 4 reads traced ($n events)" [ "${n:-0}" -ge 8 ]
umount /sys/kernel && umount "$T/kernel" || die "cannot show /sys/kernel again"

iotrace_tracefs || die "$SETUP_ERR"
iotrace_test_start_tracer "already mounted: " "$T/blk.out" "$T/blk.err" -S -d "$LN"
iotrace_test_stop_tracer "already mounted: " "$T/blk.out" "$T/blk.err"
check "a tracefs mounted before the tracer stays mounted" mountpoint -q "$TRACEFS"
check "already mounted: nothing on stderr" [ ! -s "$T/blk.err" ]
n=$(iotrace_json_get "$T/blk.out" tags notFollowed)
check "already mounted: no tags.notFollowed (${n:-none})" [ -z "$n" ]

finish
