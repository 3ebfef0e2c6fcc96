"""Prepared operators re-called with new values (`python fuzz/prepared_calls.py --count 200`):
a random `f(x, c, n)` (x the float array differentiated, `c` a Constant float array, `n` an
int Constant that may set the output's length, f writing x in place at random), prepared by
`prepare_gradient`, `prepare_jacobian`, `prepare_pushforward` or `prepare_hessian` at one
set of arguments and then called, with `prep=`, at others: new values of x and c, a c of
another shape, another n. Each call must give the numbers central finite differences of f
give at its own arguments, or refuse with PreparationMismatchError where the preparation no
longer fits (another shape; another n for an operator shaped by f's output); never the old
shape or a plausible wrong number. Programs come from `random.Random(f"prepared {seed}")`.

    python fuzz/prepared_calls.py --count 200 --seed 0 [--backend numba]
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import tempfile

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

import srcad  # noqa: E402
from srcad import Constant, PreparationMismatchError  # noqa: E402
from srcad.errors import SrcadError  # noqa: E402

ELEMENTWISE = ["np.sin({0})", "{0} * {0}", "np.tanh({0}) * 1.5", "np.exp({0} * 0.3)",
               "{0} * 2.0 + 0.5"]


OPERATORS = ("gradient", "hessian", "jacobian", "pushforward")


def program(seed: int):
    """(source, float output?, writes x?) of the random f(x, c, n) of `seed`."""
    rng = random.Random(f"prepared {seed}")
    lines = ["def f(x, c, n):"]
    writes = rng.random() < 0.4
    if writes:
        lines.append("    " + rng.choice(["x *= 1.5", "x[0] = x[0] * 2.0 + 0.1",
                                          "x[1:] += x[:-1] * 0.5", "x[:] = np.sin(x)"]))
    head = rng.choice(["x[:n]", "x[:n] * c[0]", "x[:n] * c[:n]", "x[-n:] + c[:n]"])
    lines.append("    y = " + rng.choice(ELEMENTWISE).format(head))
    lines.append("    z = y * " + rng.choice(["np.sum(c)", "c[-1]", "1.0", "np.sum(x * x)"]))
    scalar = rng.random() < 0.5
    lines.append("    return " + (rng.choice(["np.sum(z * z)", "np.sum(np.sin(z)) + z[0]"])
                                  if scalar else "z"))
    return "\n".join(lines) + "\n", scalar, writes


def central(f, x, c, n, eps=1e-6):
    """The Jacobian (or gradient) of f at x by central differences (f may write x)."""
    out = []
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out.append((np.asarray(f(up, c.copy(), n)) - np.asarray(f(down, c.copy(), n)))
                   / (2 * eps))
    return np.stack(out, axis=-1)


def expected(operator, f, x, c, n):
    jac = central(f, x, c, n)
    if operator == "gradient":
        return jac
    if operator == "jacobian":
        return jac.reshape(-1, x.size)
    if operator == "pushforward":
        return jac @ np.ones(x.size)
    h, size = 1e-3, x.size  # hessian: second central differences
    out = np.zeros((size, size))
    for i in range(size):
        for j in range(size):
            total = 0.0
            for si, sj, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                v = x.copy()
                v[i] += si * h
                v[j] += sj * h
                total += sign * f(v, c.copy(), n)
            out[i, j] = total / (4 * h * h)
    return out


def call(operator, f, x, c, n, prep=None, backend="python"):
    options = {"backend": backend} if prep is None else {"prep": prep}
    extra = {"tangent": np.ones(x.size)} if operator == "pushforward" else {}
    fn = getattr(srcad, f"prepare_{operator}" if prep is False else operator)
    if prep is False:
        return fn(f, x, Constant(c), Constant(n), backend=backend, **extra)
    return fn(f, x.copy(), Constant(c), Constant(n), **extra, **options)


def check(seed: int, backend: str, operators=OPERATORS) -> tuple[str, str]:
    source, scalar, writes = program(seed)
    rng = random.Random(f"prepared calls {seed}")
    with tempfile.NamedTemporaryFile("w", suffix=f"_prep{seed}.py", delete=False) as handle:
        handle.write("import numpy as np\n\n\n" + source)
    namespace: dict = {}
    exec(compile("import numpy as np\n\n\n" + source, handle.name, "exec"), namespace)
    f = namespace["f"]
    operator = rng.choice(["gradient", "hessian"] if scalar else ["jacobian", "pushforward"])
    if operator not in operators:
        return "skipped", operator
    size, n = rng.randint(3, 5), rng.randint(1, 3)
    x, c = rng_array(rng, size), rng_array(rng, 3)
    try:
        prep = call(operator, f, x, c, n, prep=False, backend=backend)
    except SrcadError:
        return "refused", "preparation"
    outcome = "agreed"
    for _ in range(3):
        change = rng.choice(["values", "values", "c shape", "n", "x shape"])
        x2 = rng_array(rng, size + (change == "x shape"))
        c2 = rng_array(rng, 3 + (change == "c shape"))
        n2 = n if change != "n" else 1 + (n % 3)
        fits = change in ("values",) or (change == "n" and operator in ("gradient", "hessian")) \
            or (change == "c shape" and False)
        given = x2.copy()
        try:
            got = call(operator, f, x2, c2, n2, prep=prep)
        except PreparationMismatchError:
            if fits:
                return "wrong", f"{operator} refused a call it fits ({change})"
            outcome = "mismatch refused"
            continue
        except SrcadError:
            return "refused", operator
        if not np.array_equal(x2, given):
            return "wrong", f"{operator} changed the caller's x"
        want = expected(operator, f, x2, c2, n2)
        tol = 1e-3 if operator == "hessian" else 1e-5
        if np.shape(got) != np.shape(want) or not np.allclose(got, want, rtol=tol, atol=tol):
            return "wrong", (f"{operator}{' (f writes x)' if writes else ''} after {change}: "
                             f"shape {np.shape(got)}, expected {np.shape(want)}")
    return outcome, operator + (" writes x" if writes else "")


def rng_array(rng, size):
    return np.array([rng.uniform(0.2, 1.2) for _ in range(size)])


def main():
    parser = seeds_parser(__doc__.splitlines()[0])
    parser.add_argument("--operators", default=",".join(OPERATORS),
                        help="the operators to prepare (comma separated)")
    opts = parser.parse_args()
    operators = tuple(opts.operators.split(","))
    sys.exit(run_seeds("prepared calls", opts, lambda seed: [check(seed, opts.backend,
                                                                   operators)]))


def seeds_parser(description: str) -> argparse.ArgumentParser:
    """The command line every seeded fuzzer of calls takes: --count, --seed, --backend."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="python", choices=["python", "numba"])
    return parser


def seeds_main(title: str, description: str, check) -> None:
    """Run `check(seed, backend)` (a list of (outcome, what)) for the seeds of the command
    line and exit 1 if any was wrong or crashed."""
    opts = seeds_parser(description).parse_args()
    sys.exit(run_seeds(title, opts, lambda seed: check(seed, opts.backend)))


def run_seeds(title: str, opts, results_of) -> int:
    """Check each seed of `opts` (`results_of(seed)`: a list of (outcome, what)); print the
    outcomes counted and the first failures (wrong answers and crashes); 1 if any failed."""
    counts: collections.Counter = collections.Counter()
    failures = []
    for seed in range(opts.seed, opts.seed + opts.count):
        try:
            results = results_of(seed)
        except Exception as err:  # a crash: srcad raised something that is no refusal
            results = [("crashed", f"{type(err).__name__}: {str(err)[:120]}")]
        for outcome, what in results:
            counts[outcome] += 1
            if outcome in ("wrong", "crashed"):
                failures.append((seed, what))
    print(f"{title}, {opts.backend}: {opts.count} programs: {dict(counts)}")
    for seed, what in failures[:20]:
        print(f"  seed {seed}: {what}")
    return 1 if failures else 0

if __name__ == "__main__":
    main()
