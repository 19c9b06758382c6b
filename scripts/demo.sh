#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# iotrace quick-start demo: traces a short workload on a throw-away ext4
# loop device and shows what a trace looks like.
#
#   usage: scripts/demo.sh [PATH/TO/iotrace]      (default: iotrace in PATH)
#
# It creates a 256 MiB image in /dev/shm, attaches it to a loop device,
# makes an ext4 file system on it and mounts it; starts
#   iotrace --start-tracing --devices loopN --vfs
# runs a short workload (buffered and O_DIRECT writes, reads after dropping
# the page cache, a delete, fsync, and a batch job's writes in a cgroup
# removed as it ends), stops the tracer with Ctrl+C (SIGINT),
# and prints the trace summary, the trace list, the joined I/Os (latency,
# queue depth, file), those between two times of day taken around one
# command, statistics, a latency histogram, the per-file and per-process
# reports of block I/O and system calls, and the job's I/O by its cgroup.
# Everything is torn down at exit.
#
# Traces go to a temporary repository, removed at exit, unless
# IOTRACE_TRACE_DIR is set, or KEEP=1 is given (then the temporary
# repository is kept and its path printed). Needs root: re-runs itself
# with sudo when it can. Takes about 10 seconds.

set -u
. "$(dirname "$(realpath "$0")")/tracer-lib.sh"

if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null; then
		echo "demo: needs root for loop devices and tracing; re-running with sudo" >&2
		exec sudo -E -- bash "$(realpath "$0")" "$@"
	fi
	echo "demo: needs root (loop devices, mount, BPF) and sudo is not available" >&2
	exit 1
fi

