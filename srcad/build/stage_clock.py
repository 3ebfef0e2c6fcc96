"""Seconds of each stage of one build (parse, normalize, analyses, transform, codegen,
compile): what a first call costs and where, reported by the benchmarks. CPU time of the
thread that builds (`time.thread_time`): on a machine other work shares, wall-clock time
counts the time the build waited for a core, and a numba compilation on a background thread
(srcad/build/background.py) is charged to its own build, not to the calls answered meanwhile.

>>> clock = StageClock()
>>> clock.mark("parse")
>>> list(clock.seconds)
['parse']
"""

from __future__ import annotations

from time import thread_time


class StageClock:
    """CPU seconds spent per stage; `mark(stage)` charges the time since the previous mark."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._last = thread_time()

    def mark(self, stage: str) -> None:
        now = thread_time()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self._last
        self._last = now
