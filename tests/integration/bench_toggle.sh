#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: IOTRACE_BENCH_TOGGLE_MS, the switch
# bench/overhead-toggle measures with (src/bench_toggle.h).
#
#   usage: tests/integration/bench_toggle.sh PATH/TO/iotrace
#
#   1. a value that is no period (a word, 5 ms): one error line naming
#      the variable, a non-zero exit, no trace left running;
#   2. with 500 ms, direct reads kept up for 3 s: the trace has gaps of
#      about 500 ms between I/Os (the programs were off), more than one
#      (they came back on), and the tracer stops with exit 0 and no
#      events lost;
#   3. the same with IOTRACE_BENCH_TOGGLE=collector (the collector drops
#      the records in the off windows): the same gaps, and its warning
#      says so; IOTRACE_BENCH_TOGGLE=sometimes is refused like 1;
#   4. the same reads traced without it: no gap of even 250 ms, so the
#      gaps of 2 and 3 are the switch's and not the reads'.
#
# Needs root, BTF, loop devices and dd; a missing one is a failure, not
# a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup dd awk
iotrace_require_loop

iotrace_loop_test toggle 64M

for bad in soon 5; do
	IOTRACE_BENCH_TOGGLE_MS=$bad "$BIN" --start-tracing --devices "$DEV" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	msg=$(cat "$T/bad.err")
	check "IOTRACE_BENCH_TOGGLE_MS=$bad: non-zero exit (got $rc)" [ "$rc" -ne 0 ]
	check "IOTRACE_BENCH_TOGGLE_MS=$bad: one error line naming it: $msg" \
		bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "IOTRACE_BENCH_TOGGLE_MS" "$1"' _ "$T/bad.err"
done
IOTRACE_BENCH_TOGGLE_MS=500 IOTRACE_BENCH_TOGGLE=sometimes "$BIN" --start-tracing --devices "$DEV" >"$T/bad.out" 2>"$T/bad.err"
rc=$?
msg=$(cat "$T/bad.err")
check "IOTRACE_BENCH_TOGGLE=sometimes: non-zero exit (got $rc)" [ "$rc" -ne 0 ]
check "IOTRACE_BENCH_TOGGLE=sometimes: one error line naming it: $msg" \
	bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "IOTRACE_BENCH_TOGGLE must be" "$1"' _ "$T/bad.err"
running=$(iotrace_running_trace "$BIN")
check "no trace left running after the refused starts ('$running')" [ -z "$running" ]

# reads SECONDS: 4 KiB direct reads, one after another, for that long
reads() {
	local end=$((SECONDS + $1))

	while [ "$SECONDS" -lt "$end" ]; do
		dd if="$LOOP" of=/dev/null bs=4k count=4096 iflag=direct status=none || die "dd"
	done
}

# gaps TRACE: "largest gap in ms, gaps over 250 ms, span in ms" between the
# submissions of the trace's I/Os, sorted: --io lists an I/O whose
# completion never came last, out of submission order, and some do lack
# one (README, "--io": the PID 1 completions)
gaps() {
	"$BIN" -P --io -f csv -p "$1" 2>"$T/perr" | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "header.timestamp") c = i; next }
		c && $c != "" { print $c }' | sort -n | awk '
		{ t = $1 / 1e6; if (n++) { g = t - last; if (g > max) max = g; if (g > 250) big++ }
			else first = t; last = t }
		END { printf "%d %d %d\n", max, big, n ? last - first : 0 }'
}

# traced LABEL ENV...: the reads traced with that environment; GAPS from gaps()
traced() {
	local label=$1

	shift
	env "$@" "$BIN" --start-tracing --devices "$DEV" >"$T/$label.out" 2>"$T/$label.err" &
	TRACER_PID=$!
	iotrace_wait_running "$BIN" "$TRACER_PID" "$T/repo" || die "$label: tracer did not start: $(tail -n 1 "$T/$label.err")"
	reads 3
	iotrace_test_stop_tracer "$label: " "$T/$label.out" "$T/$label.err"
	read -r max big span <<<"$(gaps "$T/repo/$TRACE")"
	note "$label: largest gap ${max} ms, ${big} gaps over 250 ms, I/Os over ${span} ms"
}

traced toggled IOTRACE_BENCH_TOGGLE_MS=500
check "toggled: a gap of about 500 ms, the programs off (largest ${max} ms)" \
	awk -v m="$max" 'BEGIN { exit !(m >= 400 && m <= 1500) }'
check "toggled: more than one such gap, the programs back on between (${big})" [ "$big" -ge 2 ]
check "toggled: I/Os traced over more than 1.5 s (${span} ms)" [ "$span" -ge 1500 ]

traced collector IOTRACE_BENCH_TOGGLE_MS=500 IOTRACE_BENCH_TOGGLE=collector
check "collector: its warning says the collector drops the records" grep -q "the collector drops the records" "$T/collector.err"
check "collector: a gap of about 500 ms, the records dropped (largest ${max} ms)" \
	awk -v m="$max" 'BEGIN { exit !(m >= 400 && m <= 1500) }'
check "collector: more than one such gap, the records kept between (${big})" [ "$big" -ge 2 ]
check "collector: I/Os traced over more than 1.5 s (${span} ms)" [ "$span" -ge 1500 ]

traced steady
check "untoggled: no gap over 250 ms (largest ${max} ms)" [ "$big" -eq 0 ]
check "untoggled: I/Os traced over more than 2 s (${span} ms)" [ "$span" -ge 2000 ]

finish
