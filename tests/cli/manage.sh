#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# CLI golden tests of --trace-management and --trace-config on
# repositories made here by hand: no device, no tracer (-M while a tracer
# records is in run.sh). The cases are lines of expect (expect.sh says how
# to read them).
#
#   usage: tests/cli/manage.sh PATH/TO/iotrace
#
# Needs root, to run some cases as nobody. Never touches /var/lib/iotrace,
# /etc/iotrace or the system lock: IOTRACE_TRACE_DIR, IOTRACE_CONFIG and
# IOTRACE_LOCK_FILE point into a temporary directory, removed at exit.

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"
. "$(dirname "$(realpath "$0")")/expect.sh"

iotrace_test_binary "$@"
cli_require_root "some cases run the binary as nobody"
cli_test_setup

# make_trace REL [STATE]: a trace of ours with one empty stream, its
# summary in STATE (COMPLETE)
make_trace() {
	mkdir -p "$REPO/$1" && : >"$REPO/$1/octf.trace.0" &&
		printf '{"tracePath": "%s", "state": "%s", "tracedEvents": "0", "droppedEvents": "0", "queueCount": "1", "version": 1, "tags": {"iotraceVersion": "0.1.0"}}\n' \
			"$1" "${2:-COMPLETE}" >"$REPO/$1/octf.summary"
}

echo "# --trace-management"
expect 0 ''                     '--list-traces'    -- iotrace -M -H
expect 2 'needs a command'      ''                 -- iotrace -M
expect 2 'choose one of'        ''                 -- iotrace -M -L -G
expect 2 'needs --path'         ''                 -- iotrace -M -G
expect 2 'needs --prefix'       ''                 -- iotrace -M -R
expect 2 "unknown option '--bogus'" ''             -- iotrace -M -L --bogus
expect 2 '-f/--force given twice' ''               -- iotrace -M -R -f -f -p nothing
expect 2 '-L/--list-traces given twice' ''         -- iotrace -M -L --list-traces
expect 2 'given twice'          ''                 -- iotrace -M -G -p a -p b
expect 2 "invalid value '' for -p/--path: expected a trace such as kernel/2026-11-21_10:00:00" '' -- iotrace -M -G -p ''
expect 2 "invalid value '' for -p/--prefix: expected a trace such as" '' -- iotrace -M -R -p ''
expect 2 "invalid value '' for --prefix: expected a trace such as" '' -- iotrace -M -L --prefix ''
expect 2 "invalid value '' for --path: expected a trace such as" '' -- iotrace -M -G --path=
# -p is either, the long names each their command's, as in Open-CAS
expect 2 "--prefix goes with --list-traces and --remove-traces; --get-trace-summary takes --path (or -p)" '' -- iotrace -M -G --prefix kernel/x
expect 2 "--path goes with --get-trace-summary; --list-traces takes --prefix (or -p)" '' -- iotrace -M -L --path kernel/x
expect 2 "--path goes with --get-trace-summary; --remove-traces takes --prefix (or -p)" '' -- iotrace -M -R --path kernel/x
expect 2 "-p/--path/--prefix given twice" '' -- iotrace -M -G -p a --path b
expect 2 "--prefix given twice" ''     -- iotrace -M -R --prefix a --prefix b
expect 0 ''                     '"trace": ['       -- iotrace -M -L
expect 0 ''                     '"trace": []'      -- iotrace --trace-management --list-traces --prefix kernel/2
# a newer Open-CAS's summary: user tags, no label; listed, printed back, removed with them
mkdir -p "$REPO/kernel/tagged" && : >"$REPO/kernel/tagged/octf.trace.0" &&
	printf '{"tracePath": "kernel/tagged", "state": "COMPLETE", "tracedEvents": "0", "droppedEvents": "0", "queueCount": "1", "version": 1, "tags": {"workload": "ycsb", "fs": "xfs"}}\n' \
		>"$REPO/kernel/tagged/octf.summary"
expect 0 ''                     '"workload": "ycsb"' -- iotrace -M -L -p kernel/tagged
# its tags replaced the label: none is made up
check "-M -L and -M -G of it make up no label" \
	bash -c '! "$1" -M -L -p kernel/tagged | grep -q label && ! "$1" -M -G -p kernel/tagged | grep -q label' _ "$BIN"
