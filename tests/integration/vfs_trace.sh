#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the VFS layer (--vfs), file events and the link
# between system calls and the block I/O beneath them.
#
#   usage: tests/integration/vfs_trace.sh PATH/TO/iotrace PATH/TO/vfs_pattern
#
# vfs_pattern (built next to the tests) runs as two processes, each in a
# cgroup v2 of its own: a writer (creates a/b/c/d/e/f.dat, 256 pwrite64s
# of 4 KiB, fsync; creates a/b/tmp.dat) and a reader (reads f.dat back
# with O_DIRECT, renames it to g.dat, unlinks tmp.dat, reads 4 KiB of
# g.dat); the reader runs under another name (vfs_reader, a link to the
# binary), so that its comm differs. Both print what they did; check_vfs.py compares that with
# `iotrace -P --io --raw`: every VFS record, per-file bytes, paths, the
# Create/Delete/MoveFrom/MoveTo events, the file offsets, LBAs (FIEMAP),
# process, cgroup and vfsCallId of the direct reads and of f.dat's
# writeback, and, when the parser has it, `-P --file-statistics`.
#
# Runs (IOTRACE_VFS_RUNS="ext4 pids comm cgroup paths xfs btrfs btrfs-subvol" is
# the default):
#   ext4    the pattern on ext4, traced with --vfs
#   pids    the same with --vfs --pids <the writer>: only its calls
#   comm    the same with --vfs --comm vfs_reader: only the reader's calls
#   cgroup  the same with --vfs --cgroup <the reader's cgroup>
#   paths   the same with --vfs --paths '<link>/paths/a/b/c/d/e/*', where
#           <link> is a symbolic link to the mount point: the calls on
#           f.dat (g.dat once renamed), not those on tmp.dat; the tracer
#           says it matches the pattern as '<mount>/paths/a/b/c/d/e/*' too
#   xfs     the pattern on xfs, traced with --vfs
#   btrfs   the pattern on btrfs, traced with --vfs: its files carry the
#           file system's own device number, and FIEMAP's addresses are
#           btrfs's logical ones, mapped to the disk through its chunk tree
#   btrfs-subvol  the pattern in subvolume sv of that btrfs, also mounted
#           on a directory of its own (subvol=sv), traced with --vfs --paths
#           '<that mount>/paths/a/b/c/d/e/*': the subvolume's files have
#           its device number, and --paths sees them under that mount
#
# Needs root, BTF, loop devices, mkfs.ext4, mkfs.xfs, btrfs-progs, a cgroup2 mount and
# python3; a missing one is a failure, never a skip. Everything set up is
# torn down at exit, also on failure. IOTRACE_TEST_KEEP=1 keeps the
# temporary directory (traces, parsed events, the pattern's output).

set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binaries vfs_pattern "$@"
PATTERN=$HELPER
HERE=$(cd "$(dirname "$0")" && pwd)
RUNS=${IOTRACE_VFS_RUNS:-ext4 pids comm cgroup paths xfs btrfs btrfs-subvol}

iotrace_test_harness --list-failures

# --- capabilities: fail loudly -----------------------------------------------
iotrace_require_root_bpf "loop devices, mount, cgroups, BPF" \
	losetup mkfs.ext4 mount umount python3 stat truncate findmnt mkfifo timeout
case " $RUNS " in
*" xfs "*) command -v mkfs.xfs >/dev/null || die "'mkfs.xfs' is not installed (xfsprogs; scripts/install-deps.sh)" ;;
esac
case " $RUNS " in
*" btrfs "* | *" btrfs-subvol "*)
	command -v mkfs.btrfs >/dev/null || die "'mkfs.btrfs' is not installed (btrfs-progs; scripts/install-deps.sh)"
	grep -qw btrfs /proc/filesystems || die "the kernel has no btrfs (not in /proc/filesystems)"
	;;
esac
iotrace_require_loop
iotrace_require_cgroup2

