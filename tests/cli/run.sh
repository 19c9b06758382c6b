#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# CLI golden tests for iotrace, in the spirit of zstd's tests/cli-tests:
# every case runs one command and checks its exit status, its stderr and
# (where it matters) its stdout.
#
#   usage: tests/cli/run.sh PATH/TO/iotrace
#
# Needs root (it creates loop devices and starts one real tracer) and
# python3 (to create and remove spare loop devices through
# /dev/loop-control). Never touches /var/lib/iotrace, /etc/iotrace or the
# system lock: IOTRACE_TRACE_DIR, IOTRACE_CONFIG and IOTRACE_LOCK_FILE point
# into a temporary directory. Everything it creates is removed at exit,
# also on failure.
#
# A case is one line of the table further down:
#
#   expect EXIT STDERR STDOUT -- COMMAND...
#
#   EXIT    the exit status
#   STDERR  ''      stderr must be empty
#           'TEXT'  stderr is exactly one line, starting with 'iotrace: '
#                   and containing TEXT
#           '~TEXT' stderr contains TEXT (any number of lines)
#   STDOUT  ''      not checked, except that a failing command (EXIT != 0)
#                   must print nothing on stdout
#           'TEXT'  stdout contains TEXT
#           '=TEXT' stdout is exactly TEXT (one line)
#
# "iotrace" in COMMAND is the binary under test; "iotrace_nobody" runs it
# as user nobody (uid/gid 65534, no groups).

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"

PASS=0
FAIL=0
FAILED_NAMES=()

fail() {
	echo "FAIL: $*"
	FAIL=$((FAIL + 1))
	FAILED_NAMES+=("$*")
}
ok() {
	echo "ok:   $*"
	PASS=$((PASS + 1))
}

# --- capabilities: fail loudly, never skip into a pass --------------------
if [ "$(id -u)" != 0 ]; then
	echo "FAIL: tests/cli/run.sh must run as root (it creates loop devices and starts a tracer)"
	echo "0 passed, 1 failed"
	exit 1
fi
for tool in losetup setpriv python3 truncate; do
	if ! command -v "$tool" >/dev/null; then
		echo "FAIL: '$tool' is not installed"
		echo "0 passed, 1 failed"
		exit 1
	fi
done

# --- setup and teardown ---------------------------------------------------
T=$(mktemp -d /tmp/iotrace-cli.XXXXXX)
NOBODY_DIR=		# a world-readable copy of the binary for the nobody cases
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

cleanup() {
	local rc=$?

	iotrace_stop "$TRACER_PID"
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ ${#ADDED_LOOPS[@]} -gt 0 ] && loopctl remove "${ADDED_LOOPS[@]}"
	[ -n "$IMG" ] && rm -f "$IMG"
	[ -n "$NOBODY_DIR" ] && rm -rf "$NOBODY_DIR"
	rm -rf "$T"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

REPO=$T/repo
iotrace_temp_repository "$REPO"
mkdir "$T/notatrace"
echo hello >"$T/notatrace/readme.txt"
echo hello >"$T/afile"

NOBODY_DIR=$(mktemp -d /tmp/iotrace-cli-nobody.XXXXXX)
chmod 755 "$NOBODY_DIR"
install -m 755 "$BIN" "$NOBODY_DIR/iotrace"
# a trace nobody may not read: its directory is root's, mode 0700; and
# one whose second stream nobody may not read
mkdir -m 700 "$NOBODY_DIR/private"
echo '{}' >"$NOBODY_DIR/private/octf.summary"
mkdir -m 755 "$NOBODY_DIR/partial"
printf '{"tracePath": "kernel/x", "state": "COMPLETE", "tracedEvents": "9"}\n' >"$NOBODY_DIR/partial/octf.summary"
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

# --- the runner -----------------------------------------------------------
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --)

expect() {
	local want_rc=$1 want_err=$2 want_out=$3 name rc out err nlines
	shift 3
	[ "$1" = -- ] && shift
	name="$*"
	out=$T/case.out
	err=$T/case.err
	local cmd=("$@")
	case $1 in
	iotrace) cmd=("$BIN" "${@:2}") ;;
	iotrace_nobody) cmd=("${NOBODY[@]}" "$NOBODY_DIR/iotrace" "${@:2}") ;;
	esac
	# no case may hang the suite
	timeout -k 5 60 "${cmd[@]}" >"$out" 2>"$err" </dev/null
	rc=$?

	if [ "$rc" != "$want_rc" ]; then
		fail "$name: exit $rc, expected $want_rc"
		sed 's/^/      stderr: /' "$err" | head -5
		return
	fi
	nlines=$(wc -l <"$err")
	case $want_err in
	'')
		if [ -s "$err" ]; then
			fail "$name: stderr should be empty"
			sed 's/^/      stderr: /' "$err" | head -5
			return
		fi ;;
	'~'*)
		if ! grep -qF -- "${want_err#\~}" "$err"; then
			fail "$name: stderr does not contain '${want_err#\~}'"
			sed 's/^/      stderr: /' "$err" | head -5
			return
		fi ;;
	*)
		if [ "$nlines" != 1 ] || [ "$(head -c 9 "$err")" != "iotrace: " ] ||
		   ! grep -qF -- "$want_err" "$err"; then
			fail "$name: stderr should be one 'iotrace: ' line containing '$want_err'"
			sed 's/^/      stderr: /' "$err" | head -5
			return
		fi ;;
	esac
	case $want_out in
	'')
		if [ "$want_rc" != 0 ] && [ -s "$out" ]; then
			fail "$name: a failing command printed on stdout"
			sed 's/^/      stdout: /' "$out" | head -5
			return
		fi ;;
	'='*)
		if [ "$(cat "$out")" != "${want_out#=}" ] || [ "$(wc -l <"$out")" != 1 ]; then
			fail "$name: stdout should be exactly '${want_out#=}'"
			sed 's/^/      stdout: /' "$out" | head -5
			return
		fi ;;
	*)
		if ! grep -qF -- "$want_out" "$out"; then
			fail "$name: stdout does not contain '$want_out'"
			sed 's/^/      stdout: /' "$out" | head -5
			return
		fi ;;
	esac
	ok "$name"
}

