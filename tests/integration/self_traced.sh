#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a trace repository on a traced device. On a node
# with one disk that is the usual case, so the tracer does not refuse it,
# but it says that its own block I/O is in the trace; its system calls and
# file events are not (they are its bookkeeping: the summary is renamed
# into place every second).
#
#   usage: tests/integration/self_traced.sh PATH/TO/iotrace
#
# 1. An ext4 on a loop device, the repository on it, traced while dd
#    writes a file: one warning line naming the device; the trace holds
#    I/O on its own stream and summary files, and no file event of them,
#    while dd's file has its Create.
# 2. The same with --vfs: dd's calls are recorded, none of the tracer's.
# 3. The repository off the traced device: nothing said on stderr.
# 4. A btrfs on the traced device (its files carry an anonymous device
#    number, not the disk's): the warning says a file system of a traced
#    device.
# (A tracer in a pid namespace of its own: pid_namespace.sh.)
#
# Needs root, BTF, loop devices, ext4, btrfs, bpftool and
# python3; a missing one is a failure, never a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" \
	losetup mkfs.ext4 mkfs.btrfs mount umount mountpoint dd python3 truncate bpftool
iotrace_require_loop
iotrace_fs_test_start selftraced
HOME_REPO=$IOTRACE_TRACE_DIR

# EVENTS TRACE: the parser's --io records of TRACE (a path), "kind path"
# lines: io or the event type, and the file's path (none without one)
events() {
	timeout -k 5 120 "$BIN" -P --io -p "$1" 2>"$T/parse.err" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    f = e.get("file", {})
    print("io" if "io" in e else f.get("eventType", "?"), f.get("path", "none"))
'
}

# RUN LABEL REPO ARG...: traces LN with the repository in REPO (a 20 MiB
# file written meanwhile, and time for two summary rewrites), then the
# trace's events to $T/LABEL.events; the tracer's stderr is $T/LABEL.err,
# its pid TRACED_PID
run() {
	local label=$1 repo=$2
	shift 2

	mkdir -p "$repo" && chmod 700 "$repo"
	export IOTRACE_TRACE_DIR=$repo
	iotrace_test_start_tracer "$label: " "$T/$label.out" "$T/$label.err" -S -d "$LN" "$@"
	TRACED_PID=$TRACER_PID
	SELF_TGID=$(iotrace_bss self_tgid)
	dd if=/dev/urandom of="$MNT/data.$label" bs=1M count=20 conv=fsync status=none ||
		fail "$label: the workload failed"
	sleep 2.2
	iotrace_test_stop_tracer "$label: " "$T/$label.out" "$T/$label.err"
	TRACE_PATH=$repo/$TRACE
	events "$TRACE_PATH" >"$T/$label.events" ||
		fail "$label: the parser failed: $(head -3 "$T/parse.err")"
	export IOTRACE_TRACE_DIR=$HOME_REPO
}

warned() {
	grep -cF "iotrace: warning: the trace is written to $1" "$2"
}

iotrace_quiet_ext4 256M selftraced "$T" || die "$SETUP_ERR"

# --- 1: the repository on the traced ext4 ---
run 1 "$MNT/repo"
check "1: stderr is one line" [ "$(wc -l <"$T/1.err")" = 1 ]
n=$(warned "a traced device ($LN): its own block I/O is in it" "$T/1.err")
check "1: the warning names $LN ($n)" [ "$n" = 1 ]
n=$(grep -cE "^io /repo/$TRACE/(\.?octf\.summary(\.tmp)?|octf\.trace\.[0-9]+\.zst)$" "$T/1.events")
check "1: the trace holds I/O on its own files ($n)" [ "$n" -ge 1 ]
n=$(grep -v '^io ' "$T/1.events" | grep -c " /repo/")
check "1: ... and no file event of them ($n)" [ "$n" = 0 ]
check "1: dd's file has its Create" grep -qx "Create /data.1" "$T/1.events"
check "1: the programs were told the tracer's pid ($SELF_TGID)" [ "$SELF_TGID" = "$TRACED_PID" ]
n=$(grep -cx "io /data.1" "$T/1.events")
check "1: the workload's I/O is traced beside them ($n)" [ "$n" -ge 5 ]

# --- 2: with --vfs: calls of dd, none of the tracer's ---
run 2 "$MNT/repo" --vfs
"$BIN" -P --vfs -f csv -p "$TRACE_PATH" 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print(sum(r["process.pid"] == sys.argv[1] for r in rows), sum(r["process.comm"] == "dd" for r in rows))
' "$TRACED_PID" >"$T/2.calls"
read -r own dd <"$T/2.calls"
check "2: no call of the tracer's (pid $TRACED_PID) is recorded (${own:-none})" [ "${own:-x}" = 0 ]
check "2: dd's calls are (${dd:-none})" [ "${dd:-0}" -ge 20 ]
n=$(grep -v '^io ' "$T/2.events" | grep -c " /repo/")
check "2: no file event of the tracer's files ($n)" [ "$n" = 0 ]

# --- 3: the repository elsewhere ---
run 3 "$T/elsewhere"
check "3: nothing said on stderr" [ ! -s "$T/3.err" ]
n=$(grep -c "^io /data.3$" "$T/3.events")
check "3: the workload's I/O is traced ($n)" [ "$n" -ge 5 ]

iotrace_teardown_fs

# --- 4: btrfs, whose files have a device number of their own ---
iotrace_shm_fs btrfs 512M selftraced "$T" || die "$SETUP_ERR"
run 4 "$MNT/repo"
n=$(warned "a file system of a traced device: its own block I/O is in it" "$T/4.err")
check "4: the warning says a file system of a traced device ($n)" [ "$n" = 1 ]
n=$(grep -v '^io ' "$T/4.events" | grep -c " /repo/")
check "4: no file event of the tracer's files ($n)" [ "$n" = 0 ]

finish
