#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a tracer in a pid namespace of its own, as in a
# container without the host's pids. There getpid() is a number of that
# namespace (1 is its init), the programs see every task by its number in
# the initial one, and the numbers a user gives --pids are the
# namespace's (bpf/pid_ns.bpf.h).
#
#   usage: tests/integration/pid_namespace.sh PATH/TO/iotrace
#
# 1. The tracer is pid 1 of a namespace (unshare --pid), its repository
#    on the traced ext4: its programs are told its pid in the initial
#    namespace and its namespace's depth (1), read with bpftool; its
#    summary's rewrites make no file event in the trace, while dd's file,
#    written outside, has its Create.
# 2. --vfs --pids with the namespace's numbers: of a dd in the tracer's
#    namespace and of one in a namespace nested in it (numbered there
#    too). Both dd's calls are recorded, and none of a third dd outside,
#    which the namespace cannot see; the trace gives them the initial
#    namespace's pids. Before, --pids compared the namespace's numbers
#    with the initial one's: neither dd was kept.
# 3. As where the kernel does not run the program that finds the tracer
#    (IOTRACE_NO_WHOAMI=1): in the initial namespace its pid is getpid();
#    in one of its own, --pids is refused in one line, leaving no trace,
#    and without --pids it traces, its own calls too.
#
# Needs root, BTF, loop devices, ext4, unshare, pgrep, bpftool and
# python3; a missing one is a failure, never a skip. Everything set up is
# torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, pid namespaces, BPF" \
	losetup mkfs.ext4 mount umount mountpoint dd python3 truncate unshare pgrep bpftool
iotrace_require_loop
iotrace_fs_test_start pidns
UNSHARE_PID=

iotrace_test_undo() {
	[ -n "$UNSHARE_PID" ] && kill -KILL "$UNSHARE_PID" 2>/dev/null && wait "$UNSHARE_PID"
	# the namespace's init is the tracer: stopping it ends its other tasks
	return 0
}

# START LABEL SCRIPT: runs SCRIPT (bash) as pid 1 of a new pid namespace
# with /proc of its own; it ends by exec'ing the tracer. Sets UNSHARE_PID,
# TRACER_PID (the tracer, as the initial namespace numbers it) and TRACE.
start() {
	local label=$1

	unshare --pid --fork --mount-proc --kill-child bash -c "$2" >"$T/$label.out" 2>"$T/$label.err" &
	UNSHARE_PID=$!
	iotrace_wait_running "$BIN" "$UNSHARE_PID" "$IOTRACE_TRACE_DIR"
	[ -n "$TRACE" ] || die "$label: the tracer in a pid namespace did not reach RUNNING: $(tail -3 "$T/$label.err")"
	TRACER_PID=$(pgrep -P "$UNSHARE_PID" -x iotrace)
	[ -n "$TRACER_PID" ] || die "$label: no iotrace is unshare's child"
}

# STOP LABEL: SIGINT to the tracer; unshare exits with its status
stop() {
	local label=$1 rc

	kill -INT "$TRACER_PID"
	iotrace_wait_exit "$UNSHARE_PID" 30 || fail "$label: tracer still running 30 s after SIGINT"
	wait "$UNSHARE_PID"
	rc=$?
	UNSHARE_PID=
	TRACER_PID=
	check "$label: tracer exit 0 (got $rc)" [ "$rc" = 0 ]
	iotrace_wait_detached || fail "$label: a detach helper still runs 30 s after the stop"
}

iotrace_quiet_ext4 256M pidns "$T" || die "$SETUP_ERR"
export IOTRACE_TRACE_DIR=$MNT/repo
mkdir -m 700 "$IOTRACE_TRACE_DIR"

# --- 1: its own calls are left out, its pid found in the initial namespace ---
start 1 "exec '$BIN' -S -d '$LN'"
n=$(iotrace_bss self_tgid)
check "1: its programs were told its pid in the initial namespace ($n, tracer $TRACER_PID)" \
	[ "$n" = "$TRACER_PID" ]
n=$(iotrace_bss self_ns_level)
check "1: ... and its namespace's depth ($n)" [ "$n" = 1 ]
dd if=/dev/urandom of="$MNT/data.1" bs=1M count=4 conv=fsync status=none || fail "1: the workload failed"
sleep 2.2
stop 1
timeout -k 5 120 "$BIN" -P --io -p "$IOTRACE_TRACE_DIR/$TRACE" 2>"$T/parse.err" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    if "io" not in e:
        print(e["file"]["eventType"], e["file"].get("path", "none"))
' >"$T/1.events" || fail "1: the parser failed: $(head -3 "$T/parse.err")"
n=$(grep -c " /repo/" "$T/1.events")
check "1: no file event of its summary's rewrites ($n)" [ "$n" = 0 ]
check "1: dd's file has its Create" grep -qx "Create /data.1" "$T/1.events"

# --- 2: --pids as the tracer's namespace numbers them ---
for d in ddin ddnest ddout; do
	cp "$(command -v dd)" "$T/$d" || die "cannot copy dd"
