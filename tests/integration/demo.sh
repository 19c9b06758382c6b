#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the README's quick start, `make demo`, works and
# leaves nothing behind.
#
#   usage: tests/integration/demo.sh PATH/TO/iotrace
#
# Runs scripts/demo.sh with the binary, in a temporary repository of its
# own (IOTRACE_TRACE_DIR unset), and checks:
#   - it exits 0, prints every step, and says nothing on stderr but the
#     tracer's own notes;
#   - the steps show what they say: the joined I/Os with the files the
#     workload wrote, the trace's summary, statistics, and the batch job's
#     I/O by its cgroup after its cgroups were removed, named by path;
#   - no loop device, mount, cgroup, temporary directory or tracer of the
#     demo's is left.
#
# Needs root, BTF, loop devices, ext4 and a cgroup2 mount (the demo's job
# step); a missing one is a failure, never a skip.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mounts, BPF" losetup mkfs.ext4 mount findmnt
iotrace_require_cgroup2
iotrace_require_loop
DEMO=$(dirname "$(realpath "$0")")/../../scripts/demo.sh
T=$(mktemp -d /tmp/iotrace-demotest.XXXXXX)
trap 'rm -rf "$T"' EXIT

# what the demo makes, by the names it gives them
leftovers() {
	losetup -a | grep -F /dev/shm/iotrace-demo.
	findmnt -rn -o TARGET | grep -F /tmp/iotrace-demo-mnt.
	ls -d /tmp/iotrace-demo.* /tmp/iotrace-demo-work.* /tmp/iotrace-demo-mnt.* \
		/dev/shm/iotrace-demo.* "$CG2"/iotrace-demo-* 2>/dev/null
	pgrep -a -x iotrace
}
leftovers >"$T/before"

env -u IOTRACE_TRACE_DIR -u KEEP bash "$DEMO" "$BIN" >"$T/out" 2>"$T/err" </dev/null
rc=$?
check "the demo exits 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/      stderr: /' "$T/err" | tail -20

steps=$(grep -c '^== ' "$T/out")
check "it prints its 17 steps (got $steps)" [ "$steps" = 17 ]
# the tracer's notes (iotrace: ...) are its own; the demo's errors start with demo:
check "nothing on stderr from the demo itself" bash -c "! grep -v '^iotrace: ' '$T/err' | grep -q ."
check "the tracer stopped with exit status 0" grep -qx '(exit status 0)' "$T/out"
check "the joined I/Os name the files written (/dir1/buffered.bin)" grep -qF '/dir1/buffered.bin' "$T/out"
check "the parser's --io exit status was 0" grep -qx '(--io exit status 0)' "$T/out"
check "the summary says COMPLETE" grep -q '"state": "COMPLETE"' "$T/out"
job=$(sed -n "/^== one batch job's I\/O/,/^== /p" "$T/out")
check "the batch job's step: its cgroup's path, the job gone" \
	grep -qE '/iotrace-demo-[0-9]+/job_1/step_0' <<<"$job"
# the rows under "by cgroup:" (after its heading line), up to the blank line
rows=$(awk '/^by cgroup:/ { f = 1; getline; next } f && /^$/ { f = 0 } f' <<<"$job")
check "... and only it: one cgroup row (got $(wc -l <<<"$rows"))" [ "$(wc -l <<<"$rows")" = 1 ]
check "the job's 32 writes of 64 KiB are its step's: 32 I/Os, 2 MiB written" \
	awk '$1 ~ /^\/iotrace-demo-[0-9]+\/job_1\/step_0$/ && $2 == 32 && $5 " " $6 == "2 MiB" { ok = 1 }
		END { exit !ok }' <<<"$rows"

leftovers >"$T/after"
check "nothing of the demo's is left (loop devices, mounts, cgroups, directories, tracers)" \
	diff "$T/before" "$T/after"
finish
