"""The benchmark harness: configuration, rows, checking and timing, shared by every problem.

Guarantees (the method of the suite, see run.py): `run_case` checks a contender's result against
the reference before timing it and reports a disagreeing, missing or unimplemented contender as a
row with a status, never drops it; `measure` times calibrated samples and reports their median;
`interleaved_ratio` times two contenders call by call, so both see the same machine drift.
Importing this module puts examples/ and benchmarks/ on sys.path.
"""

from __future__ import annotations

import gc
import importlib.util
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "examples", ROOT / "benchmarks"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

perf_counter = time.perf_counter


TOL = 1e-6  # relative (to the largest reference entry) agreement required before timing
TOL_FD = 1e-5  # central finite differences are approximations: a looser, stated tolerance
TOL_VALUE = 1e-10  # primal-only contenders: the value must match the reference primal


class Skip(Exception):
    """A contender that cannot run here; the message says why."""


@dataclass
class Config:
    quick: bool
    repeats: int
    min_sample: float  # seconds per sample (calibrates `number`)
    warmup: int
    budget: float  # seconds of measurement per contender, at most (repeats shrink to fit)
    large_repeats: int
    large_warmup: int
    fresh_transforms: int


FULL = Config(False, repeats=15, min_sample=0.05, warmup=2, budget=6.0, large_repeats=3,
              large_warmup=1, fresh_transforms=7)
QUICK = Config(True, repeats=3, min_sample=0.005, warmup=1, budget=1.0, large_repeats=1,
               large_warmup=0, fresh_transforms=3)


@dataclass
class Row:
    section: str
    case: str
    name: str
    status: str = "ok"
    median: float | None = None  # seconds per call
    low: float | None = None
    first: float | None = None
    repeats: int = 0
    number: int = 0
    err: float | None = None
    note: str = ""

    @property
    def ok(self):
        return self.status == "ok"


@dataclass
class Suite:
    cfg: Config
    rows: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def find(self, section, case, name):
        for row in self.rows:
            if row.section == section and row.case == case and row.name == name:
                return row
        return None


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def installed(*modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise Skip(f"not installed: {', '.join(missing)}")


def rel_err(got, ref):
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float)
    if got.shape != ref.shape:
        return math.inf
    return float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-300))


def measure(call, cfg: Config, large: bool):
    """(median, min, repeats, number) in seconds per call; `call` has been called once."""
    warmup = cfg.large_warmup if large else cfg.warmup
    last = None
    for _ in range(max(warmup, 1)):
        t0 = perf_counter()
        call()
        last = perf_counter() - t0
    number = max(1, int(cfg.min_sample / max(last, 1e-9)))
    fewest = cfg.large_repeats if large else 3  # slow calls shrink to this many samples
    repeats = max(fewest, min(cfg.repeats, int(cfg.budget / max(number * last, 1e-9))))
    samples = []
    for _ in range(repeats):
        t0 = perf_counter()
        for _ in range(number):
            call()
        samples.append((perf_counter() - t0) / number)
    return statistics.median(samples), min(samples), repeats, number


def run_case(suite: Suite, section, case, name, setup, *, ref=None, tol=TOL, large=False,
             not_implemented=(), note=""):
    """Set up, call once (timed as the first call), check against `ref`, then time.

    `setup()` returns (call, result): `call()` is the timed closure and `result(out)` turns the
    output of one call into the array (or value) compared with `ref`. Exceptions of the types in
    `not_implemented` raised by the first call mean the contender is not implemented yet.
    """
    row = Row(section, case, name, note=note)
    suite.rows.append(row)
    try:
        call, result = setup()
    except Skip as skip:
        row.status = f"skipped ({skip})"
        return _report(row)
    except Exception as exc:  # a broken contender must not stop the run
        row.status = f"error in setup ({type(exc).__name__}: {_short(exc)})"
        return _report(row)
    gc.collect()
    try:
        t0 = perf_counter()
        out = call()
        row.first = perf_counter() - t0
    except Skip as skip:
        row.status = f"skipped ({skip})"
        return _report(row)
    except not_implemented as exc:
        row.status = f"skipped (not implemented: {type(exc).__name__}: {_short(exc)})"
        return _report(row)
    except Exception as exc:
        row.status = f"error ({type(exc).__name__}: {_short(exc)})"
        return _report(row)
    if ref is not None:
        row.err = rel_err(result(out), ref)
        if not row.err <= tol:
            row.status = f"DISAGREES (rel. error {row.err:.2e} > {tol:.0e}; not timed)"
            return _report(row)
    gc.collect()
    row.median, row.low, row.repeats, row.number = measure(call, suite.cfg, large)
    return _report(row)


def _short(exc, limit=90):
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _report(row):
    if row.ok:
        print(f"  {row.name:<52} {us(row.median):>12} us   (min {us(row.low)}, first call "
              f"{ms(row.first)} ms, {row.repeats}x{row.number}, err {row.err or 0:.1e})",
              flush=True)
    else:
        print(f"  {row.name:<52} {row.status}", flush=True)
    return row


def us(seconds):
    if seconds is None:
        return "-"
    value = seconds * 1e6
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def ms(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:,.1f}"


def interleaved_medians(a, b, pairs):
    """(median time of a, median time of b) in seconds, the two called alternately (same
    drift)."""
    a(), b()
    times_a, times_b = [], []
    for _ in range(pairs):
        t0 = perf_counter()
        a()
        t1 = perf_counter()
        b()
        t2 = perf_counter()
        times_a.append(t1 - t0)
        times_b.append(t2 - t1)
    return statistics.median(times_a), statistics.median(times_b)


def interleaved_ratio(a, b, cfg, pairs=None):
    """median time of a / median time of b, the two called alternately (same drift)."""
    time_a, time_b = interleaved_medians(a, b, pairs or (9 if cfg.quick else 61))
    return time_a / time_b


def ratio(a, b):
    if a is None or b is None or not a.ok or not b.ok:
        return None
    return a.median / b.median


def fmt_ratio(value):
    return "-" if value is None else (f"{value:.2f}x" if value < 100 else f"{value:,.0f}x")


def rows_table(title, rows) -> list:
    """Markdown lines of a section of (what, value, unit, note) rows (suite.extra)."""
    if not rows:
        return []
    lines = ["", f"## {title}", "", "| what | value | note |", "|---|---|---|"]
    for what, value, unit, note in rows:
        shown = "-" if value is None else f"{value:.3g}{unit}"
        lines.append(f"| {what} | {shown} | {note} |")
    return lines
