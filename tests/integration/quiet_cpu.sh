#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the records of a quiet CPU reach the trace while
# tracing, and none is left behind at the end.
#
#   usage: tests/integration/quiet_cpu.sh PATH/TO/iotrace
#
# The programs stage records per CPU and output them in batches
# (bpf/iotrace_event.h); the collector has a stage that waited a round
# output on its CPU, and reads what is left after detaching. A loop device
# gets one 4 KiB direct read on each CPU, far from filling a stage:
#   1. by default, 3 s later and the tracer still running, the trace
#      parses with those I/Os, each with its completion;
#   2. with IOTRACE_NO_STAGE_FLUSH=1 (no flush while tracing), 3 s later
#      the running trace holds none of them (they wait in the stages, which
#      shows that 1 is the flush's doing), and once the tracer stops, all,
#      each with its completion.
#
# Needs root, BTF, loop devices and taskset; a missing one is a failure,
# not a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

BIN=$(realpath -e "$1") || { echo "FAIL: no binary at '${1:-}'" >&2; exit 1; }
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup taskset dd

iotrace_loop_test quiet 64M
CPUS=$(nproc)

# one direct read per CPU, at a different offset each
read_on_each_cpu() {
	local cpu

	for ((cpu = 0; cpu < CPUS; cpu++)); do
		taskset -c "$cpu" dd if="$LOOP" of=/dev/null bs=4k count=1 skip=$((cpu + 1)) \
			iflag=direct status=none || die "dd on CPU $cpu"
	done
}

# completed TRACE: I/Os of the trace with a latency (their completion)
completed() {
	"$BIN" -P --io -f csv -p "$1" 2>"$T/perr" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "io.latency") l = i; next }
			$l != "" { n++ } END { print n + 0 }'
}

# run ENV...: starts a tracer with that environment, reads on each CPU, waits
run() {
	env "$@" "$BIN" --start-tracing --devices "$DEV" >"$T/out" 2>"$T/err" &
	TRACER_PID=$!
	iotrace_wait_running "$BIN" "$TRACER_PID" "$T/repo" || die "tracer did not start: $(cat "$T/err")"
	read_on_each_cpu
	# two rounds of the poll loop for the stages, a second for the streams' flush
	sleep 3
}

stop() {
	kill -INT "$TRACER_PID"
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=
	[ "$rc" -eq 0 ] || fail "tracer exit status $rc: $(cat "$T/err")"
}

run
n=$(completed "$T/repo/$TRACE")
[ "$n" -eq "$CPUS" ] && ok "while tracing: the read of each of $CPUS CPUs is in the trace, completed" ||
	fail "while tracing: $n completed I/Os in the trace, want $CPUS: $(cat "$T/perr")"
stop
"$BIN" -M -R -p "$TRACE" >/dev/null 2>&1

run IOTRACE_NO_STAGE_FLUSH=1
trace=$T/repo/$TRACE
n=$(completed "$trace")
[ "$n" -eq 0 ] && ok "no flush while tracing: the reads wait in the stages" ||
	fail "no flush while tracing: $n completed I/Os in the running trace, want 0"
stop
n=$(completed "$trace")
[ "$n" -eq "$CPUS" ] && ok "no flush while tracing: at the end the stages give all $CPUS reads, completed" ||
	fail "no flush while tracing: $n completed I/Os at the end, want $CPUS: $(cat "$T/perr")"
finish
