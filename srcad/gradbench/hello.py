"""GradBench's `hello` eval, answered by srcad itself: `square` is x * x and `double` its
derivative, srcad's reverse-mode gradient of `square` on the tool's backend.

The eval sends a bare number as the input (no `min_runs`/`min_seconds`): each function runs
once. Guarantees: `double` is srcad's derivative, not a hand-written 2 * x.
"""

from __future__ import annotations

import functools

from srcad.api.function_transforms import grad


def square(x):
    return x * x


FUNCTIONS = ("square", "double")


@functools.cache
def double(backend: str):
    """srcad's gradient of `square` on `backend`, built once per process."""
    return grad(square, backend=backend)


def build(function: str, backend: str, x: float):
    """A zero-argument callable computing `function` at `x` (srcad's gradient compiled and run
    once here, so the timed calls run compiled code)."""
    x = float(x)
    if function == "square":
        return lambda: square(x)
    if function == "double":
        derivative = double(backend)
        derivative(x)  # the compilation, the first time: never inside a timed run
        return lambda: derivative(x)
    raise KeyError(f"the hello eval has no function {function!r} (functions: square, double)")
