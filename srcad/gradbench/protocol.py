"""GradBench's protocol, the parts every tool shares: strict JSON out, the timed runs.

Guarantees: `dumps` writes standard JSON only (a non-finite float becomes `null`, as
GradBench's own tools write it, never `NaN` or `Infinity`); `run_timed` runs a call at least
`min_runs` times and until the runs add up to `min_seconds`, timing each run alone (one
"evaluate" timing per run, nothing else inside it).
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

import numpy as np


def strict(value: Any) -> Any:
    """`value` with every non-finite float replaced by None and NumPy scalars and arrays as
    Python numbers and lists.

    >>> strict({"a": [1.0, float("nan")], "b": float("inf")})
    {'a': [1.0, None], 'b': None}
    """
    if isinstance(value, dict):
        return {key: strict(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(item) for item in value]
    if isinstance(value, np.ndarray):
        return strict(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def dumps(response: dict) -> str:
    """One response as one line of standard JSON (raises on anything JSON cannot carry)."""
    return json.dumps(strict(response), allow_nan=False)


def run_timed(call, min_runs: int, min_seconds: float):
    """Run `call` at least min_runs times (at least once) and until the runs take min_seconds
    in all; one "evaluate" timing per run and the last result."""
    timings, total, result = [], 0, None
    while len(timings) < max(min_runs, 1) or total < min_seconds * 1e9:
        start = time.perf_counter_ns()
        result = call()
        elapsed = time.perf_counter_ns() - start
        timings.append({"name": "evaluate", "nanoseconds": elapsed})
        total += elapsed
    return timings, result
