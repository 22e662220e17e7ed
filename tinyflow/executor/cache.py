"""A session's executors: per fetch set, an LRU of feed signatures; per signature, a pool of
instances that runs check out, so two threads never share one plan's storage.

- *Signatures.*  An executor is bound to the shapes of its feeds, so one fetch set run with
  several batch sizes needs one executor per feed signature.  At most
  ``signatures_per_fetch_set`` (8) are kept per fetch set; adding one more drops the least
  recently used and frees its storage.
- *Instances.*  A run checks an executor out, runs it, copies its outputs out and checks it
  back in.  A run that finds every instance of its signature checked out (another thread is
  running it) gets ``None`` and builds another; at check-in, at most ``idle_per_signature``
  (4) instances are kept, the others freed.
- *Freeing.*  An executor's tensors are referenced by its Lua closures; :func:`release` drops
  the executor's references and runs Lua's full collector, so the tensors go at once rather
  than when Lua's collector next gets round to them (it does not see how large they are).
"""
from __future__ import annotations

import threading
from collections import OrderedDict

from ..lua_ops.runtime import collect_garbage

__all__ = ["ExecutorCache", "collect_lua_garbage", "release"]


def collect_lua_garbage() -> None:
    """Run Lua's full collector: the tensors only dropped closures referenced are freed.
    Waits while another thread is inside Lua (lupa lets one thread in at a time); from inside
    a call into Lua on this thread, runs when that call returns."""
    collect_garbage()


def release(executors) -> None:
    """Free ``executors``' storage now (they must not run again)."""
    executors = list(executors)
    for executor in executors:
        executor.free()
    if executors:
        collect_lua_garbage()


class ExecutorCache:
    """Executors by ``(fetched entries, feed signature)``, safe to use from several threads.

    Parameters
    ----------
    signatures_per_fetch_set : int
        Feed signatures (shapes of the feeds) kept per fetch set, least recently used dropped.
    idle_per_signature : int
        Idle instances kept per signature (one is needed per run of it going on at once).

    Attributes
    ----------
    hits, misses, evictions : int
        Check-outs that found an idle executor, ones that did not (a build followed), and
        signatures dropped for the bound.
    """

    def __init__(self, signatures_per_fetch_set: int = 8, idle_per_signature: int = 4):
        if signatures_per_fetch_set < 1 or idle_per_signature < 1:
            raise ValueError(f"the executor cache keeps at least one signature and one instance, "
                             f"got {signatures_per_fetch_set} and {idle_per_signature}")
        self.signatures_per_fetch_set = signatures_per_fetch_set
        self.idle_per_signature = idle_per_signature
        self._lock = threading.Lock()
        self._fetch_sets: dict = {}  # entries -> OrderedDict(signature -> [idle executors])
        self.hits = self.misses = self.evictions = 0

    def checkout(self, entries, signature):
        """An idle executor for ``entries`` bound to ``signature``, now checked out, or None
        (build one and :meth:`add` it)."""
        with self._lock:
            signatures = self._fetch_sets.get(entries)
            idle = signatures.get(signature) if signatures is not None else None
            if idle:
                signatures.move_to_end(signature)
                self.hits += 1
                return idle.pop()
            self.misses += 1
            return None

    def add(self, entries, signature, executor) -> None:
        """Register a newly built ``executor`` (checked out by its builder); drops the least
        recently used signatures of ``entries`` beyond the bound."""
        with self._lock:
            signatures = self._fetch_sets.setdefault(entries, OrderedDict())
            signatures.setdefault(signature, [])
            signatures.move_to_end(signature)
            dropped = []
            while len(signatures) > self.signatures_per_fetch_set:
                dropped += signatures.popitem(last=False)[1]  # busy ones go at check-in
                self.evictions += 1
        release(dropped)

    def checkin(self, entries, signature, executor) -> None:
        """Give back a checked-out ``executor``; freed if its signature was dropped meanwhile
        or enough instances are idle."""
        with self._lock:
            signatures = self._fetch_sets.get(entries)
            idle = signatures.get(signature) if signatures is not None else None
            if idle is not None and len(idle) < self.idle_per_signature:
                idle.append(executor)
                return
        release([executor])

    def executors(self, entries=None) -> list:
        """The idle executors (of ``entries`` only, if given), least recently used first."""
        with self._lock:
            sets = [self._fetch_sets.get(entries, {})] if entries is not None \
                else list(self._fetch_sets.values())
            return [e for signatures in sets for idle in signatures.values() for e in idle]

    def signatures(self, entries) -> list:
        """The feed signatures kept for ``entries``, least recently used first."""
        with self._lock:
            return list(self._fetch_sets.get(entries, {}))

    def clear(self) -> None:
        """Free every idle executor and forget all signatures (checked-out executors are freed
        when they are given back)."""
        with self._lock:
            dropped = [e for signatures in self._fetch_sets.values()
                       for idle in signatures.values() for e in idle]
            self._fetch_sets.clear()
        release(dropped)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(idle) for signatures in self._fetch_sets.values()
                       for idle in signatures.values())
