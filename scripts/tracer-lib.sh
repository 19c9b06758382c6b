# SPDX-License-Identifier: BSD-3-Clause
# Shell helpers shared by the demo and the shell tests: source this file.

# iotrace_stop PID: ask the tracer to finish (SIGINT: it writes its final
# summary), give it 5 s, then kill it. Safe to call for a PID that is gone.
iotrace_stop() {
	local pid=$1

	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
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

# iotrace_quiet_ext4 SIZE TAG WORKDIR: an ext4 file system on a loop device
# backed by /dev/shm, quiet enough that /sys/block stat deltas can be
# compared with a trace exactly. Sets IMG, LOOP, LN (loopN), MAJ, MIN, DEVT
# (kernel dev_t encoding) and MNT in the caller, as soon as each exists, so
# the caller's cleanup can tear down a half-done setup. On failure returns
# 1 with the reason in SETUP_ERR.
iotrace_quiet_ext4() {
	local size=$1 tag=$2 work=$3

	IMG=$(mktemp "/dev/shm/iotrace-$tag.XXXXXX.img")
	truncate -s "$size" "$IMG"
	LOOP=$(losetup -f --show "$IMG") || { LOOP=; SETUP_ERR="losetup cannot attach a loop device"; return 1; }
	LN=${LOOP#/dev/}
	IFS=: read -r MAJ MIN <"/sys/block/$LN/dev"
	DEVT=$(( (MAJ << 20) | MIN ))
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
