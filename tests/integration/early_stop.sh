#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a stop asked for while the tracer is still
# starting (loading its programs, a few tenths of a second) is not lost.
#
#   usage: tests/integration/early_stop.sh PATH/TO/iotrace
#
# 0.1 s after launch, before the trace is RUNNING:
#   1. SIGINT to a tracer that inherited SIGINT ignored (as a script's
#      background job does): it must not run on to its --time;
#   2. SIGTERM with its default action: it must not die half-started.
# Either way the trace begins and ends at once: exit 0, the summary
# printed, COMPLETE, stopReason "signal", traceDuration 0.
#
# Needs root, BTF and loop devices; a missing one is a failure, not a
# skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup
iotrace_loop_test early-stop 64M

# early NAME SIG [ignore]: launches a tracer (--time 30), sends SIG 0.1 s
# later, and checks how it ended
early() {
	local name=$1 sig=$2 ignore=${3:-} rc running
	if [ -n "$ignore" ]; then
		(trap '' INT; exec "$BIN" -S -d "$DEV" -t 30 >"$T/$name.out" 2>"$T/$name.err") &
	else
		"$BIN" -S -d "$DEV" -t 30 >"$T/$name.out" 2>"$T/$name.err" &
	fi
	TRACER_PID=$!
	sleep 0.1
	running=$(iotrace_running_trace "$BIN")
	kill "-$sig" "$TRACER_PID"
	[ -z "$running" ] || note "$name: the trace was RUNNING already when $sig was sent (a fast start): the check below still holds"
	if ! iotrace_wait_exit "$TRACER_PID" 15; then
		fail "$name: tracer still running 15 s after SIG$sig (the signal was lost)"
		kill -KILL "$TRACER_PID"
	fi
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=
	check "$name: exit 0 (got $rc)" [ "$rc" = 0 ]
	[ -s "$T/$name.err" ] && sed 's/^/      stderr: /' "$T/$name.err" | head -3
	check "$name: summary printed, state COMPLETE" \
		[ "$(iotrace_json_get "$T/$name.out" state)" = COMPLETE ]
	check "$name: stopReason signal" [ "$(iotrace_json_get "$T/$name.out" tags stopReason)" = signal ]
	check "$name: traceDuration 0" [ "$(iotrace_json_get "$T/$name.out" traceDuration)" = 0 ]
	iotrace_wait_detached || fail "$name: a detach helper still runs 30 s after the stop"
}

early sigint-ignored INT ignore
early sigterm TERM
finish
