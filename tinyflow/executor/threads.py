"""How many of torch's threads an executor's CPU runs use, chosen by timing its runs: torch's
OpenMP kernels split their work statically and wait for every thread, so when another process
holds a core one thread is faster (docs/performance.md); the load changes while a program runs."""
from __future__ import annotations

import os
import time

import torch

__all__ = ["ThreadChoice"]


class ThreadChoice:
    """The thread count of one executor's CPU runs.  ``fixed`` (the session's
    ``ConfigProto(intra_op_parallelism_threads=N)``): always N.  Otherwise all of torch's
    threads (its count when the run starts: the user's ceiling, ``OMP_NUM_THREADS`` or
    ``torch.set_num_threads``) or one, whichever its recent runs took less time with:
    :meth:`begin` sets torch's count for a run, :meth:`end` puts it back and records the time.

    It switches only on strong evidence, as a switch changes the last bits of kernels whose
    sums split by thread (conv weight gradients, long reductions): runs of at least
    ``WORTH``, all of torch's threads *starved* (the process's CPU time over the run under
    ``STARVED`` x threads x wall time: a thread waited for a core another process held) before
    one thread is tried, and the other count ``BETTER`` times faster: a count's time is the
    mean of its last ``KEEP`` runs (stalls included), a probe's the slower of its runs after
    the first (which primes oneDNN), as starved threads now and then get both cores for a run.
    Quiet, one thread is never tried: a run costs two clock reads more (two CPU-time reads over
    WORTH).  A probe that lost time is not repeated before PAYBACK times that time has passed.
    """

    WARMUP = 2            # first runs (GEMM timing, caches) not timed; 3 more before a probe
    KEEP = 5              # runs remembered per count: a count's time is their mean
    PROBE_RUNS = 3        # runs of the other count per probe, the first not counted
    SLOWER = 1.5          # two runs this much slower than their count's time: probe now
    BETTER = 1.1          # the other count's time this much faster: switch to it
    STARVED = 0.8         # CPU time under this share of threads x wall: threads lacked cores
    PROBE_FIRST, PROBE_MOST = 8, 128  # runs between probes of the other count, doubling
    PAYBACK = 20          # and after a probe that lost T seconds, at least PAYBACK x T later
    # runs shorter than this keep torch's count: a small graph's results stay bit-for-bit run
    # to run; a softmax step (0.1 ms quiet) takes 1-20 ms on 2 starved threads, so not 10 ms
    WORTH = 1e-3
    # on one thread, all are probed only when the cores sat idle this share of the time since
    # the last look (a busy process beside: about 0; gone: about a core)
    IDLE = 0.5

    def __init__(self, fixed: int | None = None):
        self.fixed = fixed
        self.recent = {"all": [], "one": []}   # the last KEEP runs' seconds, per choice
        self.current = self.using = "all"
        self.runs, self.gap, self.next_probe = 0, self.PROBE_FIRST, self.WARMUP + 4
        self.ceiling = self.threads = 1
        self.started, self.cpu_started, self.not_before = 0.0, None, 0.0
        self.starved, self.probing, self.spent = False, False, 0.0  # spent: the probe's runs
        self.watch = fixed is None  # read the CPU time of runs on all threads: long enough
        self.idle_mark = None  # (time, the cores' idle seconds) at the last look

    def begin(self):
        """Set torch's thread count for the run about to start."""
        self.ceiling = ceiling = torch.get_num_threads()
        self.runs += 1
        if self.runs == self.next_probe and self.started < self.not_before:
            self.next_probe += 1  # the last probe's cost not yet paid back: not before then
        elif self.runs == self.next_probe:  # whether this probe runs, for all its runs
            self.probing = self.fixed is None and ceiling > 1 and (
                self.starved and self.watch if self.current == "all" else self._cores_idled())
        using = self.current
        if self.probing:
            using = "one" if using == "all" else "all"
        self.using, self.threads = using, self.fixed or (ceiling if using == "all" else 1)
        if self.threads != ceiling:
            torch.set_num_threads(self.threads)
        # the process's CPU time (a system call, 1-4 us) only where a probe could follow
        self.cpu_started = time.process_time() if self.watch and using == "all" else None
        self.started = time.perf_counter()

    def end(self):
        """Record the run just finished; put torch's thread count back."""
        elapsed = time.perf_counter() - self.started
        if self.cpu_started is not None:
            cpu = time.process_time() - self.cpu_started
            self.starved = cpu < self.STARVED * self.ceiling * elapsed
        if self.threads != self.ceiling:
            torch.set_num_threads(self.ceiling)
        if self.runs <= self.WARMUP or self.fixed is not None or self.ceiling == 1:
            return
        recent = self.recent[self.using]
        if self.using == self.current:
            if self.using == "all" and len(recent) >= 2 and \
                    min(recent[-1], elapsed) > self.SLOWER * _median(recent):  # load came
                self.next_probe, self.gap, self.not_before = self.runs + 1, self.PROBE_FIRST, 0
                recent[:] = recent[-1:]  # its time is now the slow runs'
            recent[:] = [*recent, elapsed][-self.KEEP:]
            if self.using == "all":
                self.watch = min(recent) >= self.WORTH
            if self.runs == self.next_probe + self.PROBE_RUNS - 1:  # a probe's window, not
                self._probe_again(switch=False)  # run (short, not starved): later, less often
            return
        if self.runs == self.next_probe:  # a probe's first run primes the count: not counted
            recent.clear()
            self.spent = elapsed
        else:
            recent.append(elapsed)
            self.spent += elapsed
        if self.runs == self.next_probe + self.PROBE_RUNS - 1:
            current = self.recent[self.current]
            self._probe_again(switch=not current or self.BETTER * max(recent) < _mean(current))

    def _cores_idled(self) -> bool:
        """Whether the machine's cores sat idle IDLE of the time since the last look (on one
        thread, what the other threads could have had; the first look only marks the time);
        True where that cannot be read."""
        idle = _idle_seconds()
        if idle is None:
            return True
        mark, self.idle_mark = self.idle_mark, (self.started, idle)
        return mark is not None and idle - mark[1] >= self.IDLE * (self.started - mark[0])

    def _probe_again(self, switch: bool):
        """After a probe's last run: switch to the count it ran (the gap back to the first),
        or probe less often."""
        if switch:
            self.current, self.gap, self.idle_mark = self.using, self.PROBE_FIRST, None
        else:
            self.gap = min(2 * self.gap, self.PROBE_MOST)
            if self.probing:  # what the probe's runs took beyond this count's time
                lost = self.spent - self.PROBE_RUNS * _mean(self.recent[self.current])
                self.not_before = self.started + self.PAYBACK * lost
        self.next_probe, self.probing = self.runs + self.gap, False


def _idle_seconds() -> float | None:
    """The machine's CPUs' idle seconds so far (/proc/stat's idle + iowait), or None."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
        return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _mean(times):  # a count's time (0 before it has one)
    return sum(times) / len(times) if times else 0.0


def _median(times):  # a count's typical run (the upper middle one of an even count)
    return sorted(times)[len(times) // 2]