# --- setup and teardown --------------------------------------------------------
T=$(mktemp -d /tmp/iotrace-vfs.XXXXXX)
# shellcheck disable=SC2034 # iotrace_teardown_fs (tracer-lib.sh) reads it
IMG=
LOOP=
MNT=
SUBMNT=
CGW=
CGR=
TRACER_PID=
WPID=
RPID=

kill_workers() {
	iotrace_kill_wait "$WPID" "$RPID"
	WPID=
	RPID=
}

cleanup() {
	local rc=$?

	kill_workers
	iotrace_stop "$TRACER_PID"
	if [ -n "$SUBMNT" ]; then
		umount "$SUBMNT"
		rmdir "$SUBMNT"
	fi
	iotrace_teardown_fs
	# the workers are gone: the cgroups are empty
	[ -n "$CGW" ] && rmdir "$CGW"
	[ -n "$CGR" ] && rmdir "$CGR"
	iotrace_test_remove_temp "$T"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

REPO=$T/repo
iotrace_temp_repository "$REPO"

CGW=$CG2/iotrace-vfs.$$.writer
mkdir "$CGW" || { CGW=; die "cannot create cgroup $CG2/iotrace-vfs.$$.writer"; }
CGR=$CG2/iotrace-vfs.$$.reader
mkdir "$CGR" || { CGR=; die "cannot create cgroup $CG2/iotrace-vfs.$$.reader"; }
CGW_ID=$(stat -c %i "$CGW")
CGR_ID=$(stat -c %i "$CGR")
echo "# cgroups: writer $CGW (id $CGW_ID), reader $CGR (id $CGR_ID)"

# btrfs_data_chunks DEV: "LOGICAL LENGTH PHYSICAL" of each data chunk of
# the btrfs on DEV (one copy: the first stripe), from its chunk tree
btrfs_data_chunks() {
	btrfs inspect-internal dump-tree -t chunk "$1" | awk '
		/CHUNK_ITEM/ { logical = $6 + 0; data = 0 }
		/^[ \t]*length .* type / { length_ = $2; data = / type DATA/ }
		/stripe 0 devid/ && data { print logical, length_, $6; data = 0 }'
}

# --- helpers --------------------------------------------------------------------

# start_tracer NAME ARGS...: the tracer on $LN in the background; waits
# until the summary says RUNNING and has been rewritten once by the
# collector's loop (the programs are attached). Sets TRACER_PID, TRACE.
start_tracer() {
	local name=$1
	shift
	"$BIN" -S -d "$LN" "$@" >"$T/$name.out" 2>"$T/$name.err" &
	TRACER_PID=$!
	iotrace_wait_running "$BIN" "$TRACER_PID" "$REPO"
	case $? in
	0) return 0 ;;
	1)
		fail "$name: tracer did not reach RUNNING"
		sed 's/^/      stderr: /' "$T/$name.err" | tail -8
		;;
	*) fail "$name: summary never rewritten after start (collector loop not running?)" ;;
	esac
	return 1
}

# stop_tracer NAME: SIGINT, wait; checks exit status and lost events.
stop_tracer() {
	iotrace_test_stop_tracer "$1: " "$T/$1.out" "$T/$1.err"
}

# start_workers NAME DIR: the writer and the reader, each moved into its
# cgroup, blocked until go_worker; sets WPID, RPID
start_workers() {
	local name=$1 dir=$2
	mkfifo "$T/$name.wgo" "$T/$name.rgo"
	"$PATTERN" --cgroup "$CGW" --wait "$T/$name.wgo" writer "$dir" >"$T/$name.writer" 2>"$T/$name.writer.err" &
	WPID=$!
	[ -e "$T/vfs_reader" ] || ln -s "$PATTERN" "$T/vfs_reader"
	"$T/vfs_reader" --cgroup "$CGR" --wait "$T/$name.rgo" reader "$dir" >"$T/$name.reader" 2>"$T/$name.reader.err" &
	RPID=$!
	# each prints its process line once it is in its cgroup
	for _ in $(seq 100); do
		[ -s "$T/$name.writer" ] && [ -s "$T/$name.reader" ] && return 0
		sleep 0.05
	done
	fail "$name: the pattern's processes did not start: $(cat "$T/$name.writer.err" "$T/$name.reader.err")"
	return 1
}