expect 0 ''                     '"fs": "xfs"'      -- iotrace -M -G -p kernel/tagged
check "-M -G of it makes up no tag of ours" bash -c '! "$1" -M -G -p kernel/tagged | grep -q stopReason' _ "$BIN"
expect 0 ''                     '"workload": "ycsb"' -- iotrace -M -R -p kernel/tagged
expect 0 "warning: the trace repository '$T/none' does not exist (the first trace makes it)" '"trace": []' -- env IOTRACE_TRACE_DIR="$T/none" "$BIN" -M -L
expect 1 "cannot open trace 'does/not/exist'" ''   -- iotrace -M -G -p does/not/exist
expect 1 "cannot open trace '/does/not/exist'" ''  -- iotrace -M -G -p /does/not/exist
expect 1 'not a trace'          ''                 -- iotrace -M -G -p "$T/notatrace"
expect 1 "cannot open trace '$NOBODY_DIR/private': Permission denied" '' -- iotrace_nobody -M -G -p "$NOBODY_DIR/private"
# a repository as the tracer makes it (it and its kernel/ 0700, root's): nobody may not list it
mkdir -m 700 "$NOBODY_DIR/own" "$NOBODY_DIR/own/kernel"
expect 1 "cannot list traces in '$NOBODY_DIR/own': Permission denied -- run as root" '' -- \
	"${NOBODY[@]}" env IOTRACE_TRACE_DIR="$NOBODY_DIR/own" "$NOBODY_DIR/iotrace" -M -L
expect 1 'Not a directory'      ''                 -- iotrace -M -G -p "$T/afile"
expect 1 'refusing to remove'   ''                 -- iotrace -M -R -p ../x
expect 1 'refusing to remove'   ''                 -- iotrace -M -R -p kernel/../../x
expect 1 'refusing to remove'   ''                 -- iotrace -M -R -p /etc
expect 1 "no trace matches 'kernel/nothing'" ''    -- iotrace -M -R -p kernel/nothing

echo "# -M -R of a trace that holds more than files"
make_trace kernel/held
mkdir "$REPO/kernel/held/analysis"
expect 1 "cannot remove trace 'kernel/held': it holds 'analysis', which is not a file (a trace holds only files); none of its files was removed (0 of 1 matching removed)" '' \
	-- iotrace -M -R -p kernel/held
check "... its summary and stream are still there" test -f "$REPO/kernel/held/octf.summary" -a -f "$REPO/kernel/held/octf.trace.0"
rmdir "$REPO/kernel/held/analysis"
expect 0 ''                     '"tracePath": "kernel/held"' -- iotrace -M -R -p kernel/held
rm -rf "$REPO/kernel/held"

echo "# -M -R of a trace whose summary says RUNNING, no tracer holding the lock"
# its tracer died, or runs with another lock file: listed ERROR, kept without --force
make_trace kernel/died RUNNING
expect 0 ''                     '"state": "ERROR"' -- iotrace -M -L -p kernel/died
expect 1 "trace 'kernel/died' did not finish (its summary says RUNNING): its tracer died, or records it under another lock file or mount namespace; --force removes it (0 of 1 matching removed)" '' \
	-- iotrace -M -R -p kernel/died
check "... it is still there" test -f "$REPO/kernel/died/octf.trace.0"
make_trace kernel/done
# taken without --label: "label": "" as Open-CAS prints it (every primitive field), for scripts
expect 0 ''                     '"label": ""'      -- iotrace -M -L -p kernel/done
expect 0 ''                     '"label": ""'      -- iotrace -M -G -p kernel/done
expect 1 "trace 'kernel/died' did not finish" '"tracePath": "kernel/done"' -- iotrace -M -R -p 'kernel/d*'
expect 0 ''                     '"state": "ERROR"' -- iotrace -M -R -p kernel/died --force
rm -rf "$REPO/kernel/died" "$REPO/kernel/done"
# the same of one killed while it started: its summary says INITIALIZING
make_trace kernel/died-starting INITIALIZING
expect 0 ''                     '"stopReason": "tracer died"' -- iotrace -M -G -p kernel/died-starting
expect 0 ''                     '"state": "ERROR"' -- iotrace -M -L -p kernel/died-starting
expect 1 "trace 'kernel/died-starting' did not finish (its summary says INITIALIZING): its tracer died" '' \
	-- iotrace -M -R -p kernel/died-starting
