"""Loops over points running a loop over components, on the numba backend
(`python fuzz/outer_lanes.py --count 40`): a grammar of its own (`random.Random(f"outer lanes
{seed}")`) writes nests `for i in range(n): for c in range(k): <work> ; r[c] = <value>` then a
tail over the point's results (gmm's shape: work vectors filled from the point's row and the
component's, sums over them, a packed triangle (with a counter or without, from the column or
after it, jammed four columns at a time in lanes), an `if` on the component; the
tail a log-sum-exp, a weighted sum, or a write into a vector of its own), which srcad runs with
the points in lanes innermost (srcad/transform/numba_outer_lanes.py), and nests srcad must
leave as written (a sum carried from one component to the next, a work vector read before the
component writes it or after the nest, the tail writing a vector the components read, an `if`
on the point's values). Each program's function `f(mu, x, a)` runs on a few inputs (0 to 260
points, infinities and NaN among the values) through srcad's generated primal on numba and must
give the bits numba gives compiling the function as written (`numba.njit`; any NaN for a NaN);
for a third of the seeds srcad's forward tangent on numba must agree with the python
backend's (which has no lanes) within 1e-12 of its size; for another third srcad's reverse
mode on numba (`mu` Duplicated; `x` Const or Duplicated, `a` plain or Active, as the seed
draws) must agree with the python backend's within 1e-12 of the largest adjoint, and its
adjoint of `mu` dotted with a direction with numba's forward tangent in that direction (the
points in lanes) within 1e-10.

    python fuzz/outer_lanes.py --count 40 --seed 0
"""

from __future__ import annotations

import math
import os
import random
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

from checking import load_module  # noqa: E402
from seed_runs import run_seeds  # noqa: E402

import srcad  # noqa: E402

FILLS = ("x[i, j] - mu[c, j]", "x[i, j] * mu[c, j] + a", "math.sin(x[i, j]) - mu[c, j]",
         "x[i, j] * a")
SUMS = ("s + w[j] * w[j]", "s + w[j] * mu[c, j]", "s + abs(w[j])", "s + math.exp(-w[j] * w[j])")
VALUES = ("alpha - 0.5 * s", "s * a", "-s + mu[c, 0] * 0.0", "math.sqrt(abs(s)) - alpha")
TAILS = ("lse", "weighted", "vector")
AS_WRITTEN = ("carried", "stale", "after", "tail-writes", "point-if")
VALUE_POOL = (-2.0, -0.0, 0.0, 0.5, 1.0, 3.0, math.inf, -math.inf, math.nan)


