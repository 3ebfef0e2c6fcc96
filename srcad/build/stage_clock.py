"""Wall-clock seconds of each stage of one build (parse, normalize, analyses, transform,
codegen, compile): what a first call costs and where, reported by the benchmarks.

>>> clock = StageClock()
>>> clock.mark("parse")
>>> list(clock.seconds)
['parse']
"""

from __future__ import annotations

from time import perf_counter


class StageClock:
    """Seconds spent per stage; `mark(stage)` charges the time since the previous mark."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._last = perf_counter()

    def mark(self, stage: str) -> None:
        now = perf_counter()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self._last
        self._last = now