expect 3 'the tracer of this trace died before finishing' '' -- iotrace -P --io --raw -p kernel/died-starting
rm -rf "$REPO/kernel/died-starting"

echo "# a summary that cannot be read, or says neither COMPLETE nor ERROR"
# listed UNDEFINED with a warning saying why; kept without --force, as Open-CAS keeps it
make_trace kernel/garbled
echo '{"state": 1, "droppedEvents": "0"}' >"$REPO/kernel/garbled/octf.summary"
expect 0 "1 of 1 trace is listed UNDEFINED: its summary cannot be read ('kernel/garbled': byte 10: 'state' is not a string)" \
	'"state": "UNDEFINED"' -- iotrace -M -L -p kernel/garbled
expect 1 "trace 'kernel/garbled' is not known to have finished (cannot read its summary: byte 10: 'state' is not a string); --force removes it (0 of 1 matching removed)" '' \
	-- iotrace -M -R -p kernel/garbled
check "... it is still there" test -f "$REPO/kernel/garbled/octf.trace.0"
expect 0 ''                     '"tracePath": "kernel/garbled"' -- iotrace -M -R -p kernel/garbled --force
make_trace kernel/undefined UNDEFINED
expect 1 "trace 'kernel/undefined' is not known to have finished (its summary says state 'UNDEFINED', not COMPLETE or ERROR); --force removes it (0 of 1 matching removed)" '' \
	-- iotrace -M -R -p kernel/undefined
check "... it is still there" test -f "$REPO/kernel/undefined/octf.trace.0"
rm -rf "$REPO/kernel/garbled" "$REPO/kernel/undefined"

echo "# -L and -R take a trace's path spelled as -P and -G take it"
make_trace kernel/spelled
for p in kernel/spelled/ ./kernel/spelled kernel//spelled; do
	expect 0 ''                 '"tracePath": "kernel/spelled"' -- iotrace -M -G -p "$p"
	expect 0 ''                 '"tracePath": "kernel/spelled"' -- iotrace -M -L -p "$p"
done
expect 0 ''                     '"trace": []'      -- iotrace -M -L -p 'kernel/spell*/'
expect 0 ''                     '"tracePath": "kernel/spelled"' -- iotrace -M -R -p ./kernel//spelled/
check "... it is gone" test ! -e "$REPO/kernel/spelled"
rm -rf "$REPO/kernel/spelled"

echo "# traces another user may not read"
# a repository nobody may enter, two of its three traces root's own (0700)
NR=$NOBODY_DIR/repo
for t in open shut-1 shut-2; do
	mkdir -p "$NR/kernel/$t"
	echo '{"state": "COMPLETE", "droppedEvents": "0"}' >"$NR/kernel/$t/octf.summary"
	: >"$NR/kernel/$t/octf.trace.0"
done
chmod 700 "$NR"/kernel/shut-*
AS_NOBODY=(env IOTRACE_TRACE_DIR="$NR" "${NOBODY[@]}" "$NOBODY_DIR/iotrace")
expect 0 "warning: 2 of 3 traces could not be read and are not listed ('kernel/shut-1': Permission denied) -- run as root" \
	'"tracePath": "kernel/open"' -- "${AS_NOBODY[@]}" -M -L
expect 1 "cannot remove trace 'kernel/open': Permission denied (0 of 3 matching removed) -- run as root" '' \
	-- "${AS_NOBODY[@]}" -M -R -p '*'
expect 1 "cannot remove trace 'kernel/shut-2': Permission denied (0 of 1 matching removed) -- run as root" '' \
	-- "${AS_NOBODY[@]}" -M -R -p kernel/shut-2
check "... all three are still there" test -f "$NR/kernel/open/octf.trace.0" -a -f "$NR/kernel/shut-1/octf.trace.0" -a -f "$NR/kernel/shut-2/octf.trace.0"

echo "# -M -R with its output lost: the error says the traces went"
make_trace kernel/full-1
make_trace kernel/full-2
expect 1 'removed 2 traces, but cannot write output: No space left on device' '' \
	-- bash -c '"$@" >/dev/full' _ "$BIN" -M -R -p 'kernel/full*'
