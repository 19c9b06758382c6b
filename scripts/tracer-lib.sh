# SPDX-License-Identifier: BSD-3-Clause
# Shell helpers shared by the demo and the shell tests: source this file.

# iotrace_wait_exit PID SECONDS: waits until process PID is gone, looking
# every 0.1 s; returns 1 if it still runs after SECONDS.
iotrace_wait_exit() {
	local pid=$1 i

	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$pid" 2>/dev/null
}

# iotrace_stop PID: ask the tracer to finish (SIGINT: it writes its final
# summary), give it 5 s, then kill it; then wait for its detach helper
# (iotrace_wait_detached). Safe to call for a PID that is gone.
iotrace_stop() {
	local pid=$1

	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid" 2>/dev/null
		iotrace_wait_exit "$pid" 5
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	iotrace_wait_detached
	return 0
}

# iotrace_wait_detached: waits, up to 30 s for each, until no detach
# helper (iotrace-detach, src/detach.h) is left but zombies, which init
# may reap seconds later. Until then a stopped tracer's syscall programs
# are still attached, doing nothing but taxing every system call.
# Returns 1 if one is still there. Looks every 50 ms, but lists the
# processes once: scanning /proc that often would slow what it waits for.
iotrace_wait_detached() {
	local pid state i

	for pid in $(pgrep -x iotrace-detach); do
		state=
		for ((i = 0; i < 600; i++)); do
			read -r _ _ state _ 2>/dev/null <"/proc/$pid/stat" || break
			[ "$state" = Z ] && break
			sleep 0.05
		done
		[ "$state" = Z ] || [ ! -e "/proc/$pid" ] || return 1
	done
	return 0
}

# iotrace_bench_alone NAME: fails, with one line on stderr, while another
# iotrace or bench/floor runs on this machine. Their programs run for
# every bio of every device, traced or not, so they would slow a
# benchmark's untraced runs as well and skew every ratio it prints; a
# tracer left behind by an interrupted experiment did exactly that. A
# stopped tracer's detach helper is waited for.
iotrace_bench_alone() {
	local pids

	iotrace_wait_detached || {
		echo "$1: a stopped tracer's detach helper (iotrace-detach) still runs 30 s later; its programs would slow the untraced runs too" >&2
		return 1
	}
	pids=$(pgrep -x 'iotrace|floor' | tr '\n' ' ')
	[ -z "$pids" ] && return 0
	echo "$1: another tracer is running (pid ${pids% }: $(ps -o comm= -p "${pids%% *}")); stop it first, its programs would slow the untraced runs too" >&2
	return 1
}

# iotrace_median: the median of the numbers on stdin, one per line (the
# mean of the middle two for an even count); the benchmarks' figures.
iotrace_median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# iotrace_temp_repository DIR: traces, the tracer lock and the config file all
# under DIR, so a run never touches /var/lib/iotrace, never waits on or
# blocks a real tracer, and never rewrites /etc/iotrace.
iotrace_temp_repository() {
	mkdir -p -m 700 "$1"
	export IOTRACE_TRACE_DIR=$1
	export IOTRACE_LOCK_FILE=$1/iotrace.lock
	export IOTRACE_CONFIG=$1/iotrace.conf
}

# iotrace_shm_loop SIZE: for a test with its temporary directory in T, a
# loop device over a SIZE file in /dev/shm named after T, and a trace
# repository in T/repo (iotrace_temp_repository). Sets IMG and LOOP in the
# caller as soon as each exists, for its cleanup; returns 1 if losetup
# fails.
iotrace_shm_loop() {
	IMG=/dev/shm/$(basename "$T").img
	truncate -s "$1" "$IMG" || return 1
	LOOP=$(losetup -f --show "$IMG") || { LOOP=; return 1; }
	iotrace_temp_repository "$T/repo"
}

