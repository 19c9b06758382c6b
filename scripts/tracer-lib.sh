# SPDX-License-Identifier: BSD-3-Clause
# Shell helpers shared by the demo and the shell tests: source this file.

# iotrace_stop PID: ask the tracer to finish (SIGINT: it writes its final
# summary), give it 5 s, then kill it. Safe to call for a PID that is gone.
iotrace_stop() {
	local pid=$1

	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}

# iotrace_temp_repository DIR: traces, the tracer lock and the config file all
# under DIR, so a run never touches /var/lib/iotrace, never waits on or
# blocks a real tracer, and never rewrites /etc/iotrace.
iotrace_temp_repository() {
	mkdir -p -m 700 "$1"
	export IOTRACE_TRACE_DIR=$1
	export IOTRACE_LOCK_FILE=$1/iotrace.lock
	export IOTRACE_CONFIG=$1/iotrace.conf
}