check "... and they are gone" test ! -e "$REPO/kernel/full-1" -a ! -e "$REPO/kernel/full-2"
rm -rf "$REPO"/kernel/full-*

# A symlink inside the repository's kernel/ pointing outside it, at a
# directory that looks like a trace: removal must never follow it. Each
# case starts from fresh outside files, so one failure does not hide another.
mkdir "$T/outside"
make_outside() {
	echo '{"state": "COMPLETE", "droppedEvents": "0"}' >"$T/outside/octf.summary"
	echo precious >"$T/outside/octf.trace.0"
}
outside_intact() { [ -f "$T/outside/octf.summary" ] && [ -f "$T/outside/octf.trace.0" ]; }
mkdir -p "$REPO/kernel"
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
mkdir "$T/saved-repo" "$T/saved-2" "$T/saved-3"
expect 0 ''                     "=$T/saved-repo"   -- env -u IOTRACE_TRACE_DIR "$BIN" -C -S "$T/saved-repo"
expect 0 ''                     "={\"path\":\"$T/saved-repo\"}"   -- env -u IOTRACE_TRACE_DIR "$BIN" -C -G
expect 0 ''                     "=$T/saved-2"      -- env -u IOTRACE_TRACE_DIR "$BIN" --trace-config --set-trace-repository-path --path "$T/saved-2"
expect 0 ''                     "={\"path\":\"$T/saved-2\"}"      -- env -u IOTRACE_TRACE_DIR "$BIN" -C -G
expect 0 'overrides the saved path' "=$T/saved-3"  -- iotrace -C -S "$T/saved-3"
expect 0 ''                     "={\"path\":\"$REPO\"}"           -- iotrace -C -G
expect 1 'run as root'          ''                 -- iotrace_nobody -C -S "$NOBODY_DIR"
# only what the config file gives back as it was, and a directory that is there
expect 1 "cannot use '/etc/passwd' as the trace repository: Not a directory" '' -- iotrace -C -S /etc/passwd
expect 1 "cannot use '$T/none' as the trace repository: No such file or directory (create it first)" '' -- iotrace -C -S "$T/none"
expect 2 "invalid value for --set-trace-repository-path: 5001 characters, at most 4095" '' \
	-- bash -c '"$1" -C -S "/$(printf "a%.0s" {1..5000})"' _ "$BIN"
# one name past NAME_MAX in a short path: that name, not the path's length
expect 2 "invalid value for --set-trace-repository-path: a name in it is longer than 255 bytes" '' \
	-- bash -c '"$1" -C -S "/$(printf "a%.0s" {1..300})"' _ "$BIN"
for bad in $'/tmp/x\ny' "$T/saved-3 " $'/tmp/x\t'; do
	expect 2 "invalid value for --set-trace-repository-path: it holds a control character or ends in a blank" '' -- iotrace -C -S "$bad"
done
for bad in / // /tmp/..; do
	expect 2 "invalid value '$bad' for --set-trace-repository-path: the root directory cannot be the trace repository" '' -- iotrace -C -S "$bad"
done
# blanks inside are kept
mkdir "$T/a  b"
expect 0 'overrides the saved path' "=$T/a  b"     -- iotrace -C -S "$T/a  b"
expect 0 ''                     "={\"path\":\"$T/a  b\"}"        -- env -u IOTRACE_TRACE_DIR "$BIN" -C -G
expect 0 'overrides the saved path' "=$T/saved-3"  -- iotrace -C -S "$T/saved-3"
expect 2 "IOTRACE_TRACE_DIR must be an absolute path, not 'rel/repo'" '' -- env IOTRACE_TRACE_DIR=rel/repo "$BIN" -M -L

echo "# a repository other users could change (safe_dir.h): not saved, traced into or removed from"
mkdir -m 777 "$T/open" && chmod 777 "$T/open" && mkdir "$T/open/repo" "$T/theirs" &&
	chown 65534 "$T/theirs" && ln -s "$T/saved-3" "$T/their-link" && chown -h 65534 "$T/their-link" &&
	mkdir -p "$T/theirs-kernel/kernel" && chown 65534 "$T/theirs-kernel/kernel" || exit 1
expect 1 "cannot use '$T/open/repo' as the trace repository: '$T/open' is writable by other users (mode 0777), so a tracer's files there could be swapped for links (use a directory that only root or you can change)" '' \
	-- iotrace -C -S "$T/open/repo"
