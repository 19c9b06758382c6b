#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a tracer killed while it starts leaves a trace
# that says it did not finish, and nothing else behind.
#
#   usage: tests/integration/start_killed.sh PATH/TO/iotrace
#
# The tracer writes its summary saying INITIALIZING before any trace
# file, and RUNNING once its programs are attached, each by a rename(2)
# of a temporary file. strace kills it (SIGKILL: nothing of the tracer
# runs after) on entering its second rename, the RUNNING summary's: its
# files are written and its block programs attached. With --vfs on a
# mounted ext4, its system-call programs too. Then:
#   1. the summary on disk says INITIALIZING, the stream files are there;
#   2. -M -G and -M -L show the trace as ERROR, "tracer died";
#   3. the parser reads it: exit 3 and the line saying the tracer died;
#   4. none of its programs stays loaded (its links went with its file
#      descriptors);
#   5. the next tracer starts, traces and stops (the lock went too).
#
# Needs root, BTF, loop devices and strace; a missing one is a failure,
# not a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup strace bpftool mkfs.ext4
iotrace_fs_test_start start-killed "the trace of the killed tracer"
iotrace_quiet_ext4 64M start-killed "$T" || die "set-up: $SETUP_ERR"

# the ids of the tracer's programs now loaded (of any tracer: only the
# ones that were not there before the start count)
our_programs() {
	bpftool -j prog show | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    name = p.get("name", "")
    if name.startswith("handle_") or name in ("flush_stage", "whoami"):
        print(p["id"])' | sort
}
our_programs >"$T/progs.before"

# strace dies of its tracee's signal; the group keeps bash's "Killed" out of the report
{
	strace -f -qq -o "$T/strace.log" -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:signal=KILL:when=2 \
		"$BIN" -S -d "$LN" --vfs -t 30 >"$T/killed.out" 2>"$T/killed.err"
	rc=$?
} 2>/dev/null
check "the tracer died of SIGKILL (strace exit $rc)" [ "$rc" = 137 ]
[ -s "$T/killed.err" ] && sed 's/^/      stderr: /' "$T/killed.err" | head -3
grep -c rename "$T/strace.log" | sed 's/^/      renames seen by strace: /'

TRACE=$(cd "$T/repo" && find . -name octf.summary -printf '%h\n' | sed 's|^\./||')
[ -n "$TRACE" ] || die "no trace directory with a summary in $T/repo"
check "summary on disk says INITIALIZING" \
	[ "$(iotrace_json_get "$T/repo/$TRACE/octf.summary" state)" = INITIALIZING ]
check "the stream files were written before the kill" \
	bash -c "ls '$T/repo/$TRACE' | grep -q '^octf\.trace\.'"

"$BIN" -M -G -p "$TRACE" >"$T/get.out" 2>"$T/get.err"
check "-M -G: exit 0" [ $? = 0 ]
check "-M -G: state ERROR" [ "$(iotrace_json_get "$T/get.out" state)" = ERROR ]
check "-M -G: stopReason 'tracer died'" \
	[ "$(iotrace_json_get "$T/get.out" tags stopReason)" = "tracer died" ]
"$BIN" -M -L -p "$TRACE" >"$T/list.out" 2>"$T/list.err"
check "-M -L: the trace listed as ERROR" grep -q '"state": "ERROR"' "$T/list.out"

"$BIN" -P -S -p "$TRACE" >"$T/stats.out" 2>"$T/stats.err"
rc=$?
check "-P -S: exit 3 (got $rc)" [ "$rc" = 3 ]
check "-P -S: says the tracer died" grep -q 'the tracer of this trace died before finishing' "$T/stats.err"
sed 's/^/      stderr: /' "$T/stats.err" | head -3

# the kernel closes a dead process's links as its files go; with --vfs's
# classic tracepoints that takes a second or two (src/detach.h)
left=
for _ in $(seq 100); do
	our_programs >"$T/progs.after"
	left=$(comm -13 "$T/progs.before" "$T/progs.after")
	[ -z "$left" ] && break
	sleep 0.3
done
check "no program of the killed tracer left loaded after 30 s${left:+ (ids: $(echo $left))}" [ -z "$left" ]

"$BIN" -S -d "$LN" -t 1 >"$T/next.out" 2>"$T/next.err"
rc=$?
check "the next tracer runs: exit 0 (got $rc)" [ "$rc" = 0 ]
check "the next tracer's trace is COMPLETE" [ "$(iotrace_json_get "$T/next.out" state)" = COMPLETE ]
[ -s "$T/next.err" ] && sed 's/^/      stderr: /' "$T/next.err" | head -3
iotrace_wait_detached || fail "a detach helper still runs 30 s after the next tracer's stop"
finish