# iotrace_loop_test NAME SIZE: the setting of a root test on a raw loop
# device: T (a temporary directory named after NAME), a SIZE loop device
# over /dev/shm (LOOP, its name in DEV, IMG) with the trace repository in
# T/repo (iotrace_shm_loop), and a trap that stops the tracer in
# TRACER_PID and tears all of it down at exit, also on failure.
iotrace_loop_test() {
	T=$(mktemp -d "/tmp/iotrace-$1.XXXXXX") || die "mktemp"
	IMG=
	LOOP=
	TRACER_PID=
	trap iotrace_loop_test_cleanup EXIT
	iotrace_shm_loop "$2" || die "cannot set up a loop device over /dev/shm"
	DEV=$(basename "$LOOP")
}

iotrace_loop_test_cleanup() {
	iotrace_stop "$TRACER_PID"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$T" "$IMG"
}

# iotrace_test_binary "$@": the one argument of a test that takes the
# iotrace binary; sets BIN (absolute). Wrong usage exits 2, a missing
# binary 1.
iotrace_test_binary() {
	if [ $# -ne 1 ]; then
		echo "usage: $0 PATH/TO/iotrace" >&2
		exit 2
	fi
	BIN=$(realpath -e "$1") || { echo "FAIL: no binary at '$1'" >&2; exit 1; }
}

# iotrace_test_binaries NAME PATH/TO/iotrace PATH/TO/NAME: for a test
# that takes the tracer and a test helper built with it (NAME): a usage
# line unless given both paths; sets BIN, and HELPER to the helper's
# absolute path.
iotrace_test_binaries() {
	local name=$1
	shift
	if [ $# -ne 2 ]; then
		echo "usage: $0 PATH/TO/iotrace PATH/TO/$name" >&2
		exit 2
	fi
	HELPER=$(realpath -e "$2") || { echo "FAIL: no $name at '$2'" >&2; exit 1; }
	iotrace_test_binary "$1"
}

# iotrace_stat_sectors BEFORE AFTER: the read, write and discard sectors
# between two snapshots of a block device's stat file (discard 0 where the
# kernel's stat has no discard fields)
iotrace_stat_sectors() {
	local -a was now
	read -r -a was <"$1"
	read -r -a now <"$2"
	echo "$((now[2] - was[2])) $((now[6] - was[6])) $((${now[13]:-0} - ${was[13]:-0}))"
}

# iotrace_st_devt PATH: the device stat gives PATH (st_dev; on btrfs its
# subvolume's) in the kernel's dev_t encoding, as traces carry it
iotrace_st_devt() {
	stat -c '%Hd %Ld' "$1" | { read -r ma mi; echo $(( (ma << 20) | mi )); }
}

# iotrace_fs_test_start TAG [WHAT]: for a test that traces a file system
# on a loop device: its temporary directory T (/tmp/iotrace-TAG.*; WHAT
# says what it holds when IOTRACE_TEST_KEEP=1 keeps it), IMG, LOOP, LN,
# MNT and TRACER_PID empty, the trace repository in T/repo (a test never
# writes to the system's), and at exit a cleanup that runs the test's
# own iotrace_test_undo (if it defines one: workers, cgroups, settings),
# stops the tracer, tears the file system down and removes T.
iotrace_fs_test_start() {
	T=$(mktemp -d "/tmp/iotrace-$1.XXXXXX") || die "cannot make a temporary directory"
	iotrace_temp_repository "$T/repo"
	IOTRACE_TEST_KEEP_WHAT=${2:-}
	IMG=
	LOOP=
	LN=
	MNT=
	TRACER_PID=
	trap iotrace_fs_test_cleanup EXIT
	trap 'exit 130' INT TERM
}

iotrace_fs_test_cleanup() {
	local rc=$?

	declare -F iotrace_test_undo >/dev/null && iotrace_test_undo
	iotrace_kernel_completions_stop
	iotrace_stop "$TRACER_PID"
	iotrace_teardown_fs
	iotrace_tracefs_unmount
	iotrace_test_remove_temp "$T" "$IOTRACE_TEST_KEEP_WHAT"
	exit "$rc"
}

# iotrace_tracefs: sets TRACEFS to where tracefs shows the kernel's events,
# for a test that reads or sets them itself; mounts it on
# /sys/kernel/tracing if no one has (a node booted without systemd), and
# iotrace_tracefs_unmount, which the fs-test cleanup calls, unmounts what
# it mounted. SETUP_ERR and 1 when there is no tracefs. (iotrace mounts
# it itself when it needs it: tests/integration/tracefs_mount.sh.)
iotrace_tracefs() {
	local d

	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$d/events" ] && { TRACEFS=$d; return 0; }
	done
	if ! mount -t tracefs -o nosuid,nodev,noexec tracefs /sys/kernel/tracing 2>/dev/null; then
		SETUP_ERR="no tracefs, and it cannot be mounted on /sys/kernel/tracing"
		return 1
	fi
	TRACEFS=/sys/kernel/tracing
	IOTRACE_TRACEFS_MOUNTED=1
}

iotrace_tracefs_unmount() {
	[ "${IOTRACE_TRACEFS_MOUNTED:-0}" = 1 ] || return 0
	umount /sys/kernel/tracing && IOTRACE_TRACEFS_MOUNTED=0
}

# iotrace_kernel_completions_start DEVT: sets up a tracefs instance of this
# test (KCOMP_DIR) for the kernel's own block_rq_complete and
# block_bio_complete events of the disk DEVT (major << 20 | minor), with
# each event's thread group and the clock of the tracer's timestamps;
# iotrace_kernel_completions_record starts a recording, ..._take ends it.
# check_trace.py --kernel-completions tells with them a completion the
# kernel ran no BPF program for from one the tracer lost (see
# tests/integration/kernel_completions.py). SETUP_ERR and 1 when tracefs
# cannot do this.
iotrace_kernel_completions_start() {
	local ev

	iotrace_tracefs || return 1
	if [ ! -d "$TRACEFS/instances" ]; then
		SETUP_ERR="no tracefs instances in $TRACEFS (the kernel's completions are compared with the trace's)"
		return 1
	fi
	KCOMP_DIR=$TRACEFS/instances/iotrace-test-$$
	if ! mkdir "$KCOMP_DIR" 2>/dev/null; then
		SETUP_ERR="cannot make the tracefs instance $KCOMP_DIR"
		KCOMP_DIR=
		return 1
	fi
	if ! { echo 0 >"$KCOMP_DIR/tracing_on" && echo mono >"$KCOMP_DIR/trace_clock" &&
		echo 1 >"$KCOMP_DIR/options/record-tgid" && echo 0 >"$KCOMP_DIR/options/overwrite" &&
		echo 32768 >"$KCOMP_DIR/buffer_size_kb"; }; then
		SETUP_ERR="cannot set up the tracefs instance $KCOMP_DIR"
		return 1
	fi
	for ev in block_rq_complete block_bio_complete; do
		if ! { echo "dev == $1" >"$KCOMP_DIR/events/block/$ev/filter" &&
			echo 1 >"$KCOMP_DIR/events/block/$ev/enable"; }; then
			SETUP_ERR="cannot record block:$ev in $KCOMP_DIR"
			return 1
		fi
	done
}

# iotrace_kernel_completions_record: starts recording, from empty; around
# a traced window only, so that the buffer (32 MiB a CPU, not wrapping)
# holds it all.
iotrace_kernel_completions_record() {
	: >"$KCOMP_DIR/trace" && echo 1 >"$KCOMP_DIR/tracing_on"
}

# iotrace_kernel_completions_take FILE: stops recording and moves what was
# recorded to FILE; 1 when some of it did not fit in the buffer.
iotrace_kernel_completions_take() {
	local dropped

	echo 0 >"$KCOMP_DIR/tracing_on"
	cat "$KCOMP_DIR/trace" >"$1" || return 1
	dropped=$(cat "$KCOMP_DIR"/per_cpu/cpu*/stats |
		awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	: >"$KCOMP_DIR/trace"
	[ "$dropped" = 0 ]
}

# iotrace_test_kernel_completions_take LABEL FILE: (with
# iotrace_test_harness) ..._take FILE, checked
iotrace_test_kernel_completions_take() {
	local rc

	iotrace_kernel_completions_take "$2"
	rc=$?
	check "${1}ftrace kept every completion of the disk (exit $rc)" [ "$rc" = 0 ]
}

# iotrace_kernel_completions_stop: removes the instance, if there is one
# (the fs-test cleanup calls it).
iotrace_kernel_completions_stop() {
	[ -n "${KCOMP_DIR:-}" ] && [ -d "$KCOMP_DIR" ] || return 0
	echo 0 >"$KCOMP_DIR/tracing_on"
	rmdir "$KCOMP_DIR"
	KCOMP_DIR=
}

# iotrace_fs_loop SIZE TAG: a loop device over a SIZE file in /dev/shm for
# the file-system helpers below; sets IMG, LOOP, LN, MAJ, MIN and DEVT as
# they describe, SETUP_ERR on failure
iotrace_fs_loop() {
	IMG=$(mktemp "/dev/shm/iotrace-$2.XXXXXX.img")
	truncate -s "$1" "$IMG"
	LOOP=$(losetup -f --show "$IMG") || { LOOP=; SETUP_ERR="losetup cannot attach a loop device"; return 1; }
	LN=${LOOP#/dev/}
	IFS=: read -r MAJ MIN <"/sys/block/$LN/dev"
	DEVT=$(( (MAJ << 20) | MIN ))
}

# iotrace_quiet_ext4 SIZE TAG WORKDIR: an ext4 file system on a loop device
# backed by /dev/shm, quiet enough that /sys/block stat deltas can be
# compared with a trace exactly. Sets IMG, LOOP, LN (loopN), MAJ, MIN, DEVT
# (kernel dev_t encoding) and MNT in the caller, as soon as each exists, so
# the caller's cleanup can tear down a half-done setup. On failure returns
# 1 with the reason in SETUP_ERR.
iotrace_quiet_ext4() {
	local size=$1 tag=$2 work=$3

	iotrace_fs_loop "$size" "$tag" || return 1
	# no lazy init: ext4 must not write in the background while we count
	if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" >"$work/mkfs.log" 2>&1; then
		SETUP_ERR="mkfs.ext4 failed: $(cat "$work/mkfs.log")"
		return 1
	fi
	MNT=$(mktemp -d "/tmp/iotrace-$tag-mnt.XXXXXX")
	# no_prefetch_block_bitmaps: since 5.9 ext4's lazyinit thread otherwise
	# reads the block bitmaps in the background after mount, and those reads
	# can land after the tracer attached but before a 'before' snapshot
	# (seen here: 24 sectors read by ext4lazyinit, traced, not in the delta)
	if ! mount -o noatime,no_prefetch_block_bitmaps "$LOOP" "$MNT" 2>/dev/null; then
		echo "# ext4 has no no_prefetch_block_bitmaps (kernel < 5.9); mounting without it"
		mount -o noatime "$LOOP" "$MNT" || { SETUP_ERR="cannot mount $LOOP"; return 1; }
	fi
}

# iotrace_shm_fs TYPE SIZE TAG WORKDIR: an xfs or btrfs file system on a
# loop device backed by /dev/shm; sets what iotrace_quiet_ext4 sets
iotrace_shm_fs() {
	local type=$1 size=$2 tag=$3 work=$4

	iotrace_fs_loop "$size" "$tag-$type" || return 1
	if ! "mkfs.$type" -q -f "$LOOP" >"$work/mkfs.$type.log" 2>&1; then
		SETUP_ERR="mkfs.$type failed: $(cat "$work/mkfs.$type.log")"
		return 1
	fi
	MNT=$(mktemp -d "/tmp/iotrace-$tag-$type-mnt.XXXXXX")
	mount -o noatime "$LOOP" "$MNT" || { SETUP_ERR="cannot mount $LOOP ($type)"; return 1; }
}

# iotrace_test_fs TYPE TAG WORKDIR: an ext4, xfs or btrfs file system on a
# loop device backed by /dev/shm, mounted: ext4 of 256 MiB as
# iotrace_quiet_ext4 makes it, the others of 512 MiB; sets what those set
iotrace_test_fs() {
	if [ "$1" = ext4 ]; then
		iotrace_quiet_ext4 256M "$2" "$3"
	else
		iotrace_shm_fs "$1" 512M "$2" "$3"
	fi
}

# --- for the root integration tests ------------------------------------------

# iotrace_test_harness [--list-failures]: the tests' report, one copy for
# all of them so their output stays alike and a harness reading it (ctest,
# a person) sees "ok:   NAME" / "FAIL: NAME" lines and a last line
# "N passed, M failed". Defines in the caller:
#   ok NAME, fail NAME      count and print one check
#   check NAME CMD...       ok or fail by CMD's exit status
#   note TEXT               an indented line that is no check
#   finish                  the totals, then exit 0, or 1 if any failed
#   die NAME                fail, then finish: for what makes going on useless
# --list-failures: finish also repeats the failed names ("failed: NAME"),
# for the long tests where they scroll away.
iotrace_test_harness() {
	# the test's python, its heredocs' too, imports helpers kept beside it (fsync_write.py)
	PYTHONPATH="$(dirname "$(realpath "$0")")${PYTHONPATH:+:$PYTHONPATH}"
	export PYTHONPATH
	PASS=0
	FAIL=0
	FAILED_NAMES=()
	_IOTRACE_LIST_FAILURES=0
	[ "${1:-}" = --list-failures ] && _IOTRACE_LIST_FAILURES=1
	ok() { echo "ok:   $*"; PASS=$((PASS + 1)); }
	fail() { echo "FAIL: $*"; FAIL=$((FAIL + 1)); FAILED_NAMES+=("$*"); }
	check() {
		local name=$1
		shift
		if "$@"; then ok "$name"; else fail "$name"; fi
	}
	note() { echo "      $*"; }
	finish() {
		echo
		echo "$PASS passed, $FAIL failed"
		if [ "$FAIL" -gt 0 ]; then
			[ "$_IOTRACE_LIST_FAILURES" = 1 ] && printf 'failed: %s\n' "${FAILED_NAMES[@]}"
			exit 1
		fi
		exit 0
	}
	die() {
		fail "$*"
		finish
	}
}

# iotrace_test_relay OUT RC CHECKER: counts the "ok: " and "FAIL: " lines a
# checker script (check_*.py) wrote to OUT as this test's own checks, shows
# its other lines as notes, and fails when it exited RC != 0 without a
# FAIL line (a crash must not pass). CHECKER names it in that failure.
iotrace_test_relay() {
	local out=$1 rc=$2 checker=$3 line
	while IFS= read -r line; do
		case $line in
		ok:*) ok "${line#ok: }" ;;
		FAIL:*) fail "${line#FAIL: }" ;;
		*) echo "      $line" ;;
		esac
	done <"$out"
	[ "$rc" = 0 ] || grep -q '^FAIL:' "$out" || fail "$checker exited $rc without a FAIL line"
}

# iotrace_require_root_bpf WHY [TOOL...]: the tests need root (WHY says
# for what) and a kernel with BTF, and every TOOL on PATH; a missing one
# is a failure (die, from iotrace_test_harness), never a skip, so that a
# machine that cannot run a test never reports it as passed. A detach
# helper an earlier test left is waited for: its programs would show in
# this test's checks.
iotrace_require_root_bpf() {
	local why=$1 tool
	shift
	[ "$(id -u)" = 0 ] || die "must run as root ($why)"
	[ -r /sys/kernel/btf/vmlinux ] || die "kernel has no BTF (/sys/kernel/btf/vmlinux)"
	for tool in "$@"; do
		command -v "$tool" >/dev/null || die "'$tool' is not installed"
	done
	iotrace_wait_detached || die "a detach helper (iotrace-detach) of an earlier tracer still runs after 30 s"
}

# iotrace_require_loop: loop devices, loading the module if needed; the
# test's file systems live on them (die as above).
iotrace_require_loop() {
	[ -e /dev/loop-control ] || modprobe loop 2>/dev/null
	[ -e /dev/loop-control ] || die "no loop device support (/dev/loop-control missing)"
}

# iotrace_require_cgroup2: sets CG2 to the cgroup v2 mount (the traced
# cgroup ids are v2 ids), or dies.
iotrace_require_cgroup2() {
	CG2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
	[ -n "$CG2" ] || die "no cgroup2 file system mounted (cgroup ids are cgroup v2 ids)"
}

# iotrace_cpus_of FILE: the CPUs of the kernel CPU list in FILE
# ("0-3,8,10-11"), one a line
iotrace_cpus_of() {
	awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) print c } }' "$1"
}