expect 1 "cannot use '$T/theirs' as the trace repository: '$T/theirs' belongs to user 65534, so" '' -- iotrace -C -S "$T/theirs"
expect 1 "cannot use '$T/their-link' as the trace repository: '$T/their-link' is a symbolic link of user 65534, so" '' \
	-- iotrace -C -S "$T/their-link"
expect 1 "cannot use '$T/theirs-kernel' as the trace repository: '$T/theirs-kernel/kernel' belongs to user 65534, so" '' \
	-- iotrace -C -S "$T/theirs-kernel"
expect 0 ''                     "={\"path\":\"$T/saved-3\"}"      -- env -u IOTRACE_TRACE_DIR "$BIN" -C -G
# one's own link to a safe place is taken
ln -s "$T/saved-3" "$T/own-link"
expect 0 'overrides the saved path' "=$T/own-link" -- iotrace -C -S "$T/own-link"
REPO_SAVED=$REPO
for REPO in "$T/open/repo" "$T/theirs-kernel"; do
	make_trace kernel/done
	expect 1 "refusing to remove traces from a repository other users can change: '" '' \
		-- env IOTRACE_TRACE_DIR="$REPO" "$BIN" -M -R -p 'kernel/*' --force
	check "-M -R left the trace in $REPO" [ -s "$REPO/kernel/done/octf.summary" ]
done
REPO=$REPO_SAVED

# a link planted where -C -S writes its temporary copy is not written through
echo keep >"$T/victim" && ln -s "$T/victim" "$T/planted.conf.tmp" || exit 1
expect 0 'overrides the saved path' "=$T/saved-3" -- env IOTRACE_CONFIG="$T/planted.conf" "$BIN" -C -S "$T/saved-3"
check "-C -S left the planted link's target as it was" [ "$(cat "$T/victim")" = keep ]
check "-C -S saved the path" grep -qx "trace-repository-path=$T/saved-3" "$T/planted.conf"

echo "# read as root: another user's symlinks in a trace are not followed (regular_file.h)"
make_trace kernel/secret
mkdir "$T/their-trace" && ln -s "$REPO/kernel/secret/octf.summary" "$REPO/kernel/secret/octf.trace.0" "$T/their-trace/" &&
	chown -R -h 65534 "$T/their-trace" || exit 1
expect 1 "cannot open trace '$T/their-trace': octf.trace.0: a symbolic link of another user, not followed" '' \
	-- iotrace -P --io -p "$T/their-trace"
expect 1 "cannot read the summary of trace '$T/their-trace': a symbolic link of another user, not followed" '' \
	-- iotrace -M -G -p "$T/their-trace"
# root's own links are followed
chown -h 0 "$T/their-trace/octf.summary" "$T/their-trace/octf.trace.0"
expect 0 ''                     '"tracePath": "kernel/secret"' -- iotrace -M -G -p "$T/their-trace"
rm -rf "$T/their-trace" "$REPO/kernel/secret"
printf '# written by hand\n  trace-repository-path = %s/spaced  \n' "$T" >"$T/spaced.conf"
expect 0 ''                     "={\"path\":\"$T/spaced\"}"       -- env -u IOTRACE_TRACE_DIR IOTRACE_CONFIG="$T/spaced.conf" "$BIN" -C -G
printf 'trace-repository-path=relative/repo\n' >"$T/relative.conf"
expect 0 "trace-repository-path 'relative/repo' is not an absolute path; using /var/lib/iotrace" \
	'={"path":"/var/lib/iotrace"}' -- env -u IOTRACE_TRACE_DIR IOTRACE_CONFIG="$T/relative.conf" "$BIN" -C -G
expect 1 'saved the trace repository path, but cannot write output: No space left on device' '' \
	-- bash -c '"$@" >/dev/full' _ env -u IOTRACE_TRACE_DIR "$BIN" -C -S "$T/saved-2"
check "... and it is saved" grep -qx "trace-repository-path=$T/saved-2" "$IOTRACE_CONFIG"
expect 0 'overrides the saved path' "=$T/saved-3"  -- iotrace -C -S "$T/saved-3"
check "config file holds the last saved path" grep -qx "trace-repository-path=$T/saved-3" "$IOTRACE_CONFIG"

finish