# a plain assertion that is not a command's output
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}

# ==========================================================================
# The cases
# ==========================================================================

echo "# top level"
expect 2 '~Usage: iotrace'      ''                 -- iotrace
expect 0 ''                     '--start-tracing'  -- iotrace --help
expect 0 ''                     '--start-tracing'  -- iotrace -H
expect 0 ''                     '=iotrace 0.1.0'   -- iotrace -V
expect 0 ''                     '=iotrace 0.1.0'   -- iotrace --version
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

echo "# --trace-management"
expect 0 ''                     '--list-traces'    -- iotrace -M -H
expect 2 'needs a command'      ''                 -- iotrace -M
expect 2 'choose one of'        ''                 -- iotrace -M -L -G
expect 2 'needs --path'         ''                 -- iotrace -M -G
expect 2 'needs --prefix'       ''                 -- iotrace -M -R
expect 2 "unknown option '--bogus'" ''             -- iotrace -M -L --bogus
expect 2 'given twice'          ''                 -- iotrace -M -G -p a -p b
expect 0 ''                     '"trace": ['       -- iotrace -M -L
expect 0 ''                     '"trace": []'      -- iotrace --trace-management --list-traces --prefix kernel/2
# a newer Open-CAS's summary: user tags, no label; listed, printed back, removed with them
mkdir -p "$REPO/kernel/tagged" && : >"$REPO/kernel/tagged/octf.trace.0" &&
	printf '{"tracePath": "kernel/tagged", "state": "COMPLETE", "tracedEvents": "0", "queueCount": "1", "version": 1, "tags": {"workload": "ycsb", "fs": "xfs"}}\n' \
		>"$REPO/kernel/tagged/octf.summary"
expect 0 ''                     '"workload": "ycsb"' -- iotrace -M -L -p kernel/tagged
expect 0 ''                     '"fs": "xfs"'      -- iotrace -M -G -p kernel/tagged
check "-M -G of it makes up no tag of ours" bash -c '! "$1" -M -G -p kernel/tagged | grep -q stopReason' _ "$BIN"
expect 0 ''                     '"workload": "ycsb"' -- iotrace -M -R -p kernel/tagged
expect 0 "warning: the trace repository '$T/none' does not exist (the first trace makes it)" '"trace": []' -- env IOTRACE_TRACE_DIR="$T/none" "$BIN" -M -L
expect 1 "cannot open trace 'does/not/exist'" ''   -- iotrace -M -G -p does/not/exist
expect 1 "cannot open trace '/does/not/exist'" ''  -- iotrace -M -G -p /does/not/exist
expect 1 'not a trace'          ''                 -- iotrace -M -G -p "$T/notatrace"
expect 1 "cannot open trace '$NOBODY_DIR/private': Permission denied" '' -- iotrace_nobody -M -G -p "$NOBODY_DIR/private"
expect 1 'Not a directory'      ''                 -- iotrace -M -G -p "$T/afile"
expect 1 'refusing to remove'   ''                 -- iotrace -M -R -p ../x
expect 1 'refusing to remove'   ''                 -- iotrace -M -R -p kernel/../../x
expect 1 'refusing to remove'   ''                 -- iotrace -M -R -p /etc
expect 1 "no trace matches 'kernel/nothing'" ''    -- iotrace -M -R -p kernel/nothing

