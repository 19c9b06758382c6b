#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# CLI golden tests for iotrace that need devices: the command line of
# --start-tracing, of --trace-parser, and -M while a tracer records (one
# real tracer). The cases are lines of expect (tests/cli/expect.sh, which
# says how to read them); -M and -C on traces made by hand are in
# tests/cli/manage.sh.
#
#   usage: tests/cli/run.sh PATH/TO/iotrace
#
# Needs root (it creates loop devices and starts one real tracer) and
# python3 (to create and remove spare loop devices through
# /dev/loop-control). Never touches /var/lib/iotrace, /etc/iotrace or the
# system lock: IOTRACE_TRACE_DIR, IOTRACE_CONFIG and IOTRACE_LOCK_FILE point
# into a temporary directory. Everything it creates is removed at exit,
# also on failure.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"
. "$(dirname "$(realpath "$0")")/expect.sh"

iotrace_test_binary "$@"

# --- capabilities: fail loudly, never skip into a pass --------------------
cli_require_root "it creates loop devices and starts a tracer"
for tool in losetup setpriv python3 truncate; do
	if ! command -v "$tool" >/dev/null; then
		echo "FAIL: '$tool' is not installed"
		echo "0 passed, 1 failed"
		exit 1
	fi
done

# --- setup and teardown ---------------------------------------------------
IMG=
LOOP=			# /dev/loopN backing the device cases
ADDED_LOOPS=()		# spare loop indices created through /dev/loop-control
TRACER_PID=

# /dev/loop-control ioctls: add or remove unbound loop devices by index
loopctl() {
	python3 - "$@" <<'EOF'
import fcntl, os, sys
op = {'add': 0x4C80, 'remove': 0x4C81}[sys.argv[1]]	# LOOP_CTL_ADD / _REMOVE
fd = os.open('/dev/loop-control', os.O_RDWR)
rc = 0
for n in sys.argv[2:]:
    try:
        fcntl.ioctl(fd, op, int(n))
    except OSError as e:
        print('loop-control %s %s: %s' % (sys.argv[1], n, e), file=sys.stderr)
        rc = 1
sys.exit(rc)
EOF
}

cli_test_undo() {
	iotrace_stop "$TRACER_PID"
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ ${#ADDED_LOOPS[@]} -gt 0 ] && loopctl remove "${ADDED_LOOPS[@]}"
	[ -n "$IMG" ] && rm -f "$IMG"
}
cli_test_setup
# one trace whose second stream nobody may not read
mkdir -m 755 "$NOBODY_DIR/partial"
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "droppedEvents": "0", "tracedEvents": "9"}\n' >"$NOBODY_DIR/partial/octf.summary"
: >"$NOBODY_DIR/partial/octf.trace.0"
install -m 000 /dev/null "$NOBODY_DIR/partial/octf.trace.1"

