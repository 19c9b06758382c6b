#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the syscall programs (file events and renames)
# are attached only once a file system on a traced device is in use.
# Attached, they make every system call on the node slower; a raw
# device's users must not pay for them.
#
#   usage: tests/integration/fs_watch.sh PATH/TO/iotrace
#
# 1. An ext4 on a loop device, not mounted, traced without --vfs, as a
#    kernel before 6.1 (IOTRACE_NO_URING=1): the block programs are
#    attached, no syscall program is, raw reads of the device are in the
#    trace, and nothing is said of io_uring's file events.
# 2. The ext4 is mounted: the tracer says file events are traced from now
#    on, and that io_uring's are not followed, the syscall programs are
#    attached, and a file created, its
#    directory renamed, the file read again and deleted gives Create and
#    Delete events and I/O under its new path.
# 3. A second trace, the ext4 mounted in a mount namespace of its own,
#    which the tracer cannot see: sysfs's fs/ext4/<device> is what
#    attaches the syscall programs, within a round; a file created after
#    that has its Create event.
# 3b. The same with the tracer's view of /sys/fs/ext4 hidden (as for a
#    file system sysfs does not list): the first file written there is
#    what attaches them.
# 4. The ext4, not mounted, traced with --vfs: the tracer says calls are
#    traced once a file system is mounted, and attaches no syscall
#    program until the ext4 is; then dd's writes to a new file are
#    recorded as calls.
# 5. The same, but the tracer may open only two more files when the ext4
#    is mounted (prlimit): the attach fails part way; the tracer warns
#    that calls and file events are not traced, leaves no syscall program
#    attached (each would tax every call on the node), and traces block
#    I/O on to a clean exit.
# 6. The ext4 mounted, traced with --no-file-events: no syscall program is
#    loaded, nothing is said on stderr; a file written and renamed has its
#    I/O under its first name and no Create or Move event.
# 7. The ext4 mounted, traced with --vfs, stopped: the tracer exits with
#    its trace complete while the syscall links are still attached, held
#    by one detach helper (held on by the test), shown by ps as
#    iotrace-detach, that keeps nothing but links, perf events and its
#    pipe, in its own session in /; the lock
#    is free and the ext4 unmounts meanwhile; released, the helper ends
#    and no syscall program is left attached.
#
# Needs root, BTF, loop devices, ext4, unshare, bpftool and python3; a
# missing one is a failure, never a skip. Everything set up is torn down
# at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" \
	losetup mkfs.ext4 mount umount mountpoint unshare prlimit dd bpftool python3 truncate flock
iotrace_require_loop
iotrace_fs_test_start fswatch
iotrace_fs_loop 128M fswatch || die "$SETUP_ERR"
mkfs.ext4 -q -F "$LOOP" >"$T/mkfs.log" 2>&1 || die "mkfs.ext4 failed: $(cat "$T/mkfs.log")"
MNT=$(mktemp -d /tmp/iotrace-fswatch-mnt.XXXXXX)
SYSCALL_PROGS='^handle_(ns_|sys_e|exit_ren)'
HOLD=
# a failed test 7 must not leave its helper held
iotrace_test_undo() {
	[ -n "$HOLD" ] && touch "$HOLD"
	return 0
}

# the names of the programs attached now (a link each), one per line
linked_programs() {
	python3 -c '
import json, subprocess
run = lambda *a: json.loads(subprocess.run(["bpftool", "-j", *a], check=True,
                                           capture_output=True).stdout or "[]")
names = {p["id"]: p.get("name", "") for p in run("prog", "show")}
for l in run("link", "show"):
    print(names.get(l.get("prog_id"), ""))
'
}

# --- 1 and 2: one trace, mounted halfway ---
# as a kernel before 6.1, whose io_uring calls the tracer cannot follow
export IOTRACE_NO_URING=1
iotrace_test_start_tracer "" "$T/1.out" "$T/1.err" -S -d "$LN" -l fs-watch
unset IOTRACE_NO_URING
linked_programs >"$T/linked.0" || die "bpftool cannot list programs and links"
check "1: the block programs are attached" grep -q '^handle_bio_queu' "$T/linked.0"
n=$(grep -cE "$SYSCALL_PROGS" "$T/linked.0")
check "1: no syscall program is attached, nothing being mounted (found $n)" [ "$n" = 0 ]
dd if="$LOOP" of=/dev/null bs=4k count=64 iflag=direct status=none || fail "1: raw reads failed"
check "1: nothing said of io_uring's file events, no file being traced" \
	bash -c "! grep -q 'do not let the tracer follow' '$T/1.err'"

mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"
said="file events (create, delete, rename) are traced from now on: a file system on a traced device is mounted"
check "2: the tracer says file events are traced from now on" iotrace_wait_said "$T/1.err" "$said"
check "2: ... and that io_uring's are not" iotrace_wait_said "$T/1.err" \
	"iotrace: this kernel's tracepoints do not let the tracer follow these, nor count them: io_uring's opens, unlinks and renames (their Create, Delete and Move events) (see tags.notFollowed in the README)"
linked_programs >"$T/linked.1"
n=$(grep -cE "$SYSCALL_PROGS" "$T/linked.1")
check "2: the syscall programs are attached ($n)" [ "$n" -ge 5 ]
# handle_ns_exit moves the rename epoch where it loads (the rename exits elsewhere)
grep -q '^handle_ns_exit' "$T/linked.1"
check "2: the rename exits among them" [ $? = 0 ]

wrc=0
mkdir "$MNT/d" || wrc=1
dd if=/dev/urandom of="$MNT/d/a" bs=4k count=4 conv=fsync status=none || wrc=1
mv "$MNT/d" "$MNT/e" || wrc=1
sync
echo 3 >/proc/sys/vm/drop_caches
dd if="$MNT/e/a" of=/dev/null bs=16k iflag=direct status=none || wrc=1
rm "$MNT/e/a" || wrc=1
sync
check "2: workload ran" [ "$wrc" = 0 ]
sleep 0.3
iotrace_test_stop_tracer "" "$T/1.out" "$T/1.err"
umount "$MNT" || die "cannot unmount $MNT"

# FILE_EVENTS TRACE: the parser's --io records, as "kind path" lines:
# io (with its file's path, none for the raw device) or the event type
file_events() {
	timeout -k 5 120 "$BIN" -P --io -p "$IOTRACE_TRACE_DIR/$1" 2>"$T/parse.err" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    f = e.get("file", {})
    kind = "io" if "io" in e else f.get("eventType", "?")
    print(kind, f.get("path", "none"))
'
}
file_events "$TRACE" >"$T/1.events" || fail "1: the parser failed: $(head -3 "$T/parse.err")"
n=$(grep -c '^io none$' "$T/1.events")
check "1: the raw reads are in the trace ($n I/Os without a file, 64 or more)" [ "$n" -ge 64 ]
check "2: Create of /d/a" grep -qx 'Create /d/a' "$T/1.events"
check "2: I/O of /e/a, renamed with its directory" grep -qx 'io /e/a' "$T/1.events"
check "2: Delete of /e/a" grep -qx 'Delete /e/a' "$T/1.events"

# --- 3: mounted where the tracer cannot see it ---
# unseen SAID FILES...: mounts the ext4 in a mount namespace of its own
# (private propagation: the mount stays out of the tracer's table), then
# for each of FILES writes it, or for "wait" waits for the tracer's line
# SAID on $T/3.err; the script takes its values as arguments
unseen() {
	# shellcheck disable=SC2016
	unshare -m --propagation private bash -c '
		set -e
		dev=$1 mnt=$2 err=$3 said=$4
		shift 4
		mount -o noatime "$dev" "$mnt"
		for f in "$@"; do
			if [ "$f" = wait ]; then
				for _ in $(seq 100); do grep -qF "$said" "$err" && break; sleep 0.1; done
			else
				dd if=/dev/urandom of="$mnt/$f" bs=4k count=4 conv=fsync status=none
			fi
		done
		umount "$mnt"
	' _ "$LOOP" "$MNT" "$T/3.err" "$@" >"$T/3.unshare" 2>&1
}
traced_from_now="file events (create, delete, rename) are traced from now on"
for part in 3 3b; do
	if [ "$part" = 3 ]; then
		tracer=$BIN
		said="$traced_from_now: a file system on a traced device is mounted in another mount namespace"
		files=(wait new3)
	else
		# its first file's I/O is what tells
		tracer=$T/iotrace-no-sysfs-ext4
		cat >"$tracer" <<-EOF
		#!/bin/sh
		exec unshare -m --propagation private sh -c 'mount -t tmpfs iotrace-test /sys/fs/ext4 && exec "\$0" "\$@"' "$BIN" "\$@"
		EOF
		chmod +x "$tracer"
		said="$traced_from_now: files of a traced device are in use"
		files=(old3b wait new3b)
	fi
	BIN=$tracer iotrace_test_start_tracer "$part: " "$T/3.out" "$T/3.err" -S -d "$LN" -l "fs-watch-$part"
	unseen "$said" "${files[@]}"
	check "$part: workload in its own mount namespace ran" [ $? = 0 ]
	mountpoint -q "$MNT" && fail "$part: the namespace's mount is visible here"
	check "$part: the tracer says file events are traced from now on" grep -qF "$said" "$T/3.err"
	iotrace_test_stop_tracer "$part: " "$T/3.out" "$T/3.err"
	file_events "$TRACE" >"$T/3.events" || fail "$part: the parser failed: $(head -3 "$T/parse.err")"
	new=${files[-1]}
	check "$part: Create of /$new, made once the programs were attached" grep -qx "Create /$new" "$T/3.events"
	check "$part: I/O of /$new" grep -qx "io /$new" "$T/3.events"
