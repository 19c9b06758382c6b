#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: cgroups as a batch scheduler nests them, and a
# job whose cgroups are gone before its trace is read.
#
#   usage: tests/integration/cgroup_tree.sh PATH/TO/iotrace
#
# Under a cgroup of the test's, job/step_0/task_0 (as Slurm nests a job's
# tasks; the job's own cgroup holds none) and other, beside the job. An ext4 on a loop
# device is traced with --vfs --cgroup job while a writer in task_0 and
# one in other each write 256 KiB in 4 KiB direct writes. Then the
# cgroups are removed, and:
#   - the tracer's --cgroup took the job's subtree: task_0's writes are
#     in the trace as calls, other's are not (its block I/O is: block I/O
#     is never filtered by task);
#   - iotrace.cgroups names both cgroups by their paths;
#   - the parser's --cgroup job (a path, gone from the node) and the
#     job's id keep task_0's I/Os and calls, and no other's; --cgroup
#     job/step_0/task_0 the same; a path neither the trace nor the node
#     has is an error;
#   - --process-statistics names the cgroups by path (JSON, CSV, table),
#     and so do --io and --vfs (process.cgroupPath).
# Before that, a step whose cgroups are removed as soon as its writer
# exits, sooner than the collector reads its I/Os: iotrace.cgroups names
# the step and its job by the paths the kernel kept at their removal.
# First, a tracer without CAP_DAC_READ_SEARCH (it may not open a cgroup
# by its handle: a tracer given CAP_SYS_ADMIN alone) names the
# cgroups too, and its --cgroup job, told to go up the cgroups' parents as
# on a kernel before 5.14 (IOTRACE_NO_CGROUP_HELPER=1), takes the same
# calls.
#
# Needs root, BTF, loop devices, ext4, dd, python3 and a cgroup2 mount; a
# missing one is a failure, never a skip. Everything set up is torn down
# at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, cgroups, BPF" losetup mkfs.ext4 mount umount mountpoint \
	dd python3 findmnt setpriv
iotrace_require_cgroup2
iotrace_require_loop
iotrace_loop_test cgtree 64M
MNT=$T/mnt
BASE=$CG2/iotrace-cgtree-$$
JOB_REL=iotrace-cgtree-$$/job
JOB=$CG2/$JOB_REL
remove_cgroups() {
	local d
	for d in "$JOB/step_0/task_0" "$JOB/step_0" "$JOB" "$BASE/other" "$BASE/brief/step_0" \
		"$BASE/brief" "$BASE"; do
		[ -d "$d" ] && rmdir "$d"
	done
}
trap 'mountpoint -q "$MNT" && umount "$MNT"; remove_cgroups; iotrace_loop_test_cleanup' EXIT

mkdir -p "$JOB/step_0/task_0" "$BASE/other" || die "cannot make cgroups under $BASE"
job_id=$(stat -c %i "$JOB") && task_id=$(stat -c %i "$JOB/step_0/task_0") &&
	other_id=$(stat -c %i "$BASE/other") || die "cannot stat the cgroups"
note "cgroups: $JOB (id $job_id), step_0/task_0 (id $task_id), other (id $other_id)"
# write_in_cgroups LABEL SUFFIX COUNT: a writer in task_0 and one in other
# each enter their cgroup, then become dd, so that their calls and I/Os
# are the cgroup's: COUNT direct 4 KiB writes to $MNT/task_0SUFFIX and
# $MNT/otherSUFFIX
write_in_cgroups() {
	local w
	for w in task_0:job/step_0/task_0 other:other; do
		(echo "$BASHPID" >"$BASE/${w#*:}/cgroup.procs" &&
			exec dd if=/dev/zero of="$MNT/${w%%:*}$2" bs=4k count="$3" oflag=direct status=none) ||
			fail "${1}the writer in ${w#*:} failed"
	done
}
mkfs.ext4 -q -F "$LOOP" >"$T/mkfs.log" 2>&1 || die "mkfs.ext4 failed: $(cat "$T/mkfs.log")"
mkdir "$MNT" && mount -o noatime "$LOOP" "$MNT" || die "cannot mount $LOOP"

