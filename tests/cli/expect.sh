# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The runner of the CLI golden tests (run.sh, manage.sh), in the spirit of
# zstd's tests/cli-tests: every case runs one command and checks its exit
# status, its stderr and (where it matters) its stdout. Source it after
# iotrace_test_binary (tracer-lib.sh); it needs root, to run cases as
# nobody.
#
# A case is one line of a test's table:
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
#
# The report is iotrace_test_harness's (ok, fail, check, finish);
# cli_test_setup makes the fixtures both tests use.

iotrace_test_harness --list-failures

# cli_require_root WHY: fails loudly, never skips into a pass
cli_require_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "FAIL: $0 must run as root ($1)"
		echo "0 passed, 1 failed"
		exit 1
	fi
}

# cli_test_setup: T (a temporary directory) with the trace repository in
# REPO (iotrace_temp_repository), a directory that is not a trace
# (T/notatrace) and a plain file (T/afile); NOBODY_DIR, world-readable,
# with a copy of the binary nobody may run and NOBODY_DIR/private, a trace
# nobody may not read (root's, mode 0700). Both are removed at exit by
# cli_test_cleanup, after the test's own cli_test_undo if it defines one.
cli_test_setup() {
	T=$(mktemp -d /tmp/iotrace-cli.XXXXXX) || exit 1
	NOBODY_DIR=
	trap cli_test_cleanup EXIT
	trap 'exit 130' INT TERM
	REPO=$T/repo
	iotrace_temp_repository "$REPO"
	mkdir "$T/notatrace"
	echo hello >"$T/notatrace/readme.txt"
	echo hello >"$T/afile"
	NOBODY_DIR=$(mktemp -d /tmp/iotrace-cli-nobody.XXXXXX) || exit 1
	chmod 755 "$NOBODY_DIR"
	install -m 755 "$BIN" "$NOBODY_DIR/iotrace"
	mkdir -m 700 "$NOBODY_DIR/private"
	echo '{"state": "COMPLETE", "droppedEvents": "0"}' >"$NOBODY_DIR/private/octf.summary"
}

cli_test_cleanup() {
	local rc=$?

	declare -F cli_test_undo >/dev/null && cli_test_undo
	[ -n "$NOBODY_DIR" ] && rm -rf "$NOBODY_DIR"
	rm -rf "$T"
	exit "$rc"
}

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
