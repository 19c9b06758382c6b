#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_trace.py's verdict on a trace that lacks a completion.

The root tests trust check_trace.py to fail a trace that lost a completion
and to pass one whose missing completion the kernel ran in PID 1's context
(kernel_completions.py). Here both sides, on hand-built traces and ftrace
records in the format the kernel prints, without root.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DEV = (7 << 20) | 0
BASE_NS = 82891_423000_000


def header(sid, ns):
    return {"sid": str(sid), "timestamp": str(ns)}


def io(sid, ns, iid, lba, length=8, op="Read", flush=False):
    return {"header": header(sid, ns),
            "io": {"id": str(iid), "lba": str(lba), "len": length, "deviceId": str(DEV),
                   "operation": op, "flush": flush, "partitionId": "0", "pid": 3210,
                   "comm": "fio"}}


def done(sid, ns, iid, lba, length=8):
    return {"header": header(sid, ns),
            "ioCompletion": {"refId": str(iid), "lba": str(lba), "len": length, "deviceId": str(DEV),
                             "status": 0, "error": False}}


def split(sid, ns, cid, parent, lba, length):
    return {"header": header(sid, ns),
            "ioSplit": {"id": str(cid), "parentId": str(parent), "lba": str(lba), "len": length,
                        "deviceId": str(DEV)}}


def device():
    return {"header": header(1, BASE_NS), "deviceDescription": {"id": str(DEV), "name": "loop0",
                                                                "size": "524288"}}


def ftrace_line(comm, tid, tgid, ns, sector, nr):
    sec, rest = divmod(ns // 1000, 1000000)
    return ("%16s-%-7d (%7s) [000] ..s1. %d.%06d: block_rq_complete: 7,0 RA () %d + %d be,0,4 [0]\n"
            % (comm, tid, tgid, sec, rest, sector, nr))


def trace_missing_one():
    """Three reads; the first one's completion is missing: its id (100) is
    used again by the third."""
    events = [device(),
              io(2, BASE_NS + 1000, 100, 291864),
              io(3, BASE_NS + 2000, 200, 4096),
              done(4, BASE_NS + 40000, 200, 4096),
              io(5, BASE_NS + 900000, 100, 8192),
              done(6, BASE_NS + 950000, 100, 8192)]
    return "".join(json.dumps(e) + "\n" for e in events)


class CheckTraceMissingCompletion(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.events = os.path.join(self.dir.name, "events.jsonl")
        with open(self.events, "w") as f:
            f.write(trace_missing_one())

    def tearDown(self):
        self.dir.cleanup()

    def run_checker(self, kernel_lines=None):
        args = [sys.executable, os.path.join(HERE, "check_trace.py"), self.events,
                "--dev", str(DEV), "--name", "loop0"]
        if kernel_lines is not None:
            path = os.path.join(self.dir.name, "kernel")
            with open(path, "w") as f:
                f.write("# tracer: nop\n#\n")
                f.writelines(kernel_lines)
            args += ["--kernel-completions", path]
        r = subprocess.run(args, capture_output=True, text=True)
        fails = [l for l in r.stdout.splitlines() if l.startswith("FAIL:")]
        return r.returncode, fails, r.stdout

    def test_without_the_kernel_record_a_missing_completion_fails(self):
        rc, fails, out = self.run_checker()
        self.assertEqual(rc, 1, out)
        self.assertTrue(any("submitted twice" in l for l in fails), out)

    def test_completed_in_pid_1_context_passes(self):
        lines = [ftrace_line("fio", 3210, "3210", BASE_NS + 40000, 4096, 8),
                 ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, 291864, 8)]
        rc, fails, out = self.run_checker(lines)
        self.assertEqual((rc, fails), (0, []), out)
        self.assertIn("completions missing: 1 of 3 I/Os", out)
        self.assertIn("of which in PID 1's context: 1", out)

    def test_a_request_covering_the_io_explains_it(self):
        # merged into a request that starts 8 sectors earlier
        lines = [ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, 291856, 16)]
        rc, fails, out = self.run_checker(lines)
        self.assertEqual((rc, fails), (0, []), out)

    def test_a_split_parents_rest_explains_it(self):
        # io 100 (291864+8) had its first 4 KiB split off as child 300,
        # which completed; the kernel ended the parent's rest in PID 1's context
        with open(self.events, "w") as f:
            for e in [device(),
                      io(2, BASE_NS + 1000, 100, 291864, 16),
                      split(3, BASE_NS + 1500, 300, 100, 291864, 8),
                      io(4, BASE_NS + 2000, 200, 4096),
                      done(5, BASE_NS + 30000, 300, 291864, 8),
                      done(6, BASE_NS + 40000, 200, 4096),
                      io(7, BASE_NS + 900000, 100, 8192),
                      done(8, BASE_NS + 950000, 100, 8192)]:
                f.write(json.dumps(e) + "\n")
        rest = ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, 291872, 8)
        rc, fails, out = self.run_checker([rest])
        self.assertEqual((rc, fails), (0, []), out)
        # a request that holds the rest and more (merged) explains it too
        rc, fails, out = self.run_checker(
            [ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, 291876, 8)])
        self.assertEqual((rc, fails), (0, []), out)
        # not the front of it, nor a piece short of its end, nor what follows it
        for sector, nr in ((291864, 8), (291872, 4), (291880, 8)):
            with self.subTest(sector=sector, nr=nr):
                rc, fails, out = self.run_checker(
                    [ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, sector, nr)])
                self.assertEqual(rc, 1, out)

    def test_the_end_of_an_io_that_was_not_split_does_not_explain_it(self):
        rest = ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, 291868, 4)
        rc, fails, out = self.run_checker([rest])
        self.assertEqual(rc, 1, out)

    def test_completed_in_another_context_fails(self):
        lines = [ftrace_line("kworker/0:1", 88, "88", BASE_NS + 50000, 291864, 8)]
        rc, fails, out = self.run_checker(lines)
        self.assertEqual(rc, 1, out)
        self.assertTrue(any("PID 1's context" in l and "io id 100" in l for l in fails), out)

    def test_other_sectors_or_times_do_not_explain_it(self):
        for sector, ns in ((291872, BASE_NS + 50000),      # the next 4 KiB
                           (291864, BASE_NS - 5000000),    # before the submission
                           (291864, BASE_NS + 990000)):    # after the id's reuse
            with self.subTest(sector=sector, ns=ns):
                rc, fails, out = self.run_checker(
                    [ftrace_line("tokio-rt-worker", 75, "1", ns, sector, 8)])
                self.assertEqual(rc, 1, out)

    def test_an_empty_flush_is_explained_by_a_flush_request(self):
        with open(self.events, "a") as f:
            f.write(json.dumps(io(7, BASE_NS + 960000, 400, 0, 0)) + "\n")
            f.write(json.dumps(io(8, BASE_NS + 980000, 400, 0, 0)) + "\n")
            f.write(json.dumps(done(9, BASE_NS + 990000, 400, 0, 0)) + "\n")
        pid1 = ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, 291864, 8)
        rc, fails, out = self.run_checker([pid1])
        self.assertEqual(rc, 1, out)
        self.assertTrue(any("io id 400" in l for l in fails), out)
        flush = ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 970000, 2 ** 64 - 1, 0)
        rc, fails, out = self.run_checker([pid1, flush])
        self.assertEqual((rc, fails), (0, []), out)
        data = ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 970000, 0, 8)
        rc, fails, out = self.run_checker([pid1, data])
        self.assertEqual(rc, 1, out)

    def test_never_completed_at_the_end(self):
        with open(self.events, "a") as f:
            f.write(json.dumps(io(7, BASE_NS + 960000, 300, 65536)) + "\n")
        pid1 = ftrace_line("tokio-rt-worker", 75, "1", BASE_NS + 50000, 291864, 8)
        rc, fails, out = self.run_checker([pid1])
        self.assertEqual(rc, 1, out)
        self.assertTrue(any("io 300" in l for l in fails), out)
        late = ftrace_line("tokio-rt-worker", 76, "1", BASE_NS + 970000, 65536, 8)
        rc, fails, out = self.run_checker([pid1, late])
        self.assertEqual((rc, fails), (0, []), out)

    def test_an_unreadable_record_fails(self):
        rc, fails, out = self.run_checker(["this is not an ftrace event\n"])
        self.assertEqual(rc, 1, out)
        self.assertTrue(any("completion record" in l for l in fails), out)


