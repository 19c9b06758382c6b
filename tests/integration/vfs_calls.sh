#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: every traced system call once, each --vfs record
# asserted exactly.
#
#   usage: tests/integration/vfs_calls.sh PATH/TO/iotrace PATH/TO/vfs_calls
#
# vfs_calls (built next to the tests) makes, in a directory of an ext4 on
# a loop device, one or more of each call vfs_trace.sh and uring_trace.sh
# do not cover: open, creat, openat2, read, write, readv, writev, preadv,
# pwritev, preadv2 and pwritev2 (at an offset and at -1), fdatasync,
# ftruncate, fallocate, mmap, msync, sync_file_range, copy_file_range,
# sendfile, splice (file -> pipe -> file), close, rename and unlink,
# through syscall(2) with known arguments, and prints each as the tracer
# should record it. check_vfs_calls.py compares that with
# `iotrace -P --io --raw` (every field of every record of its pid, in
# order: call, fd, fd2, offset, offset2, size, result, flags, created,
# fileId, fileId2) and `iotrace -P --vfs -f csv` (the same records, with
# file.path and file2.path), plus the Create/Delete/Move events.
# IOTRACE_PROBE_READS=1 runs it with the probe-read variant of the
# sys_enter program (bpf/core_fixes.bpf.h).
#
# Needs root, BTF, loop devices, mkfs.ext4 and python3; a missing one is
# a failure, never a skip. Everything set up is torn down at exit, also
# on failure. IOTRACE_TEST_KEEP=1 keeps the temporary directory (trace,
# parsed events, the program's output).

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binaries vfs_calls "$@"
CALLS=$HELPER
HERE=$(cd "$(dirname "$0")" && pwd)

iotrace_test_harness --list-failures

# --- capabilities: fail loudly -----------------------------------------------
iotrace_require_root_bpf "loop devices, mount, BPF" \
	losetup mkfs.ext4 mount umount mountpoint python3 truncate timeout bpftool
iotrace_require_loop

# --- setup and teardown --------------------------------------------------------
iotrace_fs_test_start vfscalls
CPID=
iotrace_tracefs || die "$SETUP_ERR"
[ -e "$TRACEFS/events/syscalls" ] || die "no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)"
# every call the program makes must have its tracepoints, or its record
# is missing for a reason that is not the tracer's
for tp in open creat openat2 read write readv writev preadv pwritev preadv2 pwritev2 \
	fdatasync ftruncate fallocate mmap msync sync_file_range copy_file_range sendfile64 \
	splice close rename unlink; do
	[ -e "$TRACEFS/events/syscalls/sys_enter_$tp" ] || die "kernel has no syscalls:sys_enter_$tp"
done

iotrace_test_undo() {
	iotrace_kill_wait "$CPID"
}

REPO=$T/repo
iotrace_quiet_ext4 64M vfscalls "$T" || die "$SETUP_ERR"
echo "# ext4 on $LOOP ($MAJ:$MIN, dev_t $DEVT)"
mkdir "$MNT/calls" || die "cannot create $MNT/calls"
sync


# --- trace --------------------------------------------------------------------
"$BIN" -S -d "$LN" --vfs -l vfs-calls >"$T/trace.out" 2>"$T/trace.err" &
TRACER_PID=$!
iotrace_wait_running "$BIN" "$TRACER_PID" "$REPO"
case $? in
1)
	err=$(tail -3 "$T/trace.err")
	die "tracer did not reach RUNNING: $err"
	;;
2) die "summary never rewritten after start (collector loop not running?)" ;;
esac
echo "# tracing $LN --vfs: $TRACE"
# which variant reads the files of the calls' fds: ctest runs this test
# once more with IOTRACE_PROBE_READS=1, so both are covered
iotrace_check_program handle_sys_enter

"$CALLS" "$MNT/calls" >"$T/calls.out" 2>"$T/calls.err" &
CPID=$!
wait "$CPID"
rc=$?
CPID=
check "vfs_calls exit 0 (got $rc)" [ "$rc" = 0 ]
[ -s "$T/calls.err" ] && sed 's/^/      stderr: /' "$T/calls.err" | head -5
sync
sleep 0.5

iotrace_test_stop_tracer "" "$T/trace.out" "$T/trace.err"
tev=$(iotrace_json_get "$T/trace.out" tracedEvents)

# --- parse and check ----------------------------------------------------------------
timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/events.jsonl" 2>"$T/raw.err"
rc=$?
check "-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]
[ -s "$T/raw.err" ] && sed 's/^/      stderr: /' "$T/raw.err" | head -5
nev=$(wc -l <"$T/events.jsonl")
check "parsed event count $nev == summary tracedEvents '$tev'" [ "$nev" = "$tev" ]
timeout -k 5 120 "$BIN" -P --vfs -f csv -p "$TRACE" >"$T/vfs.csv" 2>"$T/csv.err"
rc=$?
check "-P --vfs -f csv exit 0 (got $rc)" [ "$rc" = 0 ]
[ -s "$T/csv.err" ] && sed 's/^/      stderr: /' "$T/csv.err" | head -5

python3 "$HERE/check_vfs_calls.py" "$T/events.jsonl" "$T/vfs.csv" --calls "$T/calls.out" \
	--dev "$DEVT" --prefix /calls >"$T/check.out" 2>&1
rc=$?
iotrace_test_relay "$T/check.out" "$rc" check_vfs_calls.py
finish