# go_worker NAME ROLE PID: lets it run, waits for it; checks its exit
go_worker() {
	local name=$1 role=$2 pid=$3 rc
	timeout 10 sh -c 'echo go >"$1"' _ "$T/$name.${role:0:1}go"
	wait "$pid"
	rc=$?
	check "$name: vfs_pattern $role exit 0 (got $rc)" [ "$rc" = 0 ]
	[ -s "$T/$name.$role.err" ] && sed 's/^/      stderr: /' "$T/$name.$role.err" | head -5
}

run_checker() {
	local name=$1 rc
	shift
	python3 "$HERE/check_vfs.py" "$@" >"$T/$name.check" 2>&1
	rc=$?
	iotrace_test_relay "$T/$name.check" "$rc" "$name: check_vfs.py"
}

HAVE_FILE_STATS=0
"$BIN" -P -H 2>&1 | grep -q -- '--file-statistics' && HAVE_FILE_STATS=1

# run NAME FSTYPE SUBDIR TRACED FILES [TRACER ARGS...]: the pattern in
# $MNT/SUBDIR traced with --vfs and the args, then parsed and checked.
# TRACED: the processes whose calls the trace must hold, FILES the files
# (see check_vfs.py). @WPID@ in an argument is the writer's pid.
run() {
	local name=$1 fstype=$2 sub=$3 traced=$4 files=$5 dir prefix rc tev nev args=() x
	shift 5
	echo "# run $name: $fstype, --vfs $*"
	# nothing of an earlier run may linger (its pids and tracer are reused names)
	kill_workers
	iotrace_stop "$TRACER_PID"
	TRACER_PID=
	dir=$MNT${sub:+/$sub}
	prefix=${sub:+/$sub}
	mkdir -p "$dir"
	sync
	start_workers "$name" "$dir" || { kill_workers; return; }
	for x in "$@"; do args+=("${x//@WPID@/$WPID}"); done
	if ! start_tracer "$name" --vfs -l "vfs-$name" "${args[@]}"; then
		kill_workers
		iotrace_stop "$TRACER_PID"
		TRACER_PID=
		return
	fi
	go_worker "$name" writer "$WPID"
	WPID=
	go_worker "$name" reader "$RPID"
	RPID=
	sync
	sleep 0.5
	stop_tracer "$name"
	tev=$(iotrace_json_get "$T/$name.out" tracedEvents)
	# the options as given (but --devices and --label), quoted as a shell would need
	local opts want
	opts=$(iotrace_json_get "$T/$name.out" tags options)
	want=$(python3 -c 'import shlex, sys; print(shlex.join(sys.argv[1:]))' --vfs "${args[@]}")
	check "$name: summary tags.options \"$opts\" == \"$want\"" [ "$opts" = "$want" ]

	timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/$name.jsonl" 2>"$T/$name.parse.err"
	rc=$?
	check "$name: -P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]
	[ -s "$T/$name.parse.err" ] && sed 's/^/      stderr: /' "$T/$name.parse.err" | head -5
	nev=$(wc -l <"$T/$name.jsonl")
	check "$name: parsed event count $nev == summary tracedEvents '$tev'" [ "$nev" = "$tev" ]

	local fsargs=()
	if [ "$traced" = writer,reader ] && [ "$files" = f,g,tmp ]; then
		if [ "$HAVE_FILE_STATS" = 1 ]; then
			timeout -k 5 120 "$BIN" -P --file-statistics -p "$TRACE" >"$T/$name.filestats" 2>"$T/$name.filestats.err"
			rc=$?
			check "$name: -P --file-statistics exit 0 (got $rc)" [ "$rc" = 0 ]
			fsargs=(--file-stats "$T/$name.filestats")
		else
			note "$name: this parser has no --file-statistics: no cross-check"
		fi
	fi
	# the files' device: the disk's, except on btrfs (the subvolume's)
	local fsdev chunks=()
	fsdev=$(iotrace_st_devt "$dir")
	if [ "$fstype" = btrfs ]; then
		btrfs_data_chunks "$LOOP" >"$T/$name.chunks" ||
			fail "$name: cannot read the chunk tree of $LOOP"
		chunks=(--chunks "$T/$name.chunks")
	fi
	run_checker "$name" "$T/$name.jsonl" --label "$name" --dev "$fsdev" "${chunks[@]}" \
		--writer "$T/$name.writer" --reader "$T/$name.reader" \
		--writer-cgroup "$CGW_ID" --reader-cgroup "$CGR_ID" \
		--writer-cgroup-path "${CGW#"$CG2"}" --reader-cgroup-path "${CGR#"$CG2"}" \
		--prefix "$prefix" --traced "$traced" --files "$files" "${fsargs[@]}"
}