# --- 0: no CAP_DAC_READ_SEARCH: the cgroup found by a walk of the tree;
# --cgroup by the cgroups' parents ---
IOTRACE_NO_CGROUP_HELPER=1 setpriv --bounding-set -dac_read_search "$BIN" -S -d "$DEV" --vfs \
	--cgroup "$JOB_REL" >"$T/out0" 2>"$T/err0" &
TRACER_PID=$!
iotrace_wait_running "$BIN" "$TRACER_PID" "$IOTRACE_TRACE_DIR"
[ -n "$TRACE" ] || die "0: the tracer without CAP_DAC_READ_SEARCH did not reach RUNNING: $(tail -3 "$T/err0")"
write_in_cgroups "0: " .0 16
iotrace_test_stop_tracer "0: " "$T/out0" "$T/err0"
check "0: without CAP_DAC_READ_SEARCH, iotrace.cgroups names task_0" \
	grep -qxF -e "$task_id	/$JOB_REL/step_0/task_0" "$IOTRACE_TRACE_DIR/$TRACE/iotrace.cgroups"
check "0: ... and the job above it" \
	grep -qxF -e "$job_id	/$JOB_REL" "$IOTRACE_TRACE_DIR/$TRACE/iotrace.cgroups"
"$BIN" -P --vfs -f csv -p "$IOTRACE_TRACE_DIR/$TRACE" >"$T/calls0.csv" 2>"$T/parse0.err" ||
	fail "0: --vfs failed: $(cat "$T/parse0.err")"
python3 - "$T/calls0.csv" "$task_id" "$other_id" >"$T/check0.out" <<'EOF'
import csv, sys

calls = list(csv.DictReader(open(sys.argv[1])))
task, other = sys.argv[2:4]
written = sum(int(r["vfs.size"]) for r in calls
              if r["vfs.call"] == "write" and r["process.cgroup"] == task)
print(("ok: " if written == 16 * 4096 else "FAIL: ")
      + "0: --cgroup job by the cgroups' parents took task_0's 16 writes (%d bytes)" % written)
print(("ok: " if not [r for r in calls if r["process.cgroup"] == other] else "FAIL: ")
      + "0: and no call of other")
EOF
iotrace_test_relay "$T/check0.out" $? "the part 0 check"

# --- brief: a step whose cgroups are removed as soon as its task exits,
# before the collector's next round reads its I/Os: named by the paths
# the kernel kept at their removal ---
mkdir -p "$BASE/brief/step_0" || die "cannot make $BASE/brief/step_0"
brief_id=$(stat -c %i "$BASE/brief/step_0") && brief_job_id=$(stat -c %i "$BASE/brief") ||
	die "cannot stat the brief cgroups"
iotrace_test_start_tracer "brief: " "$T/out_b" "$T/err_b" -S -d "$DEV"
(echo "$BASHPID" >"$BASE/brief/step_0/cgroup.procs" &&
	exec dd if=/dev/zero of="$MNT/brief" bs=4k count=8 oflag=direct status=none) ||
	fail "brief: the writer in brief/step_0 failed"
rmdir "$BASE/brief/step_0" "$BASE/brief" || fail "brief: cannot remove the brief cgroups"
iotrace_test_stop_tracer "brief: " "$T/out_b" "$T/err_b"
check "brief: iotrace.cgroups names the step removed before its I/Os were read" \
	grep -qxF -e "$brief_id	/${BASE#"$CG2"/}/brief/step_0" "$IOTRACE_TRACE_DIR/$TRACE/iotrace.cgroups"
check "brief: ... and its job, removed after it" \
	grep -qxF -e "$brief_job_id	/${BASE#"$CG2"/}/brief" "$IOTRACE_TRACE_DIR/$TRACE/iotrace.cgroups"

# --- 1: the tracer's --cgroup, the cgroups gone ---
iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$DEV" --vfs --cgroup "$JOB_REL"
write_in_cgroups "" .dat 64
iotrace_test_stop_tracer "" "$T/out" "$T/err"
umount "$MNT"
remove_cgroups
[ -d "$BASE" ] && die "cannot remove the cgroups under $BASE"
trace=$IOTRACE_TRACE_DIR/$TRACE