done

# --- 4: --vfs, mounted halfway ---
iotrace_test_start_tracer "4: " "$T/4.out" "$T/4.err" -S -d "$LN" --vfs -l fs-watch-vfs
# said just after the RUNNING summary is written: waited for
check "4: the tracer says calls are traced once a file system is mounted" iotrace_wait_said "$T/4.err" \
	"iotrace: --vfs: no file system on the traced devices is mounted; calls on their files are traced once one is"
linked_programs >"$T/linked.4"
n=$(grep -cE "$SYSCALL_PROGS" "$T/linked.4")
check "4: no syscall program is attached, nothing being mounted (found $n)" [ "$n" = 0 ]
mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"
said="system calls (--vfs) and file events (create, delete, rename) are traced from now on: a file system on a traced device is mounted"
check "4: the tracer says calls are traced from now on" iotrace_wait_said "$T/4.err" "$said"
linked_programs >"$T/linked.5"
check "4: the call entry program is attached" grep -q '^handle_sys_ent' "$T/linked.5"
dd if=/dev/urandom of="$MNT/v" bs=4k count=8 conv=fsync status=none || fail "4: dd failed"
sleep 0.3
iotrace_test_stop_tracer "4: " "$T/4.out" "$T/4.err"
umount "$MNT" || die "cannot unmount $MNT"
n=$(timeout -k 5 120 "$BIN" -P --vfs -f csv -p "$TRACE" 2>"$T/parse.err" | python3 -c '
import csv, sys
print(sum(1 for r in csv.DictReader(sys.stdin)
          if r["vfs.call"] == "write" and r["process.comm"] == "dd" and r["file.path"] == "/v"))')
check "4: dd's 8 writes to /v recorded as calls (got $n)" [ "$n" = 8 ]

# --- 5: the attach fails once mounted ---
iotrace_test_start_tracer "5: " "$T/5.out" "$T/5.err" -S -d "$LN" --vfs -l fs-watch-fail
nfd=$(find "/proc/$TRACER_PID/fd" -mindepth 1 | wc -l)
prlimit --pid "$TRACER_PID" --nofile=$((nfd + 2)):$((nfd + 2)) || die "prlimit failed"
mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"
said="iotrace: warning: system calls (--vfs) and file events (create, delete, rename) are not traced: cannot attach to syscall tracepoints: Too many open files"
check "5: the tracer says calls and file events are not traced" iotrace_wait_said "$T/5.err" "$said"
linked_programs >"$T/linked.6"
n=$(grep -cE "$SYSCALL_PROGS" "$T/linked.6")
check "5: no syscall program is left attached (found $n)" [ "$n" = 0 ]
dd if=/dev/urandom of="$MNT/w" bs=4k count=8 conv=fsync status=none || fail "5: dd failed"
umount "$MNT" || die "cannot unmount $MNT"
iotrace_test_stop_tracer "5: " "$T/5.out" "$T/5.err"
n=$(iotrace_json_get "$T/5.out" tracedEvents)
check "5: dd's writes traced at block level ($n events)" [ "${n:-0}" -ge 16 ]

# --- 6: --no-file-events ---
mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"
iotrace_test_start_tracer "6: " "$T/6.out" "$T/6.err" -S -d "$LN" --no-file-events -l fs-watch-none
bpftool prog show >"$T/progs.6" || die "bpftool cannot list programs"
n=$(grep -cE "name (handle_ns_|handle_sys_e|handle_exit_ren)" "$T/progs.6")
check "6: no syscall program loaded (found $n)" [ "$n" = 0 ]
check "6: the block programs loaded" grep -q "name handle_bio_queu" "$T/progs.6"
dd if=/dev/urandom of="$MNT/f6" bs=4k count=4 conv=fsync status=none || fail "6: dd failed"
mv "$MNT/f6" "$MNT/g6" || fail "6: mv failed"
sync
sleep 0.3
iotrace_test_stop_tracer "6: " "$T/6.out" "$T/6.err"
umount "$MNT" || die "cannot unmount $MNT"
check "6: nothing on stderr" [ ! -s "$T/6.err" ]
file_events "$TRACE" >"$T/6.events" || fail "6: the parser failed: $(head -3 "$T/parse.err")"
check "6: I/O of /f6, under its first name" grep -qx 'io /f6' "$T/6.events"
n=$(grep -cvE '^io ' "$T/6.events")
check "6: no file event ($n)" [ "$n" = 0 ]

# --- 7: the stop leaves the syscall links to a helper ---
mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"
HOLD=$T/7.hold
IOTRACE_TEST_DETACH_HOLD=$HOLD iotrace_test_start_tracer "7: " "$T/7.out" "$T/7.err" \
	-S -d "$LN" --vfs -l fs-watch-stop
dd if=/dev/urandom of="$MNT/f7" bs=4k count=4 conv=fsync status=none || fail "7: dd failed"
kill -INT "$TRACER_PID"
wait "$TRACER_PID"
rc=$?
TRACER_PID=
check "7: tracer exit 0 (got $rc)" [ "$rc" = 0 ]
check "7: its trace is COMPLETE" [ "$(iotrace_json_get "$T/7.out" state)" = COMPLETE ]
mapfile -t helpers < <(pgrep -x iotrace-detach)
check "7: one detach helper runs after the exit (${helpers[*]:-none})" [ "${#helpers[@]}" = 1 ]
H=${helpers[0]:-0}
for f in /proc/"$H"/fd/*; do readlink "$f"; done | sed 's/:\[[0-9]*\]$/:[N]/' | sort | uniq -c >"$T/7.fds"
n=$(awk '$2 == "anon_inode:bpf_link" { print $1 }' "$T/7.fds")
check "7: the helper holds the syscall links (${n:-0})" [ "${n:-0}" -ge 5 ]
others=$(awk '$2 != "anon_inode:bpf_link" && $2 != "anon_inode:[perf_event]" && !($2 == "pipe:[N]" && $1 == 1)' "$T/7.fds" | tr -s ' \n' ' ')
check "7: and nothing else but its pipe (${others:-})" [ -z "$others" ]
read -r _ _ _ _ _ sid _ 2>/dev/null <"/proc/$H/stat"
check "7: in a session of its own" [ "${sid:-}" = "$H" ]
check "7: in /" [ "$(readlink "/proc/$H/cwd")" = / ]
args=$(ps -o args= -p "$H")
check "7: ps shows it as iotrace-detach, not as the tracer ($args)" [ "$args" = iotrace-detach ]
check "7: the tracer's lock is free" flock -n "$IOTRACE_LOCK_FILE" true
linked_programs >"$T/linked.7"
n=$(grep -cE "$SYSCALL_PROGS" "$T/linked.7")
check "7: the syscall programs are still attached meanwhile ($n)" [ "$n" -ge 5 ]
check "7: the ext4 unmounts meanwhile" umount "$MNT"
touch "$HOLD"
iotrace_wait_detached
check "7: released, the helper ends" [ $? = 0 ]
linked_programs >"$T/linked.7b"
n=$(grep -cE "$SYSCALL_PROGS" "$T/linked.7b")
check "7: then no syscall program is attached (found $n)" [ "$n" = 0 ]
file_events "$TRACE" >"$T/7.events" || fail "7: the parser failed: $(head -3 "$T/parse.err")"
check "7: the trace has /f7's I/O" grep -qx 'io /f7' "$T/7.events"
finish
