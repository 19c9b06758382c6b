#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: io_uring requests at the VFS layer (--vfs).
#
#   usage: tests/integration/uring_trace.sh PATH/TO/iotrace
#
# On an ext4 loop device, then on a btrfs one, fio with ioengine=io_uring
# makes 16 direct 4 KiB random reads of u.dat, then 8 buffered 8 KiB
# writes with an fsync after every 4. check_uring.py asserts, from
# `iotrace -P --vfs -f csv` and `-P --io -f csv`: one io_uring:read record
# per read (size 4096, result 4096, 4 KiB-aligned offsets inside the file,
# fio's pid, u.dat's path), 8 io_uring:write records of 8192 bytes at
# offsets 0..57344, an io_uring:fsync for each fsync fio says it made (2,
# or 1 when fio ends the job first), and that every direct block read is
# linked (io.vfsCallId) to the read whose offset is its file offset: on
# ext4 through iomap's direct-I/O state, on btrfs through its own bio
# (where up to 4 of the reads become buffered ones, see check_uring.py).
#
# Needs root, BTF, loop devices, mkfs.ext4, mkfs.btrfs, fio with io_uring
# and python3; a missing one is a failure, never a skip. Everything set up
# is torn down at exit, also on failure.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)

iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" losetup mkfs.ext4 mkfs.btrfs mount umount fio python3
grep -qw btrfs /proc/filesystems || die "the kernel has no btrfs (not in /proc/filesystems)"
fio --enghelp 2>/dev/null | grep -qw io_uring || die "fio has no io_uring engine"

iotrace_fs_test_start uring
iotrace_tracefs || die "$SETUP_ERR"
[ -e "$TRACEFS/events/io_uring/io_uring_submit_req" ] ||
	die "kernel has no io_uring tracepoints (CONFIG_IO_URING)"

# uring_run FSTYPE: the workload on a FSTYPE loop device, traced and checked
uring_run() {
	local fs=$1 rc fsyncs

	echo "# $fs"
	if [ "$fs" = ext4 ]; then
		iotrace_quiet_ext4 64M uring "$T" || die "$SETUP_ERR"
	else
		iotrace_shm_fs "$fs" 256M uring "$T" || die "$SETUP_ERR"
	fi
	dd if=/dev/zero of="$MNT/u.dat" bs=1M count=4 status=none || die "cannot write u.dat"
	sync

	iotrace_test_start_tracer "$fs: " "$T/$fs.trace.out" "$T/$fs.trace.err" \
		-S -d "$LN" --vfs -l "uring-$fs"
	iotrace_check_uring_complete "$fs: "

	fio --name=r --filename="$MNT/u.dat" --ioengine=io_uring --rw=randread --bs=4k --size=4M \
		--io_size=64k --direct=1 --iodepth=4 --norandommap --output="$T/$fs.fio-r.out" ||
		die "$fs: fio (reads) failed"
	fio --name=w --filename="$MNT/u.dat" --ioengine=io_uring --rw=write --bs=8k --size=64k \
		--iodepth=2 --fsync=4 --output-format=json --output="$T/$fs.fio-w.json" ||
		die "$fs: fio (writes) failed"
	# fio itself sometimes ends the job before the last fsync (2 runs in
	# 150 here, untraced): the trace must have the fsyncs fio made
	fsyncs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["sync"]["total_ios"])' \
		"$T/$fs.fio-w.json") || die "$fs: no fsync count in fio's output"
	sleep 0.5
	kill -INT "$TRACER_PID"
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=
	[ "$rc" = 0 ] && ok "$fs: tracer exit 0" || fail "$fs: tracer exit $rc: $(tail -2 "$T/$fs.trace.err")"

	"$BIN" -P --vfs -f csv -p "$TRACE" >"$T/$fs.vfs.csv" 2>"$T/$fs.vfs.err" ||
		fail "$fs: -P --vfs: $(cat "$T/$fs.vfs.err")"
	"$BIN" -P --io -f csv -p "$TRACE" >"$T/$fs.io.csv" 2>"$T/$fs.io.err" ||
		fail "$fs: -P --io: $(cat "$T/$fs.io.err")"
	# btrfs makes a direct read into pages not faulted in yet a buffered
	# one: fio's 4 buffers at their first use
	local fallback=()
	[ "$fs" = btrfs ] && fallback=(--buffered-fallback 4)
	python3 "$HERE/check_uring.py" "$T/$fs.vfs.csv" "$T/$fs.io.csv" --label "$fs: " \
		--fsyncs "$fsyncs" "${fallback[@]}" >"$T/$fs.check.out" 2>&1
	rc=$?
	iotrace_test_relay "$T/$fs.check.out" "$rc" "$fs: check_uring.py"
	iotrace_teardown_fs
}

uring_run ext4
uring_run btrfs
finish
