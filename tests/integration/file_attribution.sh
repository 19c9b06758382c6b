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
# I/O, and the direct and metadata flags.
#
# Needs root, BTF, loop devices, mkfs.ext4, a cgroup2 mount and python3;
# a missing one is a failure, never a skip. Everything set up is torn
# down at exit, also on failure. IOTRACE_TEST_KEEP=1 keeps the temporary
# directory.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

if [ $# -ne 1 ]; then
	echo "usage: $0 PATH/TO/iotrace" >&2
	exit 2
fi
BIN=$(realpath -e "$1") || { echo "FAIL: no binary at '$1'" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)

PASS=0
FAIL=0
ok() { echo "ok:   $*"; PASS=$((PASS + 1)); }
fail() { echo "FAIL: $*"; FAIL=$((FAIL + 1)); }
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}
finish() {
	echo
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
	exit
}
die() {
	fail "$*"
	finish
}

[ "$(id -u)" = 0 ] || die "must run as root (loop devices, mount, cgroups, BPF)"
[ -r /sys/kernel/btf/vmlinux ] || die "kernel has no BTF (/sys/kernel/btf/vmlinux)"
for tool in losetup mkfs.ext4 mount umount dd python3 stat truncate findmnt; do
	command -v "$tool" >/dev/null || die "'$tool' is not installed"
done
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null
[ -e /dev/loop-control ] || die "no loop device support (/dev/loop-control missing)"
CG2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
[ -n "$CG2" ] || die "no cgroup2 file system mounted (cgroup ids are cgroup v2 ids)"

T=$(mktemp -d /tmp/iotrace-fa.XXXXXX)
IMG=
LOOP=
MNT=
CG=
TRACER_PID=

cleanup() {
	local rc=$?

	iotrace_stop "$TRACER_PID"
	if [ -n "$MNT" ]; then
		mountpoint -q "$MNT" && umount "$MNT"
		rmdir "$MNT"
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$IMG" ] && rm -f "$IMG"
	# the workload processes have exited: the cgroup is empty
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	if [ "${IOTRACE_TEST_KEEP:-0}" = 1 ]; then
		echo "kept $T"
	else
		rm -rf "$T"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

iotrace_temp_repository "$T/repo"

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

running_trace() {
	"$BIN" -M -L 2>/dev/null | python3 -c '
import json, sys
for t in json.load(sys.stdin)["trace"]:
    if t["state"] == "RUNNING":
        print(t["tracePath"])'
}

"$BIN" -S -d "$LN" -l file-attribution >"$T/trace.out" 2>"$T/trace.err" &
TRACER_PID=$!
TRACE=
for _ in $(seq 200); do
	kill -0 "$TRACER_PID" 2>/dev/null || break
	TRACE=$(running_trace)
	[ -n "$TRACE" ] && break
	sleep 0.05
done
[ -n "$TRACE" ] || die "tracer did not reach RUNNING: $(tail -3 "$T/trace.err")"
# the summary is rewritten once the programs are attached and the loop runs
ino0=$(stat -c %i "$T/repo/$TRACE/octf.summary")
for _ in $(seq 100); do
	[ "$(stat -c %i "$T/repo/$TRACE/octf.summary" 2>/dev/null)" != "$ino0" ] && break
	sleep 0.05
done

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
while IFS= read -r line; do
	case $line in
	ok:*) ok "${line#ok: }" ;;
	FAIL:*) fail "${line#FAIL: }" ;;
	*) echo "      $line" ;;
	esac
done <"$T/check.out"
[ "$rc" = 0 ] || grep -q '^FAIL:' "$T/check.out" || fail "check_files.py exited $rc without a FAIL line"
finish
