#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the trace repository fills up while tracing.
#
#   usage: tests/integration/full_disk.sh PATH/TO/iotrace
#
# The repository is an 8 MiB tmpfs (room for several of a CPU's 1 MiB
# stream buffers); a loop device is traced while fio's random writes keep
# it busy until the repository is full. Expected: the tracer stops by
# itself with one error line naming the disk, exit 1; the summary says
# ERROR / "disk full"; every stream holds whole records (compressed: whole
# zstd frames) only, so the trace parses with exit 0 and its events are
# what the summary counted, and the summary's incompleteFromSid leaves
# the joined views a good part of them (not none). Once with the default
# compression, once with --compress none; then both again in a repository
# smaller than a CPU's buffer, which they must still fill.
#
# Needs root, BTF and loop devices; a missing one is a failure, not a skip.
# Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

BIN=$(realpath -e "$1") || { echo "FAIL: no binary at '${1:-}'" >&2; exit 1; }
iotrace_test_harness

iotrace_require_root_bpf "loop devices, tmpfs mount, BPF" fio

T=$(mktemp -d /tmp/iotrace-full.XXXXXX)
IMG=$T.img
LOOP=
TRACER=
WRITER=
cleanup() {
	# the writer's fio holds the loop device open: let it end before detaching
	[ -n "$WRITER" ] && touch "$T/stop" && wait "$WRITER" 2>/dev/null
	iotrace_stop "$TRACER"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	mountpoint -q "$T/repo" && umount "$T/repo"
	rm -rf "$T" "$IMG"
}
trap cleanup EXIT

IMG=/dev/shm/$(basename "$T").img
truncate -s 64M "$IMG"
LOOP=$(losetup -f --show "$IMG") || die "losetup"
mkdir -p "$T/repo"
iotrace_temp_repository "$T/repo"

# trace_until_full MODE SIZE [FSIZE_KIB]: traces with --compress MODE into
# a fresh tmpfs repository of SIZE until it is full (or, given FSIZE_KIB,
# until a stream reaches that file size limit, ulimit -f); the tracer's
# exit status in RC
trace_until_full() {
	mount -t tmpfs -o size="$2",mode=0700 iotrace-full "$T/repo" || die "mount tmpfs"
	(
		[ -z "${3:-}" ] || ulimit -f "$3" || exit 99
		exec "$BIN" --start-tracing --devices "$(basename "$LOOP")" --compress "$1"
	) >"$T/out" 2>"$T/err" &
	TRACER=$!

	# O_DIRECT random writes, each a block I/O, until the tracer gives up:
	# fast enough that a CPU's stream buffer (1 MiB) fills and is written
	# before the one that meets the full disk
	rm -f "$T/stop"
	(while [ ! -e "$T/stop" ]; do
		fio --name=fill --filename="$LOOP" --rw=randwrite --bs=4k --direct=1 \
			--ioengine=libaio --iodepth=16 --runtime=2 --time_based \
			--output=/dev/null >/dev/null 2>&1
	done) &
	WRITER=$!

	iotrace_wait_exit "$TRACER" 60 ||
		die "$1, $2: tracer still running after 60 s with a full repository"
	wait "$TRACER"
	RC=$?
	TRACER=
	touch "$T/stop"
	wait "$WRITER" 2>/dev/null
	WRITER=
}