def program(seed: int) -> tuple:
    """(module text, kind): the seed's nest in a function `f(mu, x, a)`."""
    rng = random.Random(f"outer lanes {seed}")
    kind = rng.choices(["lanes", *AS_WRITTEN], [10, 1, 1, 1, 1, 1])[0]
    fill, total, value = rng.choice(FILLS), rng.choice(SUMS), rng.choice(VALUES)
    value = value.replace("alpha", rng.choice(["mu[c, 0]", "a"]))
    lines = ["def f(mu, x, a):", "    n, d = x.shape", "    k = mu.shape[0]",
             "    w = np.zeros(d)", "    q = np.zeros(d)", "    r = np.zeros(k)",
             "    v = np.zeros(d)", "    acc = 0.0", "    total = 0.0",
             "    for i in range(n):", "        for c in range(k):"]
    body = []
    if kind == "stale":
        body.append("            r[c] = w[0] if d > 0 else 0.0")
    body += ["            for j in range(d):", f"                w[j] = {fill}"]
    if kind == "tail-writes":
        body[-1] += " + v[j]"
    triangle = rng.random() < 0.4
    if triangle:
        start = rng.choice(["p + 1", "p", "1 + p", "p + 2"])
        column = rng.choice(["mu[c, t % mu.shape[1]] * w[p]", "w[p] * a", "w[p] - w[m]"])
        step = "t" in column or rng.random() < 0.5
        if kind == "lanes" and rng.random() < 0.15:
            column += " + 0.5 * q[p]"  # a forward substitution: not jammed
        body += ["            for j in range(d):", "                q[j] = 0.5 * w[j]",
                 "            t = 0", "            for p in range(d):",
                 f"                for m in range({start}, d):",
                 f"                    q[m] = q[m] + {column}"]
        body += ["                    t += 1"] if step else []
        total = total.replace("w[j]", "q[j]")
    if kind == "carried":
        body.append("            s = acc")
    else:
        body.append("            s = 0.0")
    body += ["            for j in range(d):"]
    if kind == "point-if":
        body += ["                if x[i, j] > 0.0:", f"                    s = {total}"]
    else:
        body += [f"                s = {total}"]
    if rng.random() < 0.4:
        body += ["            if c % 2 == 0:", "                s = s + 0.25 * a"]
    if kind == "carried":
        body.append("            acc = s")
    if kind != "stale":
        body.append(f"            r[c] = {value}")
    lines += body
    tail = rng.choice(TAILS)
    if kind == "tail-writes":
        tail = "vector"
    if tail == "lse":
        lines += ["        m = r[0]", "        for c in range(1, k):",
                  "            m = max(m, r[c])",
                  "        e = 0.0", "        for c in range(k):",
                  "            e = e + math.exp(r[c] - m)",
                  "        total = total + math.log(e) + m"]
    elif tail == "weighted":
        lines += ["        for c in range(k):", "            total = total + r[c] * (c + 1) + i"]
    else:
        lines += ["        for j in range(d):", "            v[j] = v[j] * 0.5 + r[j % k]",
                  "        total = total + r[k - 1]"]
    lines += ["    for j in range(d):", "        total = total + v[j]"]
    if kind == "after":
        lines.append("    total = total + w[d - 1] if d > 0 else total")
    lines.append("    return total")
    return "import math\n\nimport numpy as np\n\n\n" + "\n".join(lines) + "\n", kind


def inputs(seed: int, count: int = 4) -> list:
    """(mu, x, a): 0 to 260 points of 0 to 5 coordinates, 1 to 4 components."""
    rng = random.Random(f"outer lanes inputs {seed}")
    out = []
    for n in rng.sample([0, 1, 3, 7, 130, 260], count):
        d, k = rng.randrange(1, 6), rng.randrange(1, 5)
        finite = rng.random() < 0.7
        pool = VALUE_POOL[:6] if finite else VALUE_POOL

        def draw(*shape, pool=pool):
            size = int(np.prod(shape))
            return np.array([rng.choice(pool) if rng.random() < 0.1 else rng.gauss(0.0, 1.0)
                             for _ in range(size)]).reshape(shape)

        out.append((draw(k, d), draw(n, d), rng.choice([-1.0, 0.5, 2.0])))
    return out


def _bits(v) -> bytes:
    return np.float64(v).tobytes()


def _copies(args):
    return [np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in args]


def _rewritten(f, args) -> bool:
    code = srcad.source(f, srcad.ForwardWithPrimal, *map(srcad.Const, args), backend="numba")
    return "numba_outer_lanes.py" in code


def _tangent(f, args, backend):
    mu, x, a = _copies(args)
    direction = np.cos(np.arange(mu.size, dtype=float)).reshape(mu.shape)
    return srcad.autodiff(srcad.Forward, f, srcad.Duplicated(mu, direction), x, a,
                          backend=backend)


def _adjoints(f, args, backend, x_active, a_active):
    """The adjoints of `mu`, of `x` (zeros when Const) and of `a` (0.0 when plain)."""
    mu, x, a = _copies(args)
    mu_bar, x_bar = np.zeros_like(mu), np.zeros_like(x)
    result = srcad.autodiff(srcad.Reverse, f, srcad.Duplicated(mu, mu_bar),
                            srcad.Duplicated(x, x_bar) if x_active else x,
                            srcad.Active(a) if a_active else a, backend=backend)
    return mu_bar, x_bar, (result[2] if a_active else 0.0)