# A symlink inside the repository's kernel/ pointing outside it, at a
# directory that looks like a trace: removal must never follow it. Each
# case starts from fresh outside files, so one failure does not hide another.
mkdir "$T/outside"
make_outside() {
	echo '{}' >"$T/outside/octf.summary"
	echo precious >"$T/outside/octf.trace.0"
}
outside_intact() { [ -f "$T/outside/octf.summary" ] && [ -f "$T/outside/octf.trace.0" ]; }
mkdir -m 700 "$REPO/kernel"
ln -s "$T/outside" "$REPO/kernel/evil"
for prefix in kernel/evil kernel/evil/ kernel/evil/octf.trace.0; do
	make_outside
	expect 1 'refusing to remove' ''           -- iotrace -M -R -p "$prefix"
	check "files behind the symlink intact after -M -R -p $prefix" outside_intact
done
make_outside
expect 1 'refusing to remove'   ''                 -- iotrace -M -R -p kernel/evil --force
check "files behind the symlink intact after -M -R -p kernel/evil --force" outside_intact
# prefixes that are clean themselves but match the symlinked entry
for prefix in kernel/ kernel/e k; do
	make_outside
	expect 1 '~iotrace: '       ''             -- iotrace -M -R -p "$prefix"
	check "files behind the symlink intact after -M -R -p $prefix" outside_intact
done
rm -f "$REPO/kernel/evil"
# kernel/ itself a symlink
rmdir "$REPO/kernel"
ln -s "$T/outside" "$REPO/kernel"
for prefix in kernel/x kernel/ kernel k; do
	make_outside
	expect 1 'refusing to remove' ''           -- iotrace -M -R -p "$prefix"
	check "files behind kernel/ -> outside intact after -M -R -p $prefix" outside_intact
done
rm -f "$REPO/kernel"

echo "# --trace-config"
expect 0 ''                     '--get-trace-repository-path' -- iotrace -C -H
expect 2 'needs a command'      ''                 -- iotrace -C
expect 2 'choose one of'        ''                 -- iotrace -C -G -S
expect 2 'given twice'          ''                 -- iotrace -C -S -p /a -p /b
expect 0 ''                     "={\"path\":\"$REPO\"}"           -- iotrace -C -G
expect 0 ''                     "={\"path\":\"$REPO\"}"           -- iotrace --trace-config --get-trace-repository-path
expect 2 "invalid value 'relative/path'" ''        -- iotrace -C -S relative/path
expect 2 'needs a directory'    ''                 -- iotrace -C -S
expect 2 "unexpected argument 'b'" ''              -- iotrace -C -S /a b
expect 0 ''                     "={\"path\":\"/var/lib/iotrace\"}" -- env -u IOTRACE_TRACE_DIR IOTRACE_CONFIG="$T/none.conf" "$BIN" -C -G
expect 0 ''                     "=$T/saved-repo"   -- env -u IOTRACE_TRACE_DIR "$BIN" -C -S "$T/saved-repo"
expect 0 ''                     "={\"path\":\"$T/saved-repo\"}"   -- env -u IOTRACE_TRACE_DIR "$BIN" -C -G
expect 0 ''                     "=$T/saved-2"      -- env -u IOTRACE_TRACE_DIR "$BIN" --trace-config --set-trace-repository-path --path "$T/saved-2"
expect 0 ''                     "={\"path\":\"$T/saved-2\"}"      -- env -u IOTRACE_TRACE_DIR "$BIN" -C -G
expect 0 'overrides the saved path' "=$T/saved-3"  -- iotrace -C -S "$T/saved-3"
expect 0 ''                     "={\"path\":\"$REPO\"}"           -- iotrace -C -G
expect 1 'run as root'          ''                 -- iotrace_nobody -C -S /data/iotrace
expect 2 "IOTRACE_TRACE_DIR must be an absolute path, not 'rel/repo'" '' -- env IOTRACE_TRACE_DIR=rel/repo "$BIN" -M -L
printf '# written by hand\n  trace-repository-path = %s/spaced  \n' "$T" >"$T/spaced.conf"
expect 0 ''                     "={\"path\":\"$T/spaced\"}"       -- env -u IOTRACE_TRACE_DIR IOTRACE_CONFIG="$T/spaced.conf" "$BIN" -C -G
printf 'trace-repository-path=relative/repo\n' >"$T/relative.conf"
expect 0 "trace-repository-path 'relative/repo' is not an absolute path; using /var/lib/iotrace" \
	'={"path":"/var/lib/iotrace"}' -- env -u IOTRACE_TRACE_DIR IOTRACE_CONFIG="$T/relative.conf" "$BIN" -C -G
check "config file holds the last saved path" grep -qx "trace-repository-path=$T/saved-3" "$IOTRACE_CONFIG"

echo "# --trace-parser"
expect 0 ''                     '--raw'            -- iotrace -P -H
expect 0 ''                     '--process-statistics' -- iotrace -P -H
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

echo
echo "$PASS passed, $FAIL failed"
if [ "$FAIL" -gt 0 ]; then
	printf 'failed: %s\n' "${FAILED_NAMES[@]}"
	exit 1
fi
exit 0
