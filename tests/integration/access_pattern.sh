#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: --access-pattern on workloads whose pattern is
# known, each under a name of its own so that its process row is its own.
#
#   usage: tests/integration/access_pattern.sh PATH/TO/iotrace
#
# A raw loop device, traced while
#   - seqw writes 4 MiB in 64 KiB direct writes from LBA 0: every write
#     but the first continues the stream, none is unaligned;
#   - tinyw writes 64 single sectors from LBA 16385, direct: sequential
#     as seqw, and every one unaligned (512 bytes, at an odd sector);
#   - fio reads 4 KiB at 512 random places of 32 MiB, direct: hardly any
#     sequential (a read lands where one of the last 32 ended by chance
#     about once in 250), none unaligned.
# The device's row adds up the three; --statistics counts the same I/Os.
# Then an ext4 on the device, traced with --vfs while
#   - tinyw appends 64 writes of 100 bytes to a file: its calls are
#     sequential but the first, and every one unaligned;
#   - python3 writes 4 KiB at 32 places 8 KiB apart, shuffled: no call
#     sequential, none unaligned.
#
# The parser's --cgroup (tinyw runs in a cgroup of its own there),
# --min-latency and --device on that trace keep what the unfiltered calls
# say they should.
#
# Needs root, BTF, loop devices, ext4, dd, fio and python3; a missing one
# is a failure, never a skip. Everything set up is torn down at exit, also
# on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.ext4 mount umount mountpoint dd fio python3
iotrace_require_loop
iotrace_loop_test pattern 64M
MNT=$T/mnt
# the ext4 of part 2 goes before the device
# tinyw's cgroup of part 2 goes once tinyw is gone
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)/iotrace-pattern-$$
trap 'mountpoint -q "$MNT" && umount "$MNT"; [ -d "$CG" ] && rmdir "$CG"; iotrace_loop_test_cleanup' EXIT
udevadm settle 2>/dev/null
cp "$(command -v dd)" "$T/seqw" && cp "$(command -v dd)" "$T/tinyw" || die "cannot copy dd"

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$DEV"
"$T/seqw" if=/dev/zero of="$LOOP" bs=64k count=64 oflag=direct status=none || fail "seqw failed"
"$T/tinyw" if=/dev/zero of="$LOOP" bs=512 count=64 seek=16385 oflag=direct status=none ||
	fail "tinyw failed"
fio --name=randr --filename="$LOOP" --rw=randread --bs=4k --direct=1 --size=32M --io_size=2M \
	--randseed=42 --norandommap --ioengine=psync --output=/dev/null || fail "fio failed"
iotrace_test_stop_tracer "" "$T/out" "$T/err"

trace=$IOTRACE_TRACE_DIR/$TRACE
"$BIN" -P --access-pattern -f csv -p "$trace" >"$T/pattern.csv" 2>"$T/parse.err" ||
	fail "the parser failed: $(cat "$T/parse.err")"
"$BIN" -P --statistics -p "$trace" >"$T/stats.json" 2>>"$T/parse.err" ||
	fail "--statistics failed: $(cat "$T/parse.err")"
python3 - "$T/pattern.csv" "$T/stats.json" >"$T/check.out" <<'EOF'
import csv, json, sys

rows = list(csv.DictReader(open(sys.argv[1])))


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


def row(group, op, comm=None):
    for r in rows:
        if r["group"] == group and r["layer"] == "block" and r["operation"] == op \
                and (comm is None or r["process.comm"] == comm):
            return {k: int(r[k]) for k in ("count", "bytes", "sequential", "runs", "unaligned")}
    return None


seqw, tinyw, randr = row("process", "write", "seqw"), row("process", "write", "tinyw"), \
    row("process", "read", "fio")
say(seqw is not None and seqw["bytes"] == 4 << 20 and seqw["sequential"] == seqw["count"] - 1
    and seqw["runs"] == 1 and seqw["unaligned"] == 0,
    "seqw: 4 MiB in one run, all aligned (%s)" % seqw)
say(tinyw is not None and tinyw["count"] == 64 and tinyw["sequential"] == 63
    and tinyw["unaligned"] == 64,
    "tinyw: 64 writes in one run, every one unaligned (%s)" % tinyw)
say(randr is not None and randr["count"] == 512 and randr["sequential"] < 20
    and randr["unaligned"] == 0,
    "fio's random reads: 512, under 20 sequential, none unaligned (%s)" % randr)
stats = {}
for dev in json.load(open(sys.argv[2]))["statistics"]:
    for op in ("read", "write"):
        stats[op] = stats.get(op, 0) + int(dev[op]["count"])
for op in ("read", "write"):
    d = row("device", op)
    procs, cgroups = ([r for r in rows if r["group"] == g and r["layer"] == "block"
                       and r["operation"] == op] for g in ("process", "cgroup"))
    say(d is not None and d["count"] == stats[op]
        and sum(int(r["count"]) for r in procs) == d["count"]
        and sum(int(r["sequential"]) for r in procs) == d["sequential"]
        and sum(int(r["count"]) for r in cgroups) == d["count"],
        "%ss: the device's row is --statistics' count, the processes' sum and the cgroups' (%s, %s)"
        % (op, d, stats[op]))
EOF
iotrace_test_relay "$T/check.out" $? "the pattern check"
[ -s "$T/parse.err" ] && sed 's/^/      stderr: /' "$T/parse.err"