def check_reverse(seed: int, f, args) -> str | None:
    """The first disagreement of srcad's reverse mode on numba with the python backend's, or
    of its adjoint of `mu` with numba's forward tangent (a dot product); None when agreed."""
    rng = random.Random(f"outer lanes reverse {seed}")
    x_active, a_active = rng.random() < 0.5, rng.random() < 0.5
    numba_bars = _adjoints(f, args, "numba", x_active, a_active)
    python_bars = _adjoints(f, args, "python", x_active, a_active)
    scale = max([1.0] + [float(np.max(np.abs(b), initial=0.0)) for b in python_bars])
    if not all(np.all(np.isfinite(b)) for b in python_bars):
        return None
    for name, got, want in zip(("mu", "x", "a"), numba_bars, python_bars):
        if np.max(np.abs(np.asarray(got) - want), initial=0.0) > 1e-12 * scale:
            return (f"reverse adjoints of {name} differ (x active {x_active}, a active "
                    f"{a_active}): numba {np.asarray(got).tolist()}, python "
                    f"{np.asarray(want).tolist()}")
    direction = np.cos(np.arange(args[0].size, dtype=float)).reshape(args[0].shape)
    dot = float(np.sum(numba_bars[0] * direction))
    tangent = _tangent(f, args, "numba")
    if abs(dot - tangent) > 1e-10 * max(abs(tangent), scale):
        return f"forward tangent {tangent!r} and reverse dot product {dot!r} differ"
    return None


def check(seed: int) -> str:
    """'agreed in lanes' or 'agreed as written' (whether srcad rewrote the nest), 'skipped'
    where srcad refuses the function on every input, or the first disagreement."""
    import numba

    text, kind = program(seed)
    module, _ = load_module(text)
    f = module.f
    as_written = numba.njit(f)
    ran = rewritten = False
    for args in inputs(seed):
        with np.errstate(all="ignore"):
            want = as_written(*_copies(args))
            try:
                got = srcad.autodiff(srcad.ForwardWithPrimal, f, *map(srcad.Const, _copies(args)),
                                     backend="numba")[-1]
            except srcad.SrcadError:
                continue
        ran = True
        if _bits(got) != _bits(want) and not (math.isnan(got) and math.isnan(want)):
            return (f"disagreed ({kind}): f(mu={args[0].tolist()}, x={args[1].tolist()}, "
                    f"a={args[2]}): srcad {got!r}, numba as written {want!r}")
        rewritten = rewritten or _rewritten(f, args)
    if not ran:
        return "skipped"
    if rewritten and kind != "lanes":
        return f"rewrote a nest to leave as written ({kind})"
    if kind == "lanes" and not rewritten:
        return "left a nest to rewrite as written"
    agreed = "agreed in lanes" if rewritten else "agreed as written"
    args = next((a for a in inputs(seed) if len(a[1]) >= 3
                 and all(np.all(np.isfinite(v)) for v in a[:2])), None)
    if seed % 3 == 0 and args is not None:
        with np.errstate(all="ignore"):
            try:
                numba_tangent = _tangent(f, args, "numba")
                python_tangent = _tangent(f, args, "python")
            except srcad.SrcadError:
                return agreed
        if math.isfinite(python_tangent) and abs(numba_tangent - python_tangent) > \
                1e-12 * max(abs(python_tangent), 1.0):
            return f"tangents differ ({kind}): {numba_tangent!r} {python_tangent!r}"
    if seed % 3 == 1 and args is not None:
        with np.errstate(all="ignore"):
            try:
                problem = check_reverse(seed, f, args)
            except srcad.SrcadError:
                return agreed
        if problem is not None:
            return f"{problem} ({kind})"
    return agreed


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=40,
                     accepted=("agreed", "skipped"), title="outer lanes",
                     program=lambda seed: program(seed)[0])


if __name__ == "__main__":
    sys.exit(main())
