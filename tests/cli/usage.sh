#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Command lines that every command refuses before it does anything, as any
# user: no root, no device, no trace (tests/cli/run.sh, as root, has the
# cases that need those). Each case checks the exit status and the whole
# of stderr, and that nothing went to stdout. --start-tracing cases name a
# device that does not exist: a case the tracer wrongly let through stops
# there, with another error, and never traces.
#
# usage: usage.sh IOTRACE_BINARY
set -u

bin=$1
fails=0

tmp=$(mktemp -d /tmp/iotrace-usage-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# never the system's repository, configuration or tracer lock
export IOTRACE_TRACE_DIR=$tmp/repo IOTRACE_CONFIG=$tmp/config IOTRACE_LOCK_FILE=$tmp/lock

# refused WANT_EXIT WANT_STDERR ARGS...: stderr is exactly WANT_STDERR, stdout empty
refused() {
	local want_rc=$1 want_err=$2 rc args
	shift 2
	args="$*"
	timeout -k 1 5 "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc -ne "$want_rc" ] || [ "$(cat "$tmp/err")" != "$want_err" ] || [ -s "$tmp/out" ]; then
		echo "FAIL: iotrace ${args:0:160}: exit $rc, want $want_rc" >&2
		echo "      stderr '$(cat -v "$tmp/err")'" >&2
		echo "      want   '$want_err'" >&2
		[ -s "$tmp/out" ] && echo "      stdout '$(head -c 200 "$tmp/out")'" >&2
		fails=$((fails + 1))
	fi
}

# --- an option as getopt refused it, named as it was given ---
for cmd in "-S --start-tracing" "-M --trace-management" "-C --trace-config"; do
	short=${cmd% *}
	long=${cmd#* }
	refused 2 "iotrace: option '--help' takes no value, given '--help=1' (try 'iotrace $short -H')" $short --help=1
	refused 2 "iotrace: unknown option '--he=1' for $long; did you mean --help? (try 'iotrace $short -H')" $short --he=1
	refused 2 "iotrace: unknown option '--hel' for $long; did you mean --help? (try 'iotrace $short -H')" $short --hel
	refused 2 "iotrace: unknown option '--bogus' for $long (try 'iotrace $short -H')" $short --bogus
	refused 2 "iotrace: unknown option '--bogus=1' for $long (try 'iotrace $short -H')" $short --bogus=1
	refused 2 "iotrace: unknown option '-x' for $long (try 'iotrace $short -H')" $short -x
	# inside a word of short options, not the word before it
	refused 2 "iotrace: unknown option '-x' for $long (try 'iotrace $short -H')" $short -xH
done
refused 2 "iotrace: option '--vfs' takes no value, given '--vfs=1' (try 'iotrace -S -H')" -S -d nosuchdev --vfs=1
refused 2 "iotrace: option '--no-file-events' takes no value, given '--no-file-events=yes' (try 'iotrace -S -H')" -S -d nosuchdev --no-file-events=yes
refused 2 "iotrace: option '-d' needs a value (try 'iotrace -S -H')" -S -d
# whole names only: --path is not --paths, a prefix of two names is neither
refused 2 "iotrace: unknown option '--path' for --start-tracing; did you mean --paths? (try 'iotrace -S -H')" -S -d nosuchdev --vfs --path /x
refused 2 "iotrace: unknown option '--dev' for --start-tracing; did you mean --devices? (try 'iotrace -S -H')" -S --dev nosuchdev
refused 2 "iotrace: unknown option '--list' for --trace-management; did you mean --list-traces? (try 'iotrace -M -H')" -M --list
refused 2 "iotrace: unknown option '--get' for --trace-config; did you mean --get-trace-repository-path? (try 'iotrace -C -H')" -C --get
refused 2 "iotrace: option '--label' needs a value (try 'iotrace -S -H')" -S -d nosuchdev --label
refused 2 "iotrace: option '--force' takes no value, given '--force=1' (try 'iotrace -M -H')" -M -R -p x --force=1
refused 2 "iotrace: option '--list-traces' takes no value, given '--list-traces=all' (try 'iotrace -M -H')" -M --list-traces=all
refused 2 "iotrace: option '-p' needs a value (try 'iotrace -M -H')" -M -Lp
refused 2 "iotrace: option '--get-trace-repository-path' takes no value, given '--get-trace-repository-path=1' (try 'iotrace -C -H')" -C --get-trace-repository-path=1
refused 2 "iotrace: unknown option '-\\xc3' for --trace-management (try 'iotrace -M -H')" -M -é

# --- words and options that would be ignored ---
refused 2 "iotrace: unexpected argument 'extra' after -V (try 'iotrace --help')" -V extra
refused 2 "iotrace: unexpected argument 'junk' after -H (try 'iotrace --help')" -H junk
refused 2 "iotrace: unexpected argument '-S' after --help (try 'iotrace --help')" --help -S
refused 2 "iotrace: unexpected argument 'junk' (try 'iotrace -S -H')" -S -H junk
refused 2 "iotrace: unexpected argument 'junk' (try 'iotrace -M -H')" -M -H junk
refused 2 "iotrace: unexpected argument 'junk' (try 'iotrace -C -H')" -C -H junk
refused 2 "iotrace: --force goes with --remove-traces only" -M -L --force
refused 2 "iotrace: --force goes with --remove-traces only" -M -G -p kernel/x -f
refused 2 "iotrace: --path goes with --set-trace-repository-path only" -C -G -p /x
refused 2 "iotrace: --path goes with --set-trace-repository-path only" -C --get-trace-repository-path --path /x

# --- a label the summary could keep only a part of: refused before the
# devices are looked at, so that nothing starts
label=$(printf '%4096s' '' | tr ' ' x)
refused 2 "iotrace: --label is 4096 bytes long: at most 4095" -S -d nosuchdev -l "$label"
refused 2 "iotrace: --label is 4096 bytes long: at most 4095" -S --label="$label" -d nosuchdev
# 2048 characters of 2 bytes: bytes count
refused 2 "iotrace: --label is 4096 bytes long: at most 4095" -S -d nosuchdev -l "$(printf '%2048s' '' | sed 's/ /é/g')"
# one byte less is a label: the device is what is refused then
refused 2 "iotrace: unknown device 'nosuchdev': no such block device" -S -d nosuchdev -l "${label#x}"

if [ $fails -ne 0 ]; then
	echo "usage: $fails failure(s)" >&2
	exit 1
fi
echo "usage: ok"
