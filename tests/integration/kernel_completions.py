# SPDX-License-Identifier: BSD-3-Clause
"""The kernel's own completions of a traced disk, to tell why a trace lacks one.

tracer-lib.sh's iotrace_kernel_completions_* record the block_rq_complete
and block_bio_complete events of the disk with ftrace (a tracefs instance,
record-tgid, trace_clock mono: the clock of the tracer's timestamps) while
the tracer runs.

Why: the kernel of this project's VMs (6.18.44-fc) runs no BPF program while
a thread of PID 1 (the VM's agent, "tokio-rt-worker") is current.
Disassembled, its bpf_trace_run3() returns at once when current->tgid == 1
and the program is not owned by init, before the recursion check: no
recursion miss is counted and bpf_stats counts no run. A completion that a
softirq handles on top of such a thread reaches no program, and a trace
lacks it; ftrace's probe on the same tracepoint still records it, with
tgid 1. Measured: 214,545 block_rq_complete events, 2 of them in PID 1's
thread, 214,543 runs of the completion program.

So a completion the trace lacks is explained when the kernel completed a
range covering the I/O (a split parent: what bio_split() left of it, its
end) in PID 1's context between the I/O's submission and the reuse of its
id; any other missing completion is a loss of the tracer.
"""
import re

EVENT = re.compile(
    r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\(\s*(?P<tgid>[-\d]+)\)\s+\[\d+\]\s+\S+\s+"
    r"(?P<sec>\d+)\.(?P<usec>\d{6}): (?P<event>block_rq_complete|block_bio_complete): "
    r"\d+,\d+ \S+ (?:\([^)]*\) )?(?P<sector>\d+) \+ (?P<nr>\d+)")

# ftrace prints microseconds; the tracer's timestamps are nanoseconds
SLACK_NS = 1000


class KernelCompletions:
    """Completions of one disk as ftrace saw them, from a `trace` file."""

    def __init__(self, path):
        self.total = 0
        self.in_init = []      # (ns, first sector, sectors) in PID 1's threads
        self.bad_lines = []
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                if line.startswith("#") or not line.strip():
                    continue
                m = EVENT.match(line)
                if not m:
                    self.bad_lines.append("line %d: %s" % (lineno, line.strip()[:80]))
                    continue
                self.total += 1
                if m.group("tgid") == "1":
                    ns = (int(m.group("sec")) * 1000000 + int(m.group("usec"))) * 1000
                    self.in_init.append((ns, int(m.group("sector")), int(m.group("nr"))))

    def _covering(self, lba, length, split_parent=False):
        """The times of the completions in PID 1's context that cover
        [lba, lba + length). An empty flush (length 0) ends with the flush
        request that carries it, which the kernel prints at sector 0 or
        -1, + 0. A split parent ends with what bio_split() left of it, its
        end: a completion from inside its range through its end covers it."""
        end = lba + length

        def covers(sector, nr):
            if length == 0:
                return nr == 0
            if sector <= lba and end <= sector + nr:
                return True
            return split_parent and lba < sector < end <= sector + nr
        return [ns for ns, sector, nr in self.in_init if covers(sector, nr)]

    def explains(self, lba, length, since_ns, until_ns, split_parent=False):
        """Whether the kernel completed [lba, lba + length) in PID 1's
        context between since_ns and until_ns (None: the trace's end)."""
        return any(ns + SLACK_NS >= since_ns and (until_ns is None or ns <= until_ns + SLACK_NS)
                   for ns in self._covering(lba, length, split_parent))

    def why_not(self, lba, length, since_ns, until_ns, split_parent=False):
        """Why explains() said no, for a failure message: the PID 1
        completion covering the range nearest in time to the window, and
        how far outside the window it fell."""
        covering = self._covering(lba, length, split_parent)
        if not covering:
            return "no completion in PID 1's context covers sectors %d+%d%s" % (
                lba, length, " (a split parent: or its end)" if split_parent else "")

        def off(ns):
            if ns < since_ns:
                return since_ns - ns
            return ns - until_ns if until_ns is not None and ns > until_ns else 0
        ns = min(covering, key=off)
        where = "before the submission" if ns < since_ns else "after the id's reuse"
        return "the nearest covering one in PID 1's context %.1f us %s" % (off(ns) / 1000.0, where)
