"""Triangles of columns added into a work vector on the numba backend
(`python fuzz/column_jam.py --count 40`): a grammar of its own (`random.Random(f"column jam
{seed}")`) writes nests `for i in <range>: for j in range(<i, i + c>, <end>): out[j] = out[j] +
<term>` (a counter `k += 1` into a packed triangle `l[k]` or none; terms of `l[k]`, `x[i]`,
`x[j]`, `a`, `math.sin`; columns from 0, 1 or a start that depends on the input; rows to the
end or one before it; the work vector set before or not; columns reading a vector `v` set
again after the nest, which the reverse sweep records after each column's rows), which srcad
runs four columns at a
time (srcad/transform/numba_column_jam.py), and nests srcad must leave as written (a term
reading the work vector, as a forward substitution does; the work vector an alias of an
argument, or read through a view; the counters read after the nest). Each program's
function `f(l, x, a)` runs on inputs of every length from 0 to 13, with infinities and NaN
among the values, through srcad's generated code on numba, and must give the bits numba gives
compiling the function as written (`numba.njit`; any NaN for a NaN); for a third of the seeds
(and every one reading `v`) srcad's reverse gradient on numba must agree with the python
backend's (which does not jam) within 1e-12 of its size.

    python fuzz/column_jam.py --count 40 --seed 0
"""

from __future__ import annotations

import inspect
import math
import os
import random
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

from checking import load_module  # noqa: E402
from seed_runs import run_seeds  # noqa: E402

import srcad  # noqa: E402
from srcad import api  # noqa: E402

TERMS = ("l[k] * x[i]", "l[k] * x[i] * x[j]", "l[k]", "x[i] * a", "math.sin(x[i] * x[j]) * a",
         "l[k] * a + x[j]", "x[i] - x[j]")
STARTS = ("i", "i + 1", "i + 1", "i + 2", "1 + i")
COLUMNS = ("range(len(x))", "range(len(x))", "range(1, len(x))", "range(s, len(x))",
           "range(s)")
ENDS = ("len(x)", "len(x)", "len(x) - 1")
VALUES = (-2.0, -0.0, 0.0, 0.5, 1.0, 3.0, math.inf, -math.inf, math.nan)


def program(seed: int) -> tuple:
    """(module text, kind): the seed's nest in a function `f(l, x, a)`."""
    rng = random.Random(f"column jam {seed}")
    kind = rng.choices(["jam", "reads-out", "alias", "view", "after"], [8, 1, 1, 1, 1])[0]
    term = rng.choice(TERMS)
    counter = "l[k]" in term or rng.random() < 0.5
    lines = ["def f(l, x, a):", "    s = min(3, len(x))", "    k = 0"]
    if kind == "alias":
        lines.append("    out = x")
    else:
        lines.append("    out = np.zeros(len(x))")
    if kind == "view":
        lines.append("    tail = out[1:]")
        term = f"{term} + tail[j - 1]"
        start = "i + 1"
    else:
        start = rng.choice(STARTS)
    if kind == "reads-out":
        term = f"{term} - 0.5 * out[i]"
    if rng.random() < 0.6:  # the work vector set before the nest
        lines += ["    for t in range(len(out)):", "        out[t] = 0.25 * x[t] + a"]
    overwritten = kind == "jam" and rng.random() < 0.4
    if overwritten:  # the columns read a vector set again after the nest, as gmm's xcentered:
        # the reverse sweep's forward nest records v[i] after each column's rows
        lines += ["    v = np.zeros(len(x))", "    for t in range(len(x)):",
                  "        v[t] = x[t] * a + 0.5"]
        term = term.replace("x[i]", "v[i]")
    if kind == "after":
        lines += ["    i = 0", "    j = 0"]
    body = [f"            out[j] = out[j] + ({term})"]
    if counter:
        body.append("            k += 1")
    lines += [f"    for i in {rng.choice(COLUMNS)}:",
              f"        for j in range({start}, {rng.choice(ENDS)}):", *body]
    lines += ["    total = 0.001 * k", "    for t in range(len(out)):",
              "        total = total + out[t] * (t + 1)"]
    if overwritten:
        lines += ["    for t in range(len(v)):", "        v[t] = 0.5 * v[t] * v[t]",
                  "        total = total + v[t]"]
    if kind == "after":
        lines.append("    total = total + i + j")
    lines.append("    return total")
    return "import math\n\nimport numpy as np\n\n\n" + "\n".join(lines) + "\n", kind, overwritten