class CheckTraceCompletionRange(unittest.TestCase):
    """A completion reports the range the kernel completed: its I/O's, the
    rest of a split parent, or a preflush write's LBA with length 0."""

    def run_checker(self, completion, submissions=None, extra=()):
        events = [device()] + (submissions or [io(2, BASE_NS + 1000, 100, 4096, 16)]) + [
            completion]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "events.jsonl")
            with open(path, "w") as f:
                f.writelines(json.dumps(e) + "\n" for e in events)
            r = subprocess.run([sys.executable, os.path.join(HERE, "check_trace.py"), path,
                                "--dev", str(DEV), "--name", "loop0"] + list(extra),
                               capture_output=True, text=True)
        return r.returncode, r.stdout

    def test_the_ios_range_passes(self):
        rc, out = self.run_checker(done(3, BASE_NS + 5000, 100, 4096, 16))
        self.assertEqual(rc, 0, out)
        self.assertIn("completion ranges: the I/O's 1", out)

    def test_another_range_fails(self):
        for lba, length in ((4096, 8), (4104, 8), (0, 0), (4096, 0)):
            with self.subTest(lba=lba, length=length):
                rc, out = self.run_checker(done(3, BASE_NS + 5000, 100, lba, length))
                self.assertEqual(rc, 1, out)
                self.assertIn("FAIL: every ioCompletion has its I/O's range", out)
                self.assertIn("%d+%d, its I/O 4096+16" % (lba, length), out)

    def test_a_truncated_trace_measures_them(self):
        # a cut stream may have lost the latest io of the id
        rc, out = self.run_checker(done(3, BASE_NS + 5000, 100, 8192, 16), extra=["--truncated"])
        self.assertEqual(rc, 0, out)
        self.assertIn("ranges not checked (truncated trace): 1 completions", out)

    def test_a_split_parent_completes_its_rest(self):
        subs = [io(2, BASE_NS + 1000, 100, 4096, 16), split(3, BASE_NS + 1100, 101, 100, 4096, 8),
                done(4, BASE_NS + 4000, 101, 4096, 8)]
        rc, out = self.run_checker(done(5, BASE_NS + 5000, 100, 4104, 8), subs)
        self.assertEqual(rc, 0, out)
        self.assertIn("a split parent's rest 1", out)
        # the front part is the child's, not the parent's
        rc, out = self.run_checker(done(5, BASE_NS + 5000, 100, 4096, 8), subs)
        self.assertEqual(rc, 1, out)

    def test_a_preflush_write_completes_with_length_0(self):
        subs = [io(2, BASE_NS + 1000, 100, 4096, 16, op="Write", flush=True)]
        rc, out = self.run_checker(done(3, BASE_NS + 5000, 100, 4096, 0), subs)
        self.assertEqual(rc, 0, out)
        self.assertIn("a preflush write's LBA, length 0 1", out)
        rc, out = self.run_checker(done(3, BASE_NS + 5000, 100, 4096, 0))
        self.assertEqual(rc, 1, out)


if __name__ == "__main__":
    unittest.main()