want_run() { case " $RUNS " in *" $1 "*) return 0 ;; esac; return 1; }

# =============================================================================
if want_run ext4 || want_run pids || want_run comm || want_run cgroup || want_run paths; then
	iotrace_quiet_ext4 256M vfs "$T" || die "$SETUP_ERR"
	echo "# ext4 on $LOOP ($MAJ:$MIN, dev_t $DEVT)"
	want_run ext4 && run ext4 ext4 "" writer,reader f,g,tmp
	want_run pids && run pids ext4 pids writer f,g,tmp --pids @WPID@
	want_run comm && run comm ext4 comm reader f,g,tmp --comm vfs_reader
	want_run cgroup && run cgroup ext4 cgroup reader f,g,tmp --cgroup "$CGR"
	if want_run paths; then
		# the trace's paths are real ones: the pattern through a link is matched resolved
		ln -s "$MNT" "$T/link" || die "cannot make a symbolic link to $MNT"
		run paths ext4 paths writer,reader f,g --paths "$T/link/paths/a/b/c/d/e/*"
		check "paths: the tracer says the pattern is matched through the link" grep -qxF \
			"iotrace: --paths: '$T/link/paths/a/b/c/d/e/*' is matched as '$MNT/paths/a/b/c/d/e/*' too, its directories' real path" \
			"$T/paths.err"
	fi
	iotrace_teardown_fs
fi

if want_run xfs; then
	# never two file systems at once: MNT, LOOP and IMG name the one to tear down
	iotrace_teardown_fs
	iotrace_shm_fs xfs 512M vfs "$T" || die "$SETUP_ERR"
	echo "# xfs on $LOOP ($MAJ:$MIN, dev_t $DEVT)"
	run xfs xfs "" writer,reader f,g,tmp
	iotrace_teardown_fs
fi

if want_run btrfs || want_run btrfs-subvol; then
	iotrace_teardown_fs
	iotrace_shm_fs btrfs 512M vfs "$T" || die "$SETUP_ERR"
	echo "# btrfs on $LOOP ($MAJ:$MIN, dev_t $DEVT)"
	want_run btrfs && run btrfs btrfs "" writer,reader f,g,tmp
	if want_run btrfs-subvol; then
		btrfs subvolume create "$MNT/sv" >"$T/subvol.log" 2>&1 ||
			die "cannot create a btrfs subvolume: $(cat "$T/subvol.log")"
		SUBMNT=$(mktemp -d /tmp/iotrace-vfsb-sv.XXXXXX)
		mount -o noatime,subvol=sv "$LOOP" "$SUBMNT" || die "cannot mount subvolume sv of $LOOP"
		run btrfs-subvol btrfs sv/paths writer,reader f,g --paths "$SUBMNT/paths/a/b/c/d/e/*"
		umount "$SUBMNT" && rmdir "$SUBMNT" && SUBMNT=
	fi
	iotrace_teardown_fs
fi

finish