# --- 2: the calls, on an ext4 ---
mkfs.ext4 -q -F "$LOOP" >"$T/mkfs.log" 2>&1 || die "mkfs.ext4 failed: $(cat "$T/mkfs.log")"
mkdir "$MNT" && mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"
iotrace_test_start_tracer "2: " "$T/out2" "$T/err2" -S -d "$DEV" --vfs
mkdir "$CG" || die "cannot make cgroup $CG"
# in a cgroup of its own, for part 3's --cgroup
(echo "$BASHPID" >"$CG/cgroup.procs" &&
	exec "$T/tinyw" if=/dev/zero of="$MNT/tiny" bs=100 count=64 status=none) || fail "2: tinyw failed"
python3 - "$MNT/spread" <<'EOF' || fail "2: the spread writes failed"
import os, random, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
places = list(range(32))
random.Random(7).shuffle(places)
for k in places:
    os.pwrite(fd, b"x" * 4096, 8192 * k)
os.close(fd)
EOF
iotrace_test_stop_tracer "2: " "$T/out2" "$T/err2"
"$BIN" -P --access-pattern -f csv -p "$IOTRACE_TRACE_DIR/$TRACE" >"$T/pattern2.csv" 2>"$T/parse.err" ||
	fail "2: the parser failed: $(cat "$T/parse.err")"
python3 - "$T/pattern2.csv" >"$T/check2.out" <<'EOF'
import csv, sys

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["layer"] == "vfs" and r["operation"] == "write"]


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


def counts(group, col, value):
    r = next((r for r in rows if r["group"] == group and r[col] == value), None)
    return r and {k: int(r[k]) for k in ("count", "bytes", "sequential", "unaligned")}


tiny, spread = counts("process", "process.comm", "tinyw"), counts("process", "process.comm", "python3")
say(tiny == {"count": 64, "bytes": 6400, "sequential": 63, "unaligned": 64},
    "2: tinyw's 100-byte writes: sequential but the first, every one unaligned (%s)" % tiny)
say(spread == {"count": 32, "bytes": 32 * 4096, "sequential": 0, "unaligned": 0},
    "2: the spread 4 KiB writes: none sequential, none unaligned (%s)" % spread)
say(tiny is not None and counts("file", "file.path", "/tiny") == tiny and
    counts("file", "file.path", "/spread") == spread,
    "2: each file's row is its one writer's")
EOF
iotrace_test_relay "$T/check2.out" $? "the calls' pattern check"

# the parser's filters on this trace keep what the unfiltered records say
# they should: --cgroup (tinyw's, as a directory relative to the cgroup2
# mount and as the id the records carry), --min-latency, --device
tr2=$IOTRACE_TRACE_DIR/$TRACE
cg_id=$(stat -c %i "$CG") || fail "3: cannot stat cgroup $CG"
"$BIN" -P --vfs -f csv -p "$tr2" >"$T/vfs-all.csv" 2>"$T/parse.err" ||
	fail "3: --vfs failed: $(cat "$T/parse.err")"
# the calls' median duration: half are at least that, whatever the machine's speed
median=$(python3 -c 'import csv, sys
d = sorted(int(r["vfs.duration"]) for r in csv.DictReader(open(sys.argv[1])))
print(d[len(d) // 2] if d else 1)' "$T/vfs-all.csv")
for f in cgroup:--cgroup:"${CG##*/}" cgroup_id:--cgroup:"$cg_id" slow:--min-latency:"${median}ns" \
	dev:--device:/dev/"$DEV"; do
	IFS=: read -r name opt val <<<"$f"
	"$BIN" -P --vfs -f csv -p "$tr2" "$opt" "$val" >"$T/vfs-$name.csv" 2>"$T/parse.err" ||
		fail "3: --vfs $opt $val failed: $(cat "$T/parse.err")"
done
python3 - "$T" "$cg_id" "$median" >"$T/check3.out" <<'EOF'
import csv, sys

d, cg_id, median = sys.argv[1], sys.argv[2], int(sys.argv[3])


def rows(name):
    return list(csv.DictReader(open("%s/vfs-%s.csv" % (d, name))))


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


every = rows("all")
mine = [r for r in every if r["process.cgroup"] == cg_id]
say(len(mine) >= 64 and {r["process.comm"] for r in mine} == {"tinyw"}
    and len(mine) == sum(r["process.comm"] == "tinyw" for r in every),
    "3: tinyw's calls, and only they, name its cgroup (%d)" % len(mine))
say(rows("cgroup") == mine and rows("cgroup_id") == mine,
    "3: --cgroup as a directory and as an id keeps the calls of that cgroup (%d of %d)"
    % (len(mine), len(every)))
slow = [r for r in every if int(r["vfs.duration"]) >= median]
say(0 < len(slow) < len(every) and rows("slow") == slow,
    "3: --min-latency %dns keeps the %d calls of that or more of %d" % (median, len(slow), len(every)))
say(rows("dev") == every, "3: --device keeps every call on the traced device")
EOF
iotrace_test_relay "$T/check3.out" $? "the filters' check"
"$BIN" -P --vfs -p "$tr2" --device sdzz >/dev/null 2>"$T/parse.err"
rc=$?
refused=$([ $rc -eq 2 ] && grep -c "^iotrace: --device sdzz: the trace has no such device (it has .*$DEV" "$T/parse.err")
check "3: a device the trace does not have is refused (exit $rc: $(cat "$T/parse.err"))" \
	[ "$refused" = 1 ]

finish