if [ $# -gt 1 ]; then
	echo "usage: $0 [PATH/TO/iotrace]" >&2
	exit 2
fi
BIN=${1:-$(command -v iotrace)}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
	echo "demo: no iotrace binary: give its path, e.g. $0 build/src/iotrace" >&2
	exit 1
fi
BIN=$(realpath "$BIN")
for tool in losetup mkfs.ext4 mount dd; do
	command -v "$tool" >/dev/null || { echo "demo: '$tool' is not installed" >&2; exit 1; }
done
[ -r /sys/kernel/btf/vmlinux ] || { echo "demo: this kernel has no BTF (/sys/kernel/btf/vmlinux); iotrace needs it" >&2; exit 1; }

IMG=
LOOP=
MNT=
CG2=
TRACER_PID=
TMP_REPO=
WORK=
KEEP=${KEEP:-0}

cleanup() {
	local rc=$?

	iotrace_stop "$TRACER_PID"
	# nothing left behind: not even the seconds the kernel takes to detach
	iotrace_wait_detached
	iotrace_teardown_fs
	# the batch job's cgroups, should the demo stop before it removed them
	[ -n "${CG2:-}" ] && rmdir "$CG2/iotrace-demo-$$/job_1/step_0" "$CG2/iotrace-demo-$$/job_1" \
		"$CG2/iotrace-demo-$$" 2>/dev/null
	[ -n "$WORK" ] && rm -rf "$WORK"
	if [ -n "$TMP_REPO" ]; then
		if [ "$KEEP" = 1 ]; then
			echo "demo: kept the trace repository $TMP_REPO"
		else
			rm -rf "$TMP_REPO"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -t 1 ]; then
	step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	step() { printf '\n== %s\n' "$*"; }
fi
show() { printf '$ %s\n' "$*"; "$@"; }

WORK=$(mktemp -d /tmp/iotrace-demo-work.XXXXXX)

# Traces go to a temporary repository unless the user chose one; the lock
# file goes with it so the demo never waits on, or blocks, a real tracer.
if [ -z "${IOTRACE_TRACE_DIR:-}" ]; then
	TMP_REPO=$(mktemp -d /tmp/iotrace-demo.XXXXXX)
	iotrace_temp_repository "$TMP_REPO"
fi

step "a 256 MiB ext4 file system on a loop device"
IMG=$(mktemp /dev/shm/iotrace-demo.XXXXXX.img)
truncate -s 256M "$IMG"
LOOP=$(losetup -f --show "$IMG") || { LOOP=; echo "demo: losetup failed" >&2; exit 1; }
DEV=${LOOP#/dev/}
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" || exit 1
MNT=$(mktemp -d /tmp/iotrace-demo-mnt.XXXXXX)
mount -o noatime,no_prefetch_block_bitmaps "$LOOP" "$MNT" 2>/dev/null ||
	mount -o noatime "$LOOP" "$MNT" || exit 1
echo "$LOOP mounted on $MNT"

step "start tracing"
echo "\$ $BIN --start-tracing --devices $DEV --vfs &"
"$BIN" --start-tracing --devices "$DEV" --vfs --label demo >"$WORK/summary" 2>"$WORK/stderr" &
TRACER_PID=$!
TRACE=
for _ in $(seq 100); do
	kill -0 "$TRACER_PID" 2>/dev/null || break
	TRACE=$("$BIN" -M -L 2>/dev/null | sed -n '/"tracePath"/{s/.*"tracePath": "\([^"]*\)".*/\1/;h}; /"state": "RUNNING"/{g;p}')
	[ -n "$TRACE" ] && break
	sleep 0.1
done
if [ -z "$TRACE" ]; then
	echo "demo: the tracer did not start:" >&2
	cat "$WORK/stderr" >&2
	exit 1
fi
sleep 1	# the programs are attached just after the summary says RUNNING
echo "tracing into $IOTRACE_TRACE_DIR/$TRACE (pid $TRACER_PID)"

step "workload"
mkdir "$MNT/dir1"
show dd if=/dev/urandom of="$MNT/dir1/buffered.bin" bs=1M count=8 conv=fsync status=none
show dd if=/dev/zero of="$MNT/direct.bin" bs=64k count=64 oflag=direct status=none
show dd if=/dev/zero of="$MNT/small.bin" bs=4k count=16 oflag=direct,dsync status=none
show sync
show sh -c 'echo 3 > /proc/sys/vm/drop_caches'
show dd if="$MNT/dir1/buffered.bin" of=/dev/null bs=1M status=none
# the wall clock around one command, as a log would have it
FROM=$(date +%H:%M:%S.%N)
show dd if="$MNT/direct.bin" of=/dev/null bs=64k iflag=direct status=none
TO=$(date +%H:%M:%S.%N)
show rm "$MNT/small.bin"
show sync
# a batch job as Slurm nests it: its task writes in job_1/step_0, and the
# job's cgroups go as it ends, before anyone reads the trace
CG2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
if [ -n "$CG2" ] && mkdir -p "$CG2/iotrace-demo-$$/job_1/step_0"; then
	JOB_CG=iotrace-demo-$$/job_1
	echo "\$ (echo \$BASHPID > $CG2/$JOB_CG/step_0/cgroup.procs; dd of=$MNT/job.out bs=64k count=32 oflag=direct)"
	(echo "$BASHPID" >"$CG2/$JOB_CG/step_0/cgroup.procs" &&
		exec dd if=/dev/zero of="$MNT/job.out" bs=64k count=32 oflag=direct status=none)
	show rmdir "$CG2/$JOB_CG/step_0" "$CG2/$JOB_CG" "$CG2/iotrace-demo-$$"
fi

step "stop tracing (SIGINT, as Ctrl+C) -- the tracer prints the summary"
sleep 0.5
kill -INT "$TRACER_PID"
wait "$TRACER_PID"
rc=$?
TRACER_PID=
cat "$WORK/summary"
cat "$WORK/stderr" >&2
echo "(exit status $rc)"

step "the trace repository"
show "$BIN" --trace-management --list-traces
show "$BIN" --trace-management --get-trace-summary --path "$TRACE"

step "every I/O joined with its completion: latency, queue depth, file (first 15)"
echo "\$ $BIN --trace-parser --io --path $TRACE --format table | head -16"
"$BIN" --trace-parser --io --path "$TRACE" --format table >"$WORK/ios.txt"
prc=$?
head -16 "$WORK/ios.txt"

step "the I/Os between two times of day, as a log names them: the direct read (first 8)"
echo "\$ $BIN -P --io -p $TRACE -f table --wall-clock --from $FROM --to $TO | head -9"
"$BIN" -P --io -p "$TRACE" -f table --wall-clock --from "$FROM" --to "$TO" | head -9

step "per device and operation"
show "$BIN" --trace-parser --statistics --path "$TRACE" --format table

step "over time, in 0.1 s intervals"
show "$BIN" --trace-parser --time-series --interval 0.1 --path "$TRACE" --format table

step "latency histogram"
show "$BIN" --trace-parser --latency-histogram --path "$TRACE" --format table

step "the slowest tenth of the I/Os (their 90th latency percentile or more), who sent them, on which file"
# the percentile from --statistics, in whole us: the cut is this run's own
P90=$("$BIN" -P --statistics -p "$TRACE" | python3 -c '
import json, sys
print(max(1, json.load(sys.stdin)["statistics"][0]["total"]["latency"]["percentiles"]["90.000000th"] // 1000))')
echo "\$ $BIN -P --io -p $TRACE -f table --min-latency ${P90}us | head -11"
"$BIN" -P --io -p "$TRACE" -f table --min-latency "${P90}us" | head -11

step "per file: system calls (--vfs) and the block I/O beneath them"
show "$BIN" --trace-parser --file-statistics --path "$TRACE" --format table

step "per process and cgroup: who did the I/O"
show "$BIN" --trace-parser --process-statistics --path "$TRACE" --format table

if [ -n "${JOB_CG:-}" ]; then
	step "one batch job's I/O by its cgroup, its steps' included, after the job is gone
   (the trace names its cgroups: iotrace.cgroups)"
	show "$BIN" --trace-parser --process-statistics --path "$TRACE" --cgroup "$JOB_CG" --format table
fi

step "the access pattern: sequential runs and unaligned I/O, per device, process, cgroup and file,
   as block I/O and as calls (the calls are in whole 4 KiB units, but mkfs gives an ext4
   this small 1 KiB blocks, and its block I/O is not)"
show "$BIN" --trace-parser --access-pattern --path "$TRACE" --format table

step "the hit ratio an LRU cache in front of the device would have had, by its size
   (buffered.bin is read back after it was written: those reads hit in a cache that holds it)"
show "$BIN" --trace-parser --hit-ratio-curve --path "$TRACE" --format table

step "events as recorded, per type"
COUNT='s/^{"header":{[^}]*},"\([a-zA-Z]*\)".*/\1/p'
echo "\$ $BIN -P --io --raw -p $TRACE | sed -n '$COUNT' | sort | uniq -c | sort -rn"
"$BIN" -P --io --raw -p "$TRACE" | sed -n "$COUNT" | sort | uniq -c | sort -rn
echo "(--io exit status $prc)"

echo
echo "The trace is in $IOTRACE_TRACE_DIR/$TRACE"
if [ -n "$TMP_REPO" ] && [ "$KEEP" != 1 ]; then
	echo "(a temporary repository, removed now; run with KEEP=1 to keep it)"
fi
