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


def io(sid, ns, iid, lba, length=8):
    return {"header": header(sid, ns),
            "io": {"id": str(iid), "lba": str(lba), "len": length, "deviceId": str(DEV),
                   "operation": "Read", "partitionId": "0"}}


def done(sid, ns, iid):
    return {"header": header(sid, ns),
            "ioCompletion": {"refId": str(iid), "deviceId": str(DEV), "status": 0, "error": False}}


def ftrace_line(comm, tid, tgid, ns, sector, nr):
    sec, rest = divmod(ns // 1000, 1000000)
    return ("%16s-%-7d (%7s) [000] ..s1. %d.%06d: block_rq_complete: 7,0 RA () %d + %d be,0,4 [0]\n"
            % (comm, tid, tgid, sec, rest, sector, nr))


def trace_missing_one():
    """Three reads; the first one's completion is missing: its id (100) is
    used again by the third."""
    events = [{"header": header(1, BASE_NS), "deviceDescription": {"id": str(DEV), "name": "loop0",
                                                                   "size": "524288"}},
              io(2, BASE_NS + 1000, 100, 291864),
              io(3, BASE_NS + 2000, 200, 4096),
              done(4, BASE_NS + 40000, 200),
              io(5, BASE_NS + 900000, 100, 8192),
              done(6, BASE_NS + 950000, 100)]
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
            f.write(json.dumps(done(9, BASE_NS + 990000, 400)) + "\n")
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


if __name__ == "__main__":
    unittest.main()
