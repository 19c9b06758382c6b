#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: block I/O attributed to files and processes.
#
#   usage: tests/integration/file_attribution.sh PATH/TO/iotrace
#
# On an ext4 loop device: writes a/b/c/d/e/f.dat (1 MiB, 4 KiB writes,
# fsync) from a process in a cgroup of its own, reads it back after
# drop_caches, reads it with O_DIRECT, renames it to g.dat and reads it
# again after drop_caches. check_files.py then asserts, from
# `iotrace -P --io --raw`, the filesystemMeta events (inode, offsets,
# size, sectors per direction), the name chain (/a/b/c/d/e/f.dat, then
# /a/b/c/d/e/g.dat after the rename), the pid, comm and cgroup of each
# I/O, and the direct and metadata flags. IOTRACE_PROBE_READS=1 runs it
# with the queue program's probe-read variant (core_fixes.bpf.h).
#
# Needs root, BTF, loop devices, mkfs.ext4, a cgroup2 mount and python3;
# a missing one is a failure, never a skip. Everything set up is torn
# down at exit, also on failure. IOTRACE_TEST_KEEP=1 keeps the temporary
# directory.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)

iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, cgroups, BPF" \
	losetup mkfs.ext4 mount umount dd python3 stat truncate findmnt bpftool
iotrace_require_loop
iotrace_require_cgroup2

iotrace_fs_test_start fa
CG=

iotrace_test_undo() {
	# the workload processes have exited: the cgroup is empty
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
}

iotrace_quiet_ext4 256M fa "$T" || die "$SETUP_ERR"
echo "# device $LOOP ($MAJ:$MIN, dev_t $DEVT)"
mkdir -p "$MNT/a/b/c/d/e" || die "cannot create a/b/c/d/e"
# the file exists before tracing starts, so its inode is known up front
: >"$MNT/a/b/c/d/e/f.dat"
INO=$(stat -c %i "$MNT/a/b/c/d/e/f.dat")
sync

CG=$CG2/iotrace-fa.$$
mkdir "$CG" || { CG=; die "cannot create cgroup $CG2/iotrace-fa.$$"; }
CGID=$(stat -c %i "$CG")
echo "# file inode $INO, cgroup $CG (id $CGID)"

# in_cgroup PIDFILE CMD...: runs CMD in the test's cgroup, its pid in PIDFILE
in_cgroup() {
	local pidfile=$1
	shift
	sh -c 'echo $$ >"$1"; echo $$ >"$2/cgroup.procs" && shift 2 && exec "$@"' _ "$pidfile" "$CG" "$@"
}

iotrace_test_start_tracer "" "$T/trace.out" "$T/trace.err" -S -d "$LN" -l file-attribution
# which variant of the queue program reads the pages and inodes: ctest
# runs this test once more with IOTRACE_PROBE_READS=1, so both are covered
iotrace_check_program handle_bio_queue

F=$MNT/a/b/c/d/e/f.dat
G=$MNT/a/b/c/d/e/g.dat
wrc=0
in_cgroup "$T/writer.pid" dd if=/dev/urandom of="$F" bs=4k count=256 conv=fsync,notrunc status=none || wrc=1
sync
echo 3 >/proc/sys/vm/drop_caches
in_cgroup "$T/reader.pid" dd if="$F" of=/dev/null bs=1M status=none || wrc=1
in_cgroup "$T/direct.pid" dd if="$F" of=/dev/null bs=64k iflag=direct status=none || wrc=1
mv "$F" "$G" || wrc=1
sync
echo 3 >/proc/sys/vm/drop_caches
in_cgroup "$T/reader2.pid" dd if="$G" of=/dev/null bs=1M status=none || wrc=1
sync
check "workload ran" [ "$wrc" = 0 ]
sleep 0.5
kill -INT "$TRACER_PID"
wait "$TRACER_PID"
rc=$?
TRACER_PID=
check "tracer exit 0 (got $rc)" [ "$rc" = 0 ]
[ -s "$T/trace.err" ] && sed 's/^/      stderr: /' "$T/trace.err" | head -5

timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/events.jsonl" 2>"$T/parse.err"
rc=$?
check "-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]

python3 "$HERE/check_files.py" "$T/events.jsonl" --dev "$DEVT" --ino "$INO" --cgroup "$CGID" \
	--writer "$(cat "$T/writer.pid")" --reader "$(cat "$T/reader.pid")" \
	--direct-reader "$(cat "$T/direct.pid")" --reader2 "$(cat "$T/reader2.pid")" \
	>"$T/check.out" 2>&1
rc=$?
iotrace_test_relay "$T/check.out" "$rc" check_files.py
finish
