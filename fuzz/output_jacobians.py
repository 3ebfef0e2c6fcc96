"""Reverse-mode jacobians of functions writing an Output and a Cache
(`python fuzz/output_jacobians.py --count 200`): a random element-by-element `f(y, x, c, a)`
(y an `Output`, x the float array differentiated, c a `Cache` of scratch values, a a Constant
float) with more inputs than outputs, its jacobian asked for in reverse mode (`mode="reverse"`:
at these shapes the default is forward mode, srcad/operators/jacobian_mode.py), which sweeps
W rows at once (srcad/operators/batched_reverse.py). Its statements: c filled from x (math
and NumPy calls of numbers, an `if` on a value), y written from x, c and y's own content on
entry (`y[i] = 0.5 * y[i] + ...`, `+=` in a second loop), sometimes a NumPy call of the whole
x that stops the lanes where a branch takes it. Each program is prepared at one point and
called at two (the second may take the other branches); every call must give central finite
differences' J and forward mode's, and leave f's values in y (from y's content as given); of
7 or 9 rows, half the time in two sweeps (`MAX_REVERSE_LANES` lowered: W = 4 or 5 does not
divide them).
Programs come from `random.Random(f"output jacobians {seed}")`.

    python fuzz/output_jacobians.py --count 200 --seed 0
"""

from __future__ import annotations

import os
import random
import sys
import tempfile

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

from prepared_calls import seeds_main  # noqa: E402  (fuzz/ is on the path)

import srcad  # noqa: E402
from srcad import Cache, Constant, Output  # noqa: E402
from srcad.errors import SrcadError  # noqa: E402
from srcad.operators import reverse_lane_count  # noqa: E402

CALLS = ["math.sin({0})", "np.cos({0})", "math.exp(0.3 * {0})", "np.tanh({0})", "{0} * {0}",
         "math.sqrt({0} * {0} + 1.0)", "abs({0})"]
READS = ["x[i]", "x[(i + 1) % n]", "x[0]", "c[i]", "c[(i + 2) % n]", "a"]


def program(rng) -> str:
    """The source of f(y, x, c, a): len(x) = n > len(y) = m."""
    lines = ["def f(y, x, c, a):", "    n = len(x)", "    m = len(y)", "    for i in range(n):"]
    value = rng.choice(CALLS).format(rng.choice(["x[i]", "x[i] * a", "x[(i + 3) % n]"]))
    if rng.random() < 0.4:
        other = rng.choice(CALLS).format("x[i]")
        lines.append(f"        if x[i] > {rng.choice(['0.0', '0.5', 'x[0]'])}:")
        lines += [f"            c[i] = {value}", "        else:", f"            c[i] = {other}"]
    else:
        lines.append(f"        c[i] = {value} * {rng.choice(READS)}")
    whole = rng.random() < 0.25  # a call of the whole x where x[i] is negative: lanes stop
    lines.append("    for i in range(m):")
    term = " * ".join(rng.sample(READS, 2))
    keep = "0.5 * y[i] + " if rng.random() < 0.4 else ""
    if whole:
        lines += ["        if x[i] < 0.0:", "            y[i] = np.sum(np.exp(x)) * x[i]",
                  "        else:", f"            y[i] = {keep}{term} + c[i + 1]"]
    else:
        lines.append(f"        y[i] = {keep}{term} + c[i + 1]")
    if rng.random() < 0.5:
        lines += ["    for i in range(m):",
                  f"        y[i] += {rng.choice(CALLS).format(rng.choice(READS))} * c[i]"]
    return "\n".join(lines) + "\n"


def values(f, x, given, a):
    y = given.copy()
    f(y, x, np.zeros(x.size), a)
    return y


def central(f, x, given, a, eps=1e-6):
    columns = []
    for k in range(x.size):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        columns.append((values(f, up, given, a) - values(f, down, given, a)) / (2 * eps))
    return np.stack(columns, axis=-1)


def check(seed: int, backend: str) -> list[tuple[str, str]]:
    rng = random.Random(f"output jacobians {seed}")
    source = "import math\n\nimport numpy as np\n\n\n" + program(rng)
    with tempfile.NamedTemporaryFile("w", suffix=f"_outjac{seed}.py", delete=False) as handle:
        handle.write(source)
    namespace: dict = {}
    exec(compile(source, handle.name, "exec"), namespace)
    f = namespace["f"]
    m = rng.choice([4, 5, 7, 9])
    n, a = m + rng.randint(1, 3), rng.uniform(0.5, 1.5)
    points = [np.array([rng.uniform(0.1, 1.2) for _ in range(n)]) for _ in range(2)]
    points.append(points[0] * np.array([rng.choice([1.0, -1.0]) for _ in range(n)]))
    given = np.array([rng.uniform(-1.0, 1.0) for _ in range(m)])
    lanes = reverse_lane_count.MAX_REVERSE_LANES["python"]
    if m > 5 and rng.random() < 0.5:  # equal sweeps of m - 1 lanes at most: 4 + 3, 5 + 4
        reverse_lane_count.MAX_REVERSE_LANES["python"] = m - 1
    y, c = given.copy(), np.zeros(n)
    try:
        prep = srcad.prepare_jacobian(f, Output(y), points[0], Cache(c), Constant(a),
                                      mode="reverse", backend=backend)
    except SrcadError as err:
        return [("refused", str(err).splitlines()[0][:80])]
    finally:
        reverse_lane_count.MAX_REVERSE_LANES["python"] = lanes
    batched = prep.state.get("batched")
    results = [(f"W = {prep.chunk} of {m} rows" if batched else "one row a sweep",
                "preparation")]
    if not np.array_equal(y, given):
        return results + [("wrong", "the preparation changed the Output")]
    for x in points[1:]:
        y = given.copy()
        J = srcad.jacobian(f, Output(y), x, Cache(c), Constant(a), prep=prep)
        forward = srcad.jacobian(f, Output(given.copy()), x, Cache(np.zeros(n)), Constant(a),
                                 mode="forward", backend=backend)
        want = central(f, x, given, a)
        if not np.allclose(y, values(f, x, given, a), rtol=1e-13, atol=1e-14):
            results.append(("wrong", "y is not f's value"))
        elif not np.allclose(J, want, rtol=1e-6, atol=1e-7):
            results.append(("wrong", f"J vs central differences: {np.abs(J - want).max():.2e}"))
        elif not np.allclose(J, forward, rtol=1e-12, atol=1e-13):
            results.append(("wrong", f"J vs forward mode: {np.abs(J - forward).max():.2e}"))
        else:
            results.append(("agreed", "call"))
    if batched and not prep.state.get("batched"):
        results.append(("lanes stopped at a call", "then one row a sweep"))
    return results


def main():
    seeds_main("output jacobians", __doc__.splitlines()[0], check)


if __name__ == "__main__":
    main()
