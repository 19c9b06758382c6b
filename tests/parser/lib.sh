# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2154 # bin and tmp are the sourcing script's
#
# The parser's command-line tests' helpers, sourced by parser_cli.sh and
# window_end.sh: running iotrace against a wanted exit and stderr, and
# small OCTF traces written by hand (python3, with octf_rec.py). The
# sourcing script sets bin (the iotrace binary), tmp (its scratch
# directory) and fails=0.

# the trace writers' python, its heredocs' too, imports octf_rec.py kept beside this
PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# run NAME WANT_EXIT WANT_STDERR(exact, '' = none) -- ARGS...: stdout in $tmp/out
run() {
	local name=$1 want_rc=$2 want_err=$3 rc
	shift 4
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "$name: exit $rc, want $want_rc"
	if [ -z "$want_err" ]; then
		[ -s "$tmp/err" ] && fail "$name: stderr '$(cat "$tmp/err")'"
	else
		[ "$(cat "$tmp/err")" = "$want_err" ] ||
			fail "$name: stderr '$(cat "$tmp/err")', want '$want_err'"
	fi
}

# run_match NAME WANT_EXIT ERE -- ARGS...: as run, with a line of stderr matching ERE
run_match() {
	local name=$1 want_rc=$2 want_err=$3 rc
	shift 4
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "$name: exit $rc, want $want_rc"
	grep -Eq -- "$want_err" "$tmp/err" ||
		fail "$name: stderr '$(cat "$tmp/err")', want a line matching '$want_err'"
}

# mktrace DIR STREAM FIRST_SID COUNT [STEP]: STREAM gets COUNT events
# {header {sid, timestamp = 10 * sid}}, sids FIRST_SID, +STEP, ...
mktrace() {
	mkdir -p "$1"
	python3 - "$1/$2" "$3" "$4" "${5:-1}" <<'EOF'
import sys
from octf_rec import field, framed, sub

path, first, count, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(path, "wb") as f:
    for i in range(count):
        sid = first + i * step
        f.write(framed(sub(1, field(1, sid) + field(2, sid * 10))))
EOF
}

# mkios FILE < SPEC: a stream of io and completion events, one per line:
#   io SID TS ID LBA LEN [OP]   (on device 8:0: a write, or OP 1 read, 3 discard)
#   done SID TS REF
#   doneat SID TS REF LBA LEN   (a completion naming its range)
#   split SID TS ID PARENT LBA LEN PARENT_LBA   (ID split off PARENT, which goes on at PARENT_LBA)
mkios() {
	python3 -c '
import sys
from octf_rec import field, framed, sub

with open(sys.argv[1], "wb") as f:
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        a = [int(x) for x in w[1:]]
        hdr = sub(1, field(1, a[0]) + field(2, a[1]))
        if w[0] == "io":
            ev = hdr + sub(2, field(1, a[3]) + field(2, a[4]) + field(4, 8388608) +
                           field(5, a[5] if len(a) > 5 else 2) + field(9, a[2]))
        elif w[0] == "doneat":
            ev = hdr + sub(5, field(1, a[3]) + field(2, a[4]) + field(4, 8388608) +
                           field(5, a[2]))
        elif w[0] == "split":
            ev = hdr + sub(20, field(1, a[2]) + field(2, a[3]) + field(3, 8388608) +
                           field(4, a[4]) + field(5, a[5]) + field(6, a[6]))
        else:
            ev = hdr + sub(5, field(4, 8388608) + field(5, a[2]))
        f.write(framed(ev))
' "$1"
}