# iotrace_rings_of PID: the sizes (max_entries) of the BPF ring buffers
# (map type 27) among the file descriptors of process PID, sorted, one a
# line: the tracer's per-CPU buffers
iotrace_rings_of() {
	local f

	for f in /proc/"$1"/fdinfo/*; do
		awk '/^map_type:/ { t = $2 } /^max_entries:/ { m = $2 } END { if (t == 27) print m }' "$f"
	done 2>/dev/null | sort -n
}

# iotrace_has_delta_header FILE: whether FILE starts with the header of a
# compressed stream of delta records, version 2 (parser/delta.h)
iotrace_has_delta_header() {
	head -c 28 "$1" | cmp -s - <(printf '\x5e\x2a\x4d\x18\x14\0\0\0iotrace delta recs 2')
}

# iotrace_running_trace BIN: prints the tracePath of the RUNNING trace in
# the repository, from BIN -M -L (needs python3).
iotrace_running_trace() {
	"$1" -M -L 2>/dev/null | python3 -c '
import json, sys
try:
    traces = json.load(sys.stdin)["trace"]
except ValueError:
    traces = []  # no list (yet, or a binary that is no tracer)
for t in traces:
    if t["state"] == "RUNNING":
        print(t["tracePath"])'
}

# iotrace_wait_running BIN PID REPO: waits (10 s at most, while the tracer
# PID lives) until a trace in REPO is RUNNING, and sets TRACE in the caller
# to its path relative to REPO (empty if none). The first summary, which
# says RUNNING, is written once the BPF programs are attached: I/O done
# after it is traced. It then waits (5 s at most) for one rewrite of
# REPO/TRACE/octf.summary, which the collector's loop makes every second:
# the loop runs. Returns 0, 1 when no trace became RUNNING, or 2 when its
# summary was never rewritten. TRACE is set,
# not printed, so the caller needs no long command substitution (a signal
# landing in one upsets bash 5.2's traps).
iotrace_wait_running() {
	local bin=$1 pid=$2 repo=$3 ino0 ino
	TRACE=
	for _ in $(seq 200); do
		kill -0 "$pid" 2>/dev/null || break
		TRACE=$(iotrace_running_trace "$bin")
		[ -n "$TRACE" ] && break
		sleep 0.05
	done
	[ -n "$TRACE" ] || return 1
	ino0=$(stat -c %i "$repo/$TRACE/octf.summary")
	for _ in $(seq 100); do
		ino=$(stat -c %i "$repo/$TRACE/octf.summary" 2>/dev/null)
		[ -n "$ino" ] && [ "$ino" != "$ino0" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	return 2
}

# iotrace_bss NAME: the value of the BPF programs' global NAME (bpf/*.h,
# .bss) in the newest tracer's programs, as bpftool prints it; "" if none
iotrace_bss() {
	bpftool -j map show | python3 -c '
import json, subprocess, sys
ids = [m["id"] for m in json.load(sys.stdin) if m.get("name") == "iotrace.bss"]
if ids:
    dump = json.loads(subprocess.run(["bpftool", "-j", "map", "dump", "id", str(max(ids))],
                                     check=True, capture_output=True).stdout)
    print(next((x[sys.argv[1]] for x in dump[0]["formatted"]["value"][".bss"]
                if sys.argv[1] in x), ""))' "$1"
}

# iotrace_check_program BASE: a check (iotrace_test_harness) that the
# tracer loaded the variant of program BASE it should: BASE_cast where the
# kernel's BTF has bpf_rdonly_cast(), BASE with IOTRACE_PROBE_READS=1 or
# on older kernels (bpf/core_fixes.bpf.h). Needs bpftool.
iotrace_check_program() {
	local want=$1
	if [ "${IOTRACE_PROBE_READS:-}" != 1 ] &&
		bpftool btf dump file /sys/kernel/btf/vmlinux | grep -q "FUNC 'bpf_rdonly_cast'"; then
		want=${1}_cast
	fi
	check "program $want is the one loaded" bash -c "bpftool prog show | grep -qw 'name $want'"
}

# iotrace_check_uring_complete LABEL [_nowalk]: a check
# (iotrace_test_harness), while a tracer runs, that io_uring's completion
# has the program it should, and only that one: the classic tracepoint's
# with IOTRACE_URING_TRACEPOINT=1 (as kernels 5.19 to 6.12 have it), else
# the tp_btf one (uring.bpf.h); _nowalk: their twin without the path
# walk. Needs bpftool.
iotrace_check_uring_complete() {
	local want=handle_uring_complete not=handle_uring_complete_tp progs
	if [ "${IOTRACE_URING_TRACEPOINT:-}" = 1 ]; then
		want=handle_uring_complete_tp
		not=handle_uring_complete
	fi
	want=$want${2:-}
	progs=$(bpftool prog show | grep -oE "name handle_uring_complete[a-z_]*" | sort -u | tr '\n' ' ')
	check "${1}io_uring's completion program is $want, not $not ($progs)" \
		bash -c "grep -q 'name $want ' <<<'$progs' && ! grep -qE 'name $not(_nowalk)? ' <<<'$progs'"
}

# iotrace_kill_wait PID...: kills (SIGKILL) and reaps each of a test's
# workload processes; empty and gone PIDs are fine, so cleanup code can
# call it whatever state the test was left in.
iotrace_kill_wait() {
	local p
	for p in "$@"; do
		[ -n "$p" ] || continue
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	return 0
}

# iotrace_teardown_fs: unmounts MNT, detaches LOOP and removes IMG (as set
# by iotrace_quiet_ext4, each only if set) and clears them, so a cleanup
# trap can call it at any point of a setup, and a test can call it between
# two file systems.
iotrace_teardown_fs() {
	iotrace_undo_fs "$MNT" "$LOOP" "$IMG"
	MNT=
	LOOP=
	IMG=
}

# iotrace_undo_fs MNT LOOP IMG: unmounts and removes directory MNT,
# detaches LOOP, removes IMG; each only if not empty (a second file
# system of a test)
iotrace_undo_fs() {
	if [ -n "$1" ]; then
		mountpoint -q "$1" && umount "$1"
		rmdir "$1"
	fi
	[ -n "$2" ] && losetup -d "$2"
	[ -n "$3" ] && rm -f "$3"
}

# iotrace_test_remove_temp DIR [WHAT]: removes a test's temporary DIR at
# its end, or with IOTRACE_TEST_KEEP=1 keeps it for a post-mortem and says
# so ("kept DIR (WHAT)").
iotrace_test_remove_temp() {
	if [ "${IOTRACE_TEST_KEEP:-0}" = 1 ]; then
		echo "kept $1${2:+ ($2)}"
	else
		rm -rf "$1"
	fi
}

# iotrace_json_get FILE KEY [KEY...]: a value from a JSON document (the
# summary the tracer prints), "" if a key is missing
iotrace_json_get() {
	python3 - "$@" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)
EOF
}

# iotrace_birth_time FILE: FILE's birth time as the parser prints a
# creationDate ("2026-11-28T23:40:01.123456789Z"; stat's %w, TZ=UTC), "-"
# where the file system keeps none
iotrace_birth_time() {
	TZ=UTC stat -c %w "$1" | sed -E 's/^([0-9-]+) ([0-9:.]+) \+0000$/\1T\2Z/'
}

# iotrace_wait_said FILE TEXT: waits up to 10 s for the fixed string TEXT
# in FILE (a tracer's stderr); false if it never comes
iotrace_wait_said() {
	for _ in $(seq 100); do
		grep -qF "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

# iotrace_said_only FILE LINE: FILE (a tracer's stderr) holds one line,
# the fixed string LINE
iotrace_said_only() {
	[ "$(wc -l <"$1")" = 1 ] && grep -qxF -- "$2" "$1"
}

# iotrace_test_refused LABEL NAME LINE ARG...: (with iotrace_test_harness)
# runs "$BIN" ARG..., output to $T/NAME.out and .err, and checks that it
# exits 1 saying just LINE on stderr, which is shown
iotrace_test_refused() {
	local label=$1 name=$2 line=$3 rc
	shift 3

	"$BIN" "$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	check "${label}exit 1 (got $rc)" [ "$rc" = 1 ]
	check "${label}one line saying why" iotrace_said_only "$T/$name.err" "$line"
	[ -s "$T/$name.err" ] && sed 's/^/      stderr: /' "$T/$name.err"
}

# iotrace_test_start_tracer LABEL OUT ERR ARG...: (with iotrace_test_harness
# and a repository from iotrace_fs_test_start) starts "$BIN" ARG... in the
# background, output to OUT and ERR, its pid in TRACER_PID, and waits until
# its trace is RUNNING (iotrace_wait_running: sets TRACE); dies with the
# tracer's last words if it never is. A summary never rewritten is no
# failure of its own here.
iotrace_test_start_tracer() {
	local label=$1 out=$2 err=$3 last
	shift 3

	"$BIN" "$@" >"$out" 2>"$err" &
	TRACER_PID=$!
	iotrace_wait_running "$BIN" "$TRACER_PID" "$IOTRACE_TRACE_DIR"
	if [ -z "$TRACE" ]; then
		last=$(tail -3 "$err")
		die "${label}tracer did not reach RUNNING: $last"
	fi
}

# iotrace_record_pid FILE CMD...: runs CMD with its pid in FILE (the pid a
# trace shows for what CMD does)
iotrace_record_pid() {
	local pidfile=$1
	shift
	sh -c 'echo $$ >"$1"; shift; exec "$@"' _ "$pidfile" "$@"
}

# iotrace_test_stop_tracer LABEL OUT ERR: (with iotrace_test_harness) stops
# the tracer in TRACER_PID with SIGINT as Ctrl+C would, waits up to 30 s,
# and checks its exit status and that its summary (OUT) lost no events;
# ERR is shown when not empty. Then waits for the detach helper, so that
# what comes next sees no program of this tracer. Values go through variables, never
# "(... $(cmd))" in a message: bash 5.2 misparses that when a trap fires
# during the command substitution and skips the rest of the block.
iotrace_test_stop_tracer() {
	local label=$1 out=$2 err=$3 rc lost

	kill -INT "$TRACER_PID" 2>/dev/null
	iotrace_wait_exit "$TRACER_PID" 30 ||
		{ fail "${label}tracer still running 30 s after SIGINT"; kill -KILL "$TRACER_PID"; }
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=
	check "${label}tracer exit 0 (got $rc)" [ "$rc" = 0 ]
	[ -s "$err" ] && sed 's/^/      stderr: /' "$err" | head -5
	iotrace_wait_detached || fail "${label}a detach helper (iotrace-detach) still runs 30 s after the stop"
	lost=$(iotrace_json_get "$out" droppedEvents)
	check "${label}no events lost (droppedEvents '$lost')" [ "$lost" = 0 ]
}