# --- the trace: the tracer's --cgroup, iotrace.cgroups ---
names=$trace/iotrace.cgroups
check "iotrace.cgroups is in the trace" [ -s "$names" ]
check "it names task_0 by its path" grep -qxF "$task_id	/$JOB_REL/step_0/task_0" "$names"
check "it names other by its path" grep -qxF "$other_id	/${BASE#"$CG2"/}/other" "$names"
"$BIN" -P --io -f csv -p "$trace" >"$T/all.csv" 2>"$T/parse.err" ||
	fail "the parser failed: $(cat "$T/parse.err")"
"$BIN" -P --vfs -f csv -p "$trace" >"$T/calls.csv" 2>>"$T/parse.err" ||
	fail "--vfs failed: $(cat "$T/parse.err")"
"$BIN" -P --io -p "$trace" >"$T/all.json" 2>>"$T/parse.err" ||
	fail "--io (JSON) failed: $(cat "$T/parse.err")"
python3 - "$T/all.csv" "$T/calls.csv" "$task_id" "$other_id" "/$JOB_REL/step_0/task_0" \
	"$T/all.json" >"$T/check.out" <<'EOF'
import csv, json, sys

ios = list(csv.DictReader(open(sys.argv[1])))
calls = list(csv.DictReader(open(sys.argv[2])))
task, other, task_path = sys.argv[3:6]
records = [json.loads(line) for line in open(sys.argv[6])]


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


def written(rows, cg, size_col):
    return sum(int(r[size_col]) for r in rows if r["process.cgroup"] == cg)


for name, rows in (("--io", ios), ("--vfs", calls)):
    mine = [r for r in rows if r["process.cgroup"] == task]
    say(mine and all(r["process.cgroupPath"] == task_path for r in mine),
        "%s CSV: process.cgroupPath on task_0's %d records" % (name, len(mine)))
procs = [r["process"] for r in records if r.get("process", {}).get("cgroup") == task]
say(procs and all(p.get("cgroupPath") == task_path for p in procs),
    "--io JSON: process.cgroupPath on task_0's %d I/Os" % len(procs))
writes = [r for r in calls if r["vfs.call"] == "write"]
ios = [r for r in ios if r["io.operation"] == "Write"]
say(written(writes, task, "vfs.size") == 256 << 10,
    "the tracer's --cgroup job took its task_0's 64 writes (%d bytes)"
    % written(writes, task, "vfs.size"))
say(not [r for r in calls if r["process.cgroup"] == other],
    "and no call of other, outside the job")
say(written(ios, task, "io.len") == 512 and written(ios, other, "io.len") == 512,
    "both writers' block writes are in the trace: 256 KiB each (%d, %d sectors)"
    % (written(ios, task, "io.len"), written(ios, other, "io.len")))
EOF
iotrace_test_relay "$T/check.out" $? "the trace check"

# --- the parser's --cgroup, the cgroups gone ---
for f in job:"$JOB_REL" job_abs:"$CG2/$JOB_REL/" job_id:"$job_id" task:"/$JOB_REL/step_0/task_0" \
	other:"${BASE#"$CG2"/}/other"; do
	"$BIN" -P --io -f csv --cgroup "${f#*:}" -p "$trace" >"$T/${f%%:*}.csv" 2>"$T/${f%%:*}.err" ||
		fail "--cgroup ${f#*:} failed: $(cat "$T/${f%%:*}.err")"
	"$BIN" -P --vfs -f csv --cgroup "${f#*:}" -p "$trace" >"$T/${f%%:*}.calls" 2>>"$T/${f%%:*}.err" ||
		fail "--vfs --cgroup ${f#*:} failed: $(cat "$T/${f%%:*}.err")"
done
python3 - "$T" "$task_id" "$other_id" >"$T/check2.out" <<'EOF'
import csv, sys

t, task, other = sys.argv[1:4]


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


def rows(name, ext):
    return list(csv.DictReader(open("%s/%s.%s" % (t, name, ext))))