# A real loop device for the device cases.
IMG=$(mktemp /dev/shm/iotrace-cli.XXXXXX.img)
truncate -s 16M "$IMG"
LOOP=$(losetup -f --show "$IMG") || { LOOP=; echo "FAIL: losetup cannot attach a loop device"; exit 1; }
LN=${LOOP#/dev/}

# 33 distinct existing block devices for the too-many-devices case: spare
# unbound loop devices at free indices (removed at exit).
i=1000
while [ ${#ADDED_LOOPS[@]} -lt 33 ]; do
	if [ ! -e /sys/class/block/loop$i ] && [ ! -e /dev/loop$i ]; then
		loopctl add "$i" || { echo "FAIL: cannot create loop$i through /dev/loop-control"; exit 1; }
		ADDED_LOOPS+=("$i")
	fi
	i=$((i + 1))
done
MANY=$(printf 'loop%s,' "${ADDED_LOOPS[@]}")
MANY=${MANY%,}

# ==========================================================================
# The cases
# ==========================================================================

echo "# top level"
expect 2 "no command given: --start-tracing, --trace-parser, --trace-management, --trace-config, --help or --version (try 'iotrace --help')" '' -- iotrace
expect 0 ''                     '--start-tracing'  -- iotrace --help
expect 0 ''                     '--start-tracing'  -- iotrace -H
expect 0 ''                     'Version: 0.1.0'   -- iotrace -V
expect 0 ''                     'Name: iotrace'    -- iotrace --version
expect 2 "unknown command 'frobnicate'" ''         -- iotrace frobnicate
expect 2 "unknown command '--bogus'"    ''         -- iotrace --bogus

echo "# --start-tracing: command line"
expect 0 ''                     '--devices'        -- iotrace -S -H
expect 0 ''                     '--vfs'            -- iotrace -S -H
expect 2 '--devices is required' ''                -- iotrace -S
expect 2 '--devices is required' ''                -- iotrace --start-tracing -t 5
expect 2 "unknown device 'nosuchdev'" ''           -- iotrace -S -d nosuchdev
expect 2 "unknown device '/dev/nosuchdev'" ''      -- iotrace --start-tracing --devices /dev/nosuchdev
expect 2 "unknown device 'nosuchdev'" ''           -- iotrace -S -d "$LN,nosuchdev"
expect 2 "'/dev/null' is not a block device" ''   -- iotrace -S -d /dev/null
expect 2 "'/tmp' is not a block device" ''        -- iotrace -S -d /tmp
expect 2 'empty device name'    ''                 -- iotrace -S -d "$LN,"
expect 2 'empty device name'    ''                 -- iotrace -S -d ''
expect 2 'given twice'          ''                 -- iotrace -S -d "$LN,/dev/$LN"
expect 2 'given twice'          ''                 -- iotrace -S -d "$LN,$LN"
expect 2 'too many devices'     ''                 -- iotrace -S -d "$MANY"
expect 2 "device 'loop${ADDED_LOOPS[0]}' has no medium (size 0)" '' -- iotrace -S -d "loop${ADDED_LOOPS[0]}"
expect 2 "invalid value 'abc' for --time"   '' -- iotrace -S -d "$LN" -t abc
expect 2 "invalid value '0' for --time"     '' -- iotrace -S -d "$LN" -t 0
expect 2 "invalid value '-5' for --time"    '' -- iotrace -S -d "$LN" -t -5
expect 2 "invalid value ' 5' for --time"    '' -- iotrace -S -d "$LN" -t ' 5'
expect 2 "invalid value '5s' for --time"    '' -- iotrace -S -d "$LN" -t 5s
expect 2 "invalid value '4294967296' for --time" '' -- iotrace -S -d "$LN" --time 4294967296
expect 2 "invalid value '0' for --size"     '' -- iotrace -S -d "$LN" -s 0
expect 2 "invalid value '0' for --buffer"   '' -- iotrace -S -d "$LN" -b 0
expect 2 "invalid value '99999' for --buffer" '' -- iotrace -S -d "$LN" -b 99999
expect 2 "unknown option '--bogus'"        '' -- iotrace -S --bogus
expect 2 "unknown option '-x'"             '' -- iotrace -S -d "$LN" -x
expect 2 "option '-d' needs a value"       '' -- iotrace -S -d
expect 2 "unexpected argument 'extra'"     '' -- iotrace -S -d "$LN" extra
expect 2 'they need --vfs'                 '' -- iotrace -S -d "$LN" --pids 1
expect 2 'they need --vfs'                 '' -- iotrace -S -d "$LN" --comm fio
expect 2 "--pids: invalid value 'abc'"     '' -- iotrace -S -d "$LN" --vfs --pids 1,abc
expect 2 "--pids: invalid value ''"        '' -- iotrace -S -d "$LN" --vfs --pids 1,
expect 2 "--pids: '0' is not a valid process id" '' -- iotrace -S -d "$LN" --vfs --pids 0
expect 2 '-t/--time given twice'           '' -- iotrace -S -d "$LN" -t 1 --time 2
expect 2 '-d/--devices given twice'        '' -- iotrace -S -d "$LN" -d "$LN"
expect 2 '--compress given twice'          '' -- iotrace -S -d "$LN" --compress none --compress zstd
expect 2 '--vfs given twice'              '' -- iotrace -S -d "$LN" --vfs --vfs
expect 2 "--pids: '99999999' is not a valid process id" '' -- iotrace -S -d "$LN" --vfs --pids 99999999
expect 2 '--pids: at most 16 entries'      '' -- iotrace -S -d "$LN" --vfs --pids 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
expect 2 "--comm: 'averyveryverylongname' is too long" '' -- iotrace -S -d "$LN" --vfs --comm fio,averyveryverylongname
expect 2 "--cgroup: no cgroup 'no/such/group'" '' -- iotrace -S -d "$LN" --vfs --cgroup no/such/group
expect 2 "--cgroup: no cgroup '../../../../etc'" '' -- iotrace -S -d "$LN" --vfs --cgroup ../../../../etc
expect 2 "--cgroup: no cgroup '999999999'" '' -- iotrace -S -d "$LN" --vfs --cgroup 999999999
expect 2 "option '--cgroup' needs a value" '' -- iotrace -S -d "$LN" --vfs --cgroup
expect 2 'they need --vfs'                 '' -- iotrace -S -d "$LN" --paths '/data/*'
expect 2 'which --no-file-events leaves out: choose one' '' -- iotrace -S -d "$LN" --vfs --no-file-events
expect 2 "--paths: 'data/*' is not an absolute path pattern" '' -- iotrace -S -d "$LN" --vfs --paths '/x,data/*'
expect 2 "--paths: '' is not an absolute path pattern" '' -- iotrace -S -d "$LN" --vfs --paths '/x,'
expect 0 ''                     '--compress zstd|none' -- iotrace -S -H
expect 2 "invalid value 'gzip' for --compress: expected zstd or none" '' -- iotrace -S -d "$LN" --compress gzip
expect 2 "invalid value '' for --compress"  '' -- iotrace -S -d "$LN" --compress ''
expect 2 "option '--compress' needs a value" '' -- iotrace -S -d "$LN" --compress
expect 2 "invalid value '0' for --compress-level: expected a zstd level, 1-19" '' -- iotrace -S -d "$LN" --compress-level 0
expect 2 "invalid value '20' for --compress-level" '' -- iotrace -S -d "$LN" --compress-level 20
expect 2 "invalid value '-1' for --compress-level" '' -- iotrace -S -d "$LN" --compress-level -1
expect 2 "invalid value '3x' for --compress-level" '' -- iotrace -S -d "$LN" --compress-level 3x
expect 2 'it does not go with --compress none' '' -- iotrace -S -d "$LN" --compress none --compress-level 5
expect 1 'needs root'           ''                 -- iotrace_nobody -S -d "$LN"
expect 2 "unknown device 'nosuchdev'" ''           -- iotrace_nobody -S -d nosuchdev
# a repository under a directory anyone may write to: the tracer's files there could be
# swapped for links to files of root's (safe_dir.h); refused before anything is traced
mkdir -m 777 "$T/open" && chmod 777 "$T/open" && mkdir "$T/open/repo" || exit 1
expect 1 "refusing to trace into a repository other users can change: '$T/open' is writable by other users (mode 0777) (its files could be swapped for links to files of root's)" '' \
	-- env IOTRACE_TRACE_DIR="$T/open/repo" "$BIN" -S -d "$LN" -t 1
check "no trace made in the refused repository" [ -z "$(ls -A "$T/open/repo")" ]

echo "# --trace-parser"
expect 0 ''                     '--raw'            -- iotrace -P -H
expect 0 ''                     '--process-statistics' -- iotrace -P -H
expect 0 ''                     '--access-pattern' -- iotrace -P -H
expect 2 "invalid value 'x' for --pid" ''          -- iotrace -P --vfs --pid x -p "$T/notatrace"
expect 2 'does not go with --raw' ''               -- iotrace -P --io --raw --file '/a/*' -p "$T/notatrace"
expect 1 "cannot open trace '/nonexistent'" ''     -- iotrace -P --io --raw -p /nonexistent
expect 1 "cannot open trace 'no/such/trace' (in the repository $REPO)" '' -- iotrace -P --io --raw -p no/such/trace
expect 2 "invalid value '' for --path" ''          -- iotrace -P --io --raw -p ''
expect 1 'not a trace'          ''                 -- iotrace -P --io --raw -p "$T/notatrace"
expect 1 "cannot open trace '$NOBODY_DIR/private': Permission denied" '' -- iotrace_nobody -P --statistics -p "$NOBODY_DIR/private"
expect 1 "cannot open trace '$NOBODY_DIR/partial': octf.trace.1: Permission denied" '' -- iotrace_nobody -P --statistics -p "$NOBODY_DIR/partial"
expect 1 "cannot open trace '$NOBODY_DIR/partial': octf.trace.1: Permission denied" '' -- iotrace_nobody -P --io -p "$NOBODY_DIR/partial"
expect 1 'Not a directory'      ''                 -- iotrace -P --io --raw -p "$T/afile"
expect 2 "invalid value 'xml' for --format" ''     -- iotrace -P --io --raw -f xml -p "$T/notatrace"
expect 2 'missing the view'     ''                 -- iotrace -P --raw -p "$T/notatrace"
expect 2 'missing --path'       ''                 -- iotrace -P --io --raw
expect 2 "option '-p' needs a value" ''            -- iotrace -P --io --raw -p
expect 2 'unknown option'       ''                 -- iotrace -P --io --raw --bogus -p "$T/notatrace"
expect 2 '--file given twice'   ''                 -- iotrace -P -S --file '*.log' --file '*.sst' -p "$T/notatrace"
expect 2 '-f/--format given twice' ''              -- iotrace -P -S -f json -f table -p "$T/notatrace"
expect 2 '-p/--path given twice' ''                -- iotrace -P -S -p "$T/notatrace" -p "$T/notatrace"
expect 2 '--from given twice'   ''                 -- iotrace -P -S --from=1 --from 2 -p "$T/notatrace"
expect 2 '--io given twice'     ''                 -- iotrace -P --io --io -p "$T/notatrace"
expect 2 '--io given twice'     ''                 -- iotrace -P -P --io -p "$T/notatrace"
expect 2 '--final-names given twice' ''            -- iotrace -P --io --final-names --final-names -p "$T/notatrace"

echo "# one tracer at a time"
LIVE_OUT=$T/live.out
"$BIN" -S -d "$LN" -l cli-live >"$LIVE_OUT" 2>"$T/live.err" &
TRACER_PID=$!
live=
for _ in $(seq 150); do
	if ! kill -0 "$TRACER_PID" 2>/dev/null; then
		break
	fi
	if "$BIN" -M -L 2>/dev/null | grep -q '"state": "RUNNING"'; then
		live=1
		break
	fi
	sleep 0.1
done
if [ -z "$live" ]; then
	fail "first tracer never reached RUNNING"
	sed 's/^/      stderr: /' "$T/live.err" | tail -5
else
	ok "first tracer RUNNING (pid $TRACER_PID)"
	LIVE_REL=$("$BIN" -M -L | sed -n 's/.*"tracePath": "\([^"]*\)".*/\1/p' | head -1)
	expect 1 "another tracer is running (pid $TRACER_PID)" '' -- iotrace -S -d "$LN"
	expect 1 'another tracer is running' ''        -- iotrace --start-tracing --devices "$LN" -t 1
	expect 0 ''                     '"state": "RUNNING"' -- iotrace -M -G -p "$LIVE_REL"
	expect 0 ''                     '"stopReason": ""' -- iotrace -M -G -p "$LIVE_REL"
	expect 0 ''                     '"label": "cli-live"' -- iotrace -M -L
	expect 1 'is being recorded'    ''             -- iotrace -M -R -p "$LIVE_REL"
	check "live trace still there after -R without --force" test -d "$REPO/$LIVE_REL"
fi
if [ -n "$TRACER_PID" ]; then
	kill -INT "$TRACER_PID" 2>/dev/null
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=
	if [ "$rc" = 0 ] && grep -q '"state": "COMPLETE"' "$LIVE_OUT"; then
		ok "first tracer stopped by SIGINT: exit 0, COMPLETE"
	else
		fail "first tracer stopped by SIGINT: exit $rc, expected 0 and COMPLETE"
		sed 's/^/      /' "$LIVE_OUT" "$T/live.err" | head -30
	fi
	if [ -n "$live" ]; then
		expect 0 ''                 '"stopReason": "signal"' -- iotrace -M -G -p "$LIVE_REL"
		expect 0 ''                 '"state": "COMPLETE"' -- iotrace -M -L
		expect 0 ''                 '"header"'     -- iotrace -P --io --raw -p "$LIVE_REL"
		expect 0 ''                 'header.sid'   -- iotrace -P --io --raw -p "$LIVE_REL" -f csv
		# the trace removed, listed as -L lists it
		expect 0 ''                 "\"tracePath\": \"$LIVE_REL\"" -- iotrace -M -R -p "$LIVE_REL"
		check "trace directory gone after -R" test ! -e "$REPO/$LIVE_REL"
		expect 0 ''                 '"trace": []'  -- iotrace -M -L
	fi
fi

# a lock path anyone may write to (/run/lock is 1777): a link planted there
# is not followed, and what it leads to keeps its bytes; root removes it,
# and another user's file there, and takes the lock: a user who made the
# name first must not stop every tracer
echo precious >"$T/victim"
ln -s "$T/victim" "$T/planted.lock"
expect 0 ''                     '"state": "COMPLETE"' -- env IOTRACE_LOCK_FILE="$T/planted.lock" "$BIN" -S -d "$LN" -t 1
check "the file a planted lock link leads to is untouched" grep -qx precious "$T/victim"
check "the planted link replaced by a lock of root's" \
	eval '[ -f "$T/planted.lock" ] && [ ! -L "$T/planted.lock" ] && [ "$(stat -c %u "$T/planted.lock")" = 0 ]'
rm -f "$T/planted.lock" && echo theirs >"$T/planted.lock" && chown 65534 "$T/planted.lock"
expect 0 ''                     '"state": "COMPLETE"' -- env IOTRACE_LOCK_FILE="$T/planted.lock" "$BIN" -S -d "$LN" -t 1
check "another user's file in the lock's place replaced by a lock of root's" \
	eval '[ "$(stat -c %u "$T/planted.lock")" = 0 ]'
# a directory, which its maker could keep from being emptied: moved aside
rm -f "$T/planted.lock" && mkdir -p "$T/planted.lock/full" && chown -R 65534 "$T/planted.lock"
expect 0 ''                     '"state": "COMPLETE"' -- env IOTRACE_LOCK_FILE="$T/planted.lock" "$BIN" -S -d "$LN" -t 1
check "a directory in the lock's place moved aside, whole" \
	eval '[ -f "$T/planted.lock" ] && [ -d "$(echo "$T"/planted.lock.planted-*)/full" ]'
rm -rf "$T"/planted.lock*
# stdout closed (>&-): the summary went into the lock, which took
# descriptor 1, and the tracer exited 0; now the failed write is said, exit 1
"$BIN" -S -d "$LN" -t 1 >&- 2>"$T/closed.err"
rc=$?
check "stdout closed: exit 1 (got $rc), 'cannot write output' on stderr" \
	eval '[ "$rc" = 1 ] && grep -q "^iotrace: cannot write output: Bad file descriptor" "$T/closed.err"'

# a --pids entry no process has: kept (one may take it), but said
expect 0 "~iotrace: warning: --pids 4194303: no process has that pid now; its calls are traced if one takes it" \
	'"state": "COMPLETE"' -- iotrace -S -d "$LN" --vfs --pids 4194303 -t 1

echo "# a trace removed (--force) while it is recorded"
"$BIN" -S -d "$LN" -l cli-gone >"$T/gone.out" 2>"$T/gone.err" &
TRACER_PID=$!
gone=
for _ in $(seq 150); do
	kill -0 "$TRACER_PID" 2>/dev/null || break
	gone=$("$BIN" -M -L 2>/dev/null | python3 -c 'import json, sys
print(" ".join(t["tracePath"] for t in json.load(sys.stdin)["trace"] if t["state"] == "RUNNING"))')
	[ -n "$gone" ] && break
	sleep 0.1
done
if [ -z "$gone" ]; then
	fail "the tracer of the removed trace never reached RUNNING"
else
	# listed with the state it had
	expect 0 ''                 '"state": "RUNNING"' -- iotrace -M -R -p "$gone" --force
	# it looks every second: give it five
	if ! iotrace_wait_exit "$TRACER_PID" 5; then
		fail "the tracer still records 5 s after its trace was removed"
	else
		wait "$TRACER_PID"
		rc=$?
		check "the tracer of a removed trace exits 1 (got $rc)" [ "$rc" = 1 ]
		check "... saying why ($(cat "$T/gone.err"))" grep -q "was removed while recording; stopped" "$T/gone.err"
		check "... its summary says ERROR, not COMPLETE" grep -q '"state": "ERROR"' "$T/gone.out"
	fi
	TRACER_PID=
fi

echo "# out of file descriptors (ulimit -n) at any stage of the start: one line, no trace left"
# the stage that runs out moves with the limit; the sweep stops at the
# first start that succeeds
before=$(ls "$REPO/kernel" 2>/dev/null | wc -l)
started=
for n in $(seq 20 4 160); do
	(ulimit -n "$n" && exec "$BIN" -S -d "$LN" --vfs -t 1) >"$T/fd.out" 2>"$T/fd.err"
	rc=$?
	iotrace_wait_detached
	if [ "$rc" = 0 ]; then
		started=$n
		break
	fi
	check "ulimit -n $n: exit 1 with one line (exit $rc: $(head -c 300 "$T/fd.err"))" \
		bash -c '[ "$1" = 1 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "^iotrace: " "$2"' _ "$rc" "$T/fd.err"
	after=$(ls "$REPO/kernel" 2>/dev/null | wc -l)
	check "ulimit -n $n: no trace left behind" [ "$after" = "$before" ]
done
check "the tracer starts with ulimit -n 160 or fewer (started at ${started:-none})" [ -n "$started" ]

finish