done
# each waits for $T/go, then writes 16 blocks, each a write call
work() { echo "while [ ! -e '$T/go' ]; do sleep 0.02; done; exec '$T/$1' if=/dev/zero of='$MNT/$1' bs=64k count=16 conv=fsync status=none"; }
cat >"$T/ns.sh" <<EOF
( $(work ddin) ) &
IN=\$!
unshare --pid --fork bash -c "$(work ddnest)" &
NESTER=\$!
NEST=
for _ in \$(seq 100); do
	NEST=\$(pgrep -P \$NESTER)
	[ -n "\$NEST" ] && break
	sleep 0.02
done
echo "\$IN \$NEST" >'$T/pids'
exec '$BIN' -S -d '$LN' --vfs --pids "\$IN,\$NEST"
EOF
start 2 "bash '$T/ns.sh'"
read -r in nest <"$T/pids"
note "the namespace's pids: ddin $in, ddnest $nest (nested)"
(eval "$(work ddout)") &
OUT_PID=$!
touch "$T/go"
wait "$OUT_PID" || fail "2: ddout failed"
# both wrote all (a dd not yet started, still the shell waiting for go,
# is no ddin to pgrep), and ended: the tracer, their init, reaps no
# child, so a dd that ended is a zombie
for _ in $(seq 400); do
	busy=0
	for f in ddin ddnest; do
		[ "$(stat -c %s "$MNT/$f" 2>/dev/null)" = 1048576 ] || busy=1
	done
	for p in $(pgrep -x 'ddin|ddnest'); do
		read -r _ _ state _ 2>/dev/null <"/proc/$p/stat" && [ "$state" != Z ] && busy=1
	done
	[ "$busy" = 0 ] && break
	sleep 0.05
done
[ "$busy" = 0 ] || fail "2: ddin and ddnest did not write their 1 MiB within 20 s"
stop 2
"$BIN" -P --vfs -f csv -p "$IOTRACE_TRACE_DIR/$TRACE" 2>"$T/parse.err" | python3 -c '
import collections, csv, sys
rows = list(csv.DictReader(sys.stdin))
calls = collections.Counter(r["process.comm"] for r in rows if r["vfs.call"] == "write")
pids = {r["process.comm"]: r["process.pid"] for r in rows}
print(calls["ddin"], calls["ddnest"], calls["ddout"], pids.get("ddin", ""), pids.get("ddnest", ""))
' >"$T/2.calls" || fail "2: the parser failed: $(head -3 "$T/parse.err")"
read -r n_in n_nest n_out pid_in pid_nest <"$T/2.calls"
check "2: the write calls of the dd given as $in are recorded (${n_in:-none})" [ "${n_in:-0}" = 16 ]
check "2: ... and of the nested one, given as $nest (${n_nest:-none})" [ "${n_nest:-0}" = 16 ]
check "2: none of the dd outside the namespace (${n_out:-none})" [ "${n_out:-x}" = 0 ]
host=0
[ -n "$pid_in" ] && [ "$pid_in" != "$in" ] && [ -n "$pid_nest" ] && [ "$pid_nest" != "$nest" ] && host=1
check "2: the trace gives them the initial namespace's pids ($pid_in, $pid_nest)" [ "$host" = 1 ]

# --- 3: where the kernel does not run whoami (IOTRACE_NO_WHOAMI=1) ---
export IOTRACE_NO_WHOAMI=1
iotrace_test_start_tracer "3: " "$T/3.out" "$T/3.err" -S -d "$LN"
n=$(iotrace_bss self_tgid)
check "3: in the initial namespace, its programs are told getpid() ($n, tracer $TRACER_PID)" \
	[ "$n" = "$TRACER_PID" ]
iotrace_test_stop_tracer "3: " "$T/3.out" "$T/3.err"
before=$(ls "$IOTRACE_TRACE_DIR/kernel" | wc -l)
timeout -k 5 60 unshare --pid --fork --mount-proc "$BIN" -S -d "$LN" --vfs --pids 1 \
	>"$T/3b.out" 2>"$T/3b.err"
rc=$?
check "3: in a namespace of its own, --pids is refused (exit $rc)" [ "$rc" = 1 ]
n=$(grep -c "^iotrace: cannot use --pids in a pid namespace of the tracer's own (a container's): " "$T/3b.err")
lines=$(wc -l <"$T/3b.err")
check "3: ... in one line ($n of $lines: $(head -c 300 "$T/3b.err"))" [ "$n:$lines" = 1:1 ]
n=$(ls "$IOTRACE_TRACE_DIR/kernel" | wc -l)
check "3: ... and no trace is left of it ($n traces, $before before)" [ "$n" = "$before" ]
start 3c "exec '$BIN' -S -d '$LN'"
n=$(iotrace_bss self_tgid)
check "3: without --pids it traces, its own calls too (self_tgid $n)" [ "$n" = 0 ]
stop 3c
unset IOTRACE_NO_WHOAMI

finish