every = {"csv": rows("all", "csv"), "calls": rows("calls", "csv")}
for name, cg, what in (("job", task, "the job's path"), ("job_abs", task, "its absolute path"),
                       ("job_id", task, "the job's id"), ("task", task, "task_0's path"),
                       ("other", other, "other's path")):
    for ext, kind in (("csv", "I/Os"), ("calls", "calls")):
        want = [r for r in every[ext] if r["process.cgroup"] == cg]
        got = rows(name, ext)
        say(got == want and (want or kind == "calls"),
            "--cgroup %s keeps that cgroup's %s, and only they (%d of %d)"
            % (what, kind, len(got), len(every[ext])))
EOF
iotrace_test_relay "$T/check2.out" $? "the --cgroup check"
"$BIN" -P --io --cgroup "$JOB_REL/step_9" -p "$trace" >"$T/bad.out" 2>"$T/bad.err"
rc=$?
check "--cgroup of a cgroup neither the trace nor the node has: exit 2 (got $rc)" [ "$rc" = 2 ]
check "--cgroup of a cgroup neither has: one line saying so" \
	iotrace_said_only "$T/bad.err" \
	"iotrace: --cgroup $JOB_REL/step_9: the trace has no task in cgroup /$JOB_REL/step_9 or below it"
sed 's/^/      stderr: /' "$T/bad.err"

# --- --process-statistics names the cgroups ---
"$BIN" -P --process-statistics -p "$trace" >"$T/procs.json" 2>"$T/procs.err" ||
	fail "--process-statistics failed: $(cat "$T/procs.err")"
"$BIN" -P --process-statistics -f csv -p "$trace" >"$T/procs.csv" 2>>"$T/procs.err" ||
	fail "--process-statistics -f csv failed: $(cat "$T/procs.err")"
"$BIN" -P --process-statistics -f table -p "$trace" >"$T/procs.txt" 2>>"$T/procs.err" ||
	fail "--process-statistics -f table failed: $(cat "$T/procs.err")"
# the job's level: iotrace-cgtree-PID/job
"$BIN" -P --process-statistics -f csv --cgroup-depth 2 -p "$trace" >"$T/jobs.csv" 2>>"$T/procs.err" ||
	fail "--process-statistics --cgroup-depth 2 failed: $(cat "$T/procs.err")"
python3 - "$T" "$task_id" "/$JOB_REL/step_0/task_0" "$job_id" "/$JOB_REL" >"$T/check3.out" <<'EOF'
import csv, json, sys

t, task, path, job, job_path = sys.argv[1:6]


def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)


doc = json.load(open(t + "/procs.json"))
cg = [c for c in doc["cgroups"] if c["cgroup"] == task]
say(len(cg) == 1 and cg[0].get("cgroupPath") == path,
    "JSON: the cgroup row of task_0 has its path (%s)" % [c.get("cgroupPath") for c in cg])
pr = [p for p in doc["processes"] if p.get("cgroup") == task]
say(pr and all(p.get("cgroupPath") == path for p in pr),
    "JSON: so does the row of its process (%s)" % [p.get("cgroupPath") for p in pr])
rows = [r for r in csv.DictReader(open(t + "/procs.csv")) if r["process.cgroup"] == task]
say(rows and all(r["process.cgroupPath"] == path for r in rows),
    "CSV: process.cgroupPath on task_0's rows (%d)" % len(rows))
table = open(t + "/procs.txt").read()
say(path in table, "table: the path where the id would be")
every = list(csv.DictReader(open(t + "/procs.csv")))
jobs = list(csv.DictReader(open(t + "/jobs.csv")))


def cgroup_rows(rows, cg):
    return {(r["layer"], r["operation"]): (r["count"], r["bytes"]) for r in rows
            if r["group"] == "cgroup" and r["process.cgroup"] == cg}


say(cgroup_rows(jobs, job) == cgroup_rows(every, task) and cgroup_rows(jobs, job)
    and all(r["process.cgroupPath"] == job_path for r in jobs if r["process.cgroup"] == job)
    and not cgroup_rows(jobs, task),
    "--cgroup-depth 2: task_0's I/Os and calls count for the job, named by its path (%s)"
    % sorted(cgroup_rows(jobs, job).items()))
EOF
iotrace_test_relay "$T/check3.out" $? "the --process-statistics check"

finish