def inputs(seed: int, count: int = 8) -> list:
    """(l, x, a) triples: x of length 0 to 13, l long enough for the packed triangle."""
    rng = random.Random(f"column jam inputs {seed}")
    out = []
    for n in rng.sample(range(14), count):
        finite = rng.random() < 0.6
        pool = VALUES[:6] if finite else VALUES

        def draw(size, pool=pool):
            return np.array([rng.choice(pool) if rng.random() < 0.3 else rng.gauss(0.0, 1.5)
                             for _ in range(size)])

        out.append((draw(max(n * (n + 1) // 2, 1)), draw(n), rng.choice([-1.0, 0.5, 2.0])))
    return out


def _bits(v) -> bytes:
    return np.float64(v).tobytes()


def _jammed(f, args) -> bool:
    call = api._arguments(f, srcad.ForwardWithPrimal, [srcad.Const(v) for v in args], None,
                          "numba")
    compiled = api._compiled(f, call.request(srcad.ForwardWithPrimal, "numba"))
    return "columns of i at a time" in inspect.getsource(compiled.function.py_func)


def _gradient(f, args, backend):
    packed, x, a = (np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in args)
    d_packed, dx = np.zeros_like(packed), np.zeros_like(x)
    srcad.autodiff(srcad.Reverse, f, srcad.Duplicated(packed, d_packed),
                   srcad.Duplicated(x, dx), a, backend=backend)
    return np.concatenate([d_packed, dx])


def check(seed: int) -> str:
    """'agreed jammed' or 'agreed as written' (whether srcad jammed the nest), 'skipped' where
    srcad refuses the function on every input, or the first disagreement."""
    import numba

    text, kind, overwritten = program(seed)
    module, _ = load_module(text)
    f = module.f
    as_written = numba.njit(f)
    ran = jammed = False
    for args in inputs(seed):
        try:
            with np.errstate(all="ignore"):
                want = as_written(*(np.array(v, copy=True) if isinstance(v, np.ndarray) else v
                                    for v in args))
        except IndexError:
            continue
        try:
            got = srcad.autodiff(srcad.ForwardWithPrimal, f, *map(srcad.Const, (
                np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in args)),
                backend="numba")[-1]
        except srcad.SrcadError:
            continue
        ran = True
        # (a NaN's sign and payload are LLVM's choice: it may swap an addition's operands)
        if _bits(got) != _bits(want) and not (math.isnan(got) and math.isnan(want)):
            return (f"disagreed ({kind}): f(l={args[0].tolist()}, x={args[1].tolist()}, "
                    f"a={args[2]}): srcad {got!r}, numba as written {want!r}")
        jammed = jammed or _jammed(f, args)
    if not ran:
        return "skipped"
    if jammed and kind != "jam":
        return f"jammed a nest to leave as written ({kind})"
    if kind == "jam" and (seed % 3 == 0 or overwritten):
        args = next((a for a in inputs(seed) if len(a[1]) >= 6
                     and np.all(np.isfinite(a[0])) and np.all(np.isfinite(a[1]))), None)
        if args is not None:
            try:
                numba_gradient = _gradient(f, args, "numba")
                python_gradient = _gradient(f, args, "python")
            except srcad.SrcadError:
                return "agreed jammed" if jammed else "agreed as written"
            scale = max(float(np.max(np.abs(python_gradient))), 1e-300)
            if np.max(np.abs(numba_gradient - python_gradient)) > 1e-12 * scale:
                return f"gradients differ ({kind})"
    return "agreed jammed" if jammed else "agreed as written"


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=40,
                     accepted=("agreed", "skipped"), title="column jam",
                     program=lambda seed: program(seed)[0])


if __name__ == "__main__":
    sys.exit(main())