# fill MODE: a repository of 8 MiB, several of a CPU's stream buffers
fill() {
	local mode=$1 rc lines trace summary prc events counted

	trace_until_full "$mode" 8m
	rc=$RC
	[ "$rc" -eq 1 ] && ok "$mode: exit status 1" || fail "$mode: exit status $rc, want 1"
	lines=$(wc -l <"$T/err")
	if [ "$lines" -eq 1 ] && grep -q "^iotrace: cannot write trace in .*: No space left on device; stopped" "$T/err"; then
		ok "$mode: one error line naming the full disk"
	else
		fail "$mode: stderr: $(cat "$T/err")"
	fi

	trace=$(ls -d "$T"/repo/kernel/* 2>/dev/null | head -1)
	[ -n "$trace" ] || die "$mode: no trace directory"
	summary=$("$BIN" -M -G -p "$trace")
	echo "$summary" | grep -q '"state": "ERROR"' && ok "$mode: summary state ERROR" || fail "$mode: summary: $summary"
	echo "$summary" | grep -q '"stopReason": "disk full"' && ok "$mode: stopReason disk full" ||
		fail "$mode: summary: $summary"
	if [ "$mode" = zstd ]; then
		[ -n "$(ls "$trace"/octf.trace.*.zst 2>/dev/null)" ] && ok "$mode: streams are octf.trace.<cpu>.zst" ||
			fail "$mode: no .zst streams: $(ls "$trace")"
	fi

	"$BIN" -P --io --raw -p "$trace" >"$T/events" 2>"$T/perr"
	prc=$?
	# a loaded machine may overflow the kernel buffers while dd runs flat
	# out (seen before compression existed): those events are counted in
	# the summary and make the exit status 3; damage must never show
	if [ "$prc" -eq 3 ] && ! grep -qvE "^iotrace: warning: [0-9]+ events? (was|were) lost while tracing" "$T/perr"; then
		echo "      $mode: $(cat "$T/perr")"
		prc=0
	fi
	[ "$prc" -eq 0 ] && ok "$mode: trace parses cleanly (whole records only)" ||
		fail "$mode: parse exit $prc: $(cat "$T/perr")"
	events=$(wc -l <"$T/events")
	counted=$(echo "$summary" | sed -n 's/.*"tracedEvents": "\([0-9]*\)".*/\1/p')
	[ "$events" -gt 1000 ] && ok "$mode: $events events kept" || fail "$mode: only $events events kept"
	[ "$events" = "$counted" ] && ok "$mode: events on disk = tracedEvents in summary" ||
		fail "$mode: events on disk $events, summary says $counted"
	# the streams stopped apart: the summary says from where they do not all hold every event
	inc=$(echo "$summary" | sed -n 's/.*"incompleteFromSid": "\([0-9]*\)".*/\1/p')
	[ -n "$inc" ] && ok "$mode: summary has tags.incompleteFromSid ($inc)" ||
		fail "$mode: no incompleteFromSid in the summary: $summary"
	# where: at the lost buffer's first record, not at a stream's first
	# (a mark left there once the first buffer was flushed made the
	# joined views drop nearly every I/O the files hold)
	kept=$(python3 - "$T/events" "${inc:-0}" <<'EOF'
import json, sys
below = total = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if "io" in e:
        total += 1
        below += int(e["header"]["sid"]) < int(sys.argv[2])
print(below, total)
EOF
)
	# (the other CPUs' records past the lost buffer's first sid are cut
	# too: a buffer is up to 1 MiB, 60-80% were kept in runs here)
	check "$mode: a quarter or more of the I/Os in the files are below incompleteFromSid (below, all: $kept)" \
		bash -c 'set -- $1; [ "$2" -gt 0 ] && [ $(($1 * 4)) -ge "$2" ]' _ "$kept"
	umount "$T/repo"
}

fill zstd
fill none

# what_fits LABEL MODE ROOM_KIB: after trace_until_full, the tracer
# stopped with exit 1 and one line saying what it kept; its streams hold
# all but a run of records (16 KiB before compression) of ROOM_KIB each
# (SIZE: of the repository; FSIZE_KIB: of the largest stream), whole
# records only, the events the summary counts
what_fits() {
	local label=$1 mode=$2 room=$3 rc=$RC trace bytes events

	check "$label: exit status 1 (got $rc)" [ "$rc" = 1 ]
	trace=$(ls -d "$T"/repo/kernel/* 2>/dev/null | head -1)
	[ -n "$trace" ] || die "$label: no trace directory"
	if [ "$label" = "${label#file size}" ]; then
		bytes=$(cat "$trace"/octf.trace.* | wc -c)
	else
		bytes=$(wc -c "$trace"/octf.trace.* | awk '$2 != "total" && $1 > m { m = $1 } END { print m + 0 }')
	fi
	check "$label: the streams fill their room ($bytes bytes of $room KiB)" \
		[ "$bytes" -ge $((room * 1024 * 3 / 5)) ]
	"$BIN" -P --io --raw -p "$trace" >"$T/events" 2>"$T/perr"
	rc=$?
	# lost kernel events (a loaded machine) make it 3; damage must never show
	[ "$rc" -eq 3 ] && ! grep -qvE "^iotrace: warning: [0-9]+ events? (was|were) lost while tracing" "$T/perr" &&
		rc=0
	check "$label: trace parses cleanly, exit $rc ($(head -2 "$T/perr"))" [ "$rc" = 0 ]
	events=$(wc -l <"$T/events")
	check "$label: events kept ($events) are the summary's" \
		bash -c '[ "$1" -gt 1000 ] && "$2" -M -G -p "$3" | grep -q "\"tracedEvents\": \"$1\""' \
		_ "$events" "$BIN" "$trace"
	check "$label: one error line that says so ($(cat "$T/err"))" \
		bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "stopped, the $2 events written before are kept" "$1"' \
		_ "$T/err" "$events"
	SUMMARY=$("$BIN" -M -G -p "$trace")
}

# A repository of 128 KiB, less than the first write of a CPU's stream
# takes (fio fills more than that by the first flush, 1 s, whether raw or
# compressed): what of it fits is written (before, such a trace kept no
# event at all; at 512 KiB raw, it did when the first flush came early). A page more per
# CPU, for a compressed stream's header, and two for the summary and the
# cgroups file.
for small in "none 128" "zstd 128"; do
	set -- $small
	trace_until_full "$1" "$(($2 + 4 * $(nproc) + 8))k"
	what_fits "small repository, $1" "$1" "$2"
	umount "$T/repo"
done

# A file size limit (ulimit -f 256) on the tracer, in a repository with
# room: a write error like the full disk's, not a kill by SIGXFSZ (which
# left the summary RUNNING and the stream cut inside a record)
trace_until_full none 8m 256
what_fits "file size limit, none" none 256
check "file size limit: stopReason 'file size limit'" \
	grep -q '"stopReason": "file size limit"' <<<"$SUMMARY"
check "file size limit: the error line names it ($(cat "$T/err"))" \
	grep -q "^iotrace: cannot write trace in .*: File too large; stopped" "$T/err"
umount "$T/repo"

# a repository full before the start: one error line (its first file,
# the INITIALIZING summary, cannot be written), and no trace left behind
mount -t tmpfs -o size=64k,mode=0700 iotrace-full "$T/repo" || die "mount tmpfs"
dd if=/dev/zero of="$T/repo/filler" bs=4k count=64 status=none 2>/dev/null
# the lock elsewhere: the streams are what cannot be made
IOTRACE_LOCK_FILE=$T/iotrace.lock "$BIN" --start-tracing --devices "$(basename "$LOOP")" -t 2 \
	>"$T/out" 2>"$T/err"
rc=$?
check "full at the start: exit 1 (got $rc)" [ "$rc" = 1 ]
check "full at the start: one error line ($(cat "$T/err"))" \
	bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "^iotrace: cannot write summary in .*No space left on device" "$1"' _ "$T/err"
check "full at the start: no summary printed" [ ! -s "$T/out" ]
check "full at the start: no trace left ($(ls "$T/repo/kernel" 2>/dev/null))" \
	bash -c '[ -z "$(ls -A "$1/kernel" 2>/dev/null)" ]' _ "$T/repo"
umount "$T/repo"
finish
