#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A view with --to stops reading once the window can change no more
# (parser/window_end.h): on a 120 s trace whose files end in damage, a
# window of its first 5 s gives what the whole trace gives for it, waits
# for the completion of an I/O of the window 35 s late, and stops short of
# the damage; an I/O of the window that never completes, or --devices,
# reads to the end.
#
# usage: window_end.sh IOTRACE_BINARY
set -u

bin=$1
fails=0

tmp=$(mktemp -d /tmp/iotrace-wend-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/parser/lib.sh
. "$(dirname "$0")/lib.sh"

summary_ok='{"state": "COMPLETE", "droppedEvents": "0"}'
s=1000000000

# spec EXTRA...: an io every second from 0 s to 120 s (id 1, completed
# 1 ms later), an io of id 999 at 4.5 s completed at 40 s, one of id 997
# at 41 s completed at 119 s (in flight wherever the reading stops), and
# EXTRA lines "io TS ID" / "done TS ID"; sorted by time, sids numbered
# in that order, ios to stream 0 and completions to stream 1.
spec() {
	{
		for k in $(seq 0 120); do
			echo "io $((k * s)) 1"
			echo "done $((k * s + 1000000)) 1"
		done
		echo "io $((4 * s + s / 2)) 999"
		echo "done $((40 * s)) 999"
		echo "io $((41 * s)) 997"
		echo "done $((119 * s)) 997"
		for e in "$@"; do
			echo "$e"
		done
	} | sort -k2,2n | awk '{ sid++; if ($1 == "io") print "io", sid, $2, $3, sid * 8, 8 > "/dev/stderr"; else print "done", sid, $2, $3 }' 2>"$tmp/ios"
}

# mkwin DIR EXTRA...: the trace of spec, its stream 0 ending in a record cut short
mkwin() {
	mkdir -p "$1"
	spec "${@:2}" >"$tmp/dones"
	mkios "$1/octf.trace.0" <"$tmp/ios"
	mkios "$1/octf.trace.1" <"$tmp/dones"
	printf '\x32\x0a\x04' >>"$1/octf.trace.0"
	echo "$summary_ok" >"$1/octf.summary"
}

damage="iotrace: trace damaged: $tmp/[a-z]+/octf.trace.0 at byte [0-9]+: truncated record; output is partial$"

# --- the window's end waits for the late completion, and stops short of the damage ---
w=$tmp/win
mkwin "$w"
run_match "whole trace" 3 "^$damage" -- -P --io -p "$w" -f csv
awk -F, -v end=$((5 * s)) 'NR == 1 || $2 < end' "$tmp/out" >"$tmp/want"
[ "$(wc -l <"$tmp/want")" -eq 7 ] || fail "whole trace: $(wc -l <"$tmp/want") lines before 5 s, want 7"
run "--to 5" 0 '' -- -P --io -p "$w" -f csv --to 5
cmp -s "$tmp/out" "$tmp/want" || fail "--to 5: output differs from the whole trace's first 5 s: $(diff "$tmp/want" "$tmp/out" | head -5)"
grep -Eq "^[0-9]+,4500000000,([^,]*,){4}35500000000," "$tmp/out" ||
	fail "--to 5: no latency of 35.5 s for the I/O at 4.5 s: $(grep ',4500000000,' "$tmp/out")"
run "--from 2 --to 5, statistics" 0 '' -- -P --statistics -p "$w" -f csv --from 2 --to 5
grep -q "^8388608,,write,4,0,0," "$tmp/out" || fail "--from 2 --to 5, statistics: $(cat "$tmp/out")"
# a window past the damage reads up to it
run_match "--to 110" 3 "^$damage" -- -P --statistics -p "$w" --to 110
# --devices lists the devices of the whole trace
run_match "--devices --to 5" 3 "^$damage" -- -P --devices -p "$w" --to 5
# what the trace lacks is said of the part read
run_match "--vfs --to 5" 0 "^iotrace: the first [0-9.]+ s of this trace have no VFS records " \
	-- -P --vfs -p "$w" --to 5

# --- an I/O of the window that never completes holds the reading to the end ---
w=$tmp/never
mkwin "$w" "io $((3 * s)) 777"
run_match "never completed" 3 "^$damage" -- -P --statistics -p "$w" --to 5

# --- unless its id came again: then its completion was lost, and the reading stops ---
w=$tmp/reused
mkwin "$w" "io $((3 * s)) 777" "io $((20 * s)) 777" "done $((20 * s + 5)) 777"
run_match "reused id" 0 "^iotrace: warning: 1 I/O in the first [0-9.]+ s of this trace never completed \(its completion is not in the trace\); it is listed last, without latency, if the filters keep it$" \
	-- -P --io -p "$w" -f csv --to 5
[ "$(tail -n 1 "$tmp/out" | cut -d, -f2)" = 3000000000 ] || fail "reused id: last row '$(tail -n 1 "$tmp/out")'"

if [ "$fails" -gt 0 ]; then
	echo "window_end: $fails failure(s)" >&2
	exit 1
fi
echo "window_end: ok"
