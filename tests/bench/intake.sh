#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/intake builds its own collector around the intake (no BPF), so a
# field the collector gains can leave it uninitialised: from 99124ef on it
# crashed on the first record, and nothing ran it. Runs it on a gen_trace
# trace at two compression levels: every kernel record must come back as
# one message, the same messages at both levels, and nothing left behind.
#
# usage: intake.sh GEN_TRACE INTAKE
set -u
gen=${1:?usage: intake.sh GEN_TRACE INTAKE}
intake=${2:?usage: intake.sh GEN_TRACE INTAKE}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$gen" "$tmp/trace" 60000 2 >/dev/null || { echo "FAIL: gen_trace"; exit 1; }
mkdir "$tmp/out"
for level in 0 3; do
	"$intake" -r 2 -l "$level" -o "$tmp/out" "$tmp/trace" >"$tmp/l$level" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		fail "intake -l $level exited $rc: $(tail -n 1 "$tmp/l$level")"
		continue
	fi
	records=$(sed -n 's/^\([0-9]*\) kernel records.*/\1/p' "$tmp/l$level")
	msgs=$(sed -n 's/.* \([0-9]*\) messages, .*/\1/p' "$tmp/l$level")
	[ -n "$records" ] && [ "$records" -gt 10000 ] || fail "-l $level: records '$records'"
	[ "$records" = "$msgs" ] || fail "-l $level: $records records in, $msgs messages back"
	sed -n 's/.*checksum //p' "$tmp/l$level" >"$tmp/sum$level"
done
[ -s "$tmp/sum0" ] && cmp -s "$tmp/sum0" "$tmp/sum3" ||
	fail "messages differ by level: $(cat "$tmp/sum0" 2>/dev/null) / $(cat "$tmp/sum3" 2>/dev/null)"
[ -z "$(ls -A "$tmp/out")" ] || fail "left behind in -o: $(ls -A "$tmp/out")"
[ "$fails" = 0 ] && echo "bench intake: pass" || exit 1
