"""What f returns, as the operators learn it (`python fuzz/output_kinds.py --count 200`): a
random `f(x, c)` (x the float array differentiated, `c` a Constant float array) whose last
line returns a float or an array in one of many spellings, some of them arrays that look like
numbers (`z[:1]`, `np.sum(z, keepdims=True)`, `np.outer(z, z)[0]`). The preparations that
need a float-valued f learn it from srcad's typing of f's returned value, without running f
(srcad/operators/output_kinds.py): each of `gradient`, `hvp`, `pullback` and `pushforward` is
prepared and called, and must give central finite differences' numbers (gradient and hvp of
a float-valued f, pullback and pushforward of any f) or refuse an array-valued f with "needs
f to return a float"; never the derivative of an array taken for a float. The summary counts
the preparations of a float-valued f that ran f and those that did not. Programs come from
`random.Random(f"output kinds {seed}")`.

    python fuzz/output_kinds.py --count 200 --seed 0 [--backend numba]
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
from srcad import Constant  # noqa: E402
from srcad.errors import ArgumentError, SrcadError  # noqa: E402

BODIES = ["z = np.sin(x) * c[0]", "z = x * x + c[1]", "z = np.exp(x * 0.3) - c[:1] * x",
          "z = np.tanh(x) * np.sum(c)"]
FLOATS = ["np.sum(z * z)", "z @ z", "np.dot(z, z)", "float(np.sum(z))", "np.sum(z) * z[0]",
          "np.mean(z * z)", "np.sum(z * z, axis=0)", "z[0] * z[-1]", "np.linalg.norm(z)",
          "np.prod(z[:2])", "np.sum(np.outer(z, z))", "np.max(z * z)", "np.sum(z) + c[0]"]
ARRAYS = ["z", "z[:1]", "np.sum(z, keepdims=True)", "np.outer(z, z)[0]", "z * np.sum(z)",
          "np.cumsum(z)", "z[1:] * z[:-1]", "np.atleast_1d(np.sum(z))", "np.outer(z, z)",
          "z.reshape(1, -1)", "np.stack([z, z])[0]", "np.sum(np.outer(z, z), axis=0)"]


def program(rng) -> str:
    body = rng.choice(BODIES)
    value = rng.choice(FLOATS + ARRAYS)
    return f"def f(x, c):\n    {body}\n    return {value}\n"


def runs_of(function, run):
    """(run()'s result, how many times `function`'s own code ran in CPython meanwhile)."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is function.__code__:
            seen.append(1)

    sys.setprofile(profile)
    try:
        return run(), len(seen)
    finally:
        sys.setprofile(None)


def jacobian(f, x, c, eps=1e-6):
    out = []
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out.append((np.asarray(f(up, c), float) - np.asarray(f(down, c), float)) / (2 * eps))
    return np.stack(out, axis=-1)


def prepared(operator, f, x, c, backend):
    extra = {"tangent": np.ones(x.size)} if operator in ("hvp", "pushforward") else {}
    prepare = getattr(srcad, f"prepare_{operator}")
    prep, runs = runs_of(f, lambda: prepare(f, x, Constant(c), backend=backend, **extra))
    if operator == "pullback":
        extra = {"cotangent": np.ones(np.shape(f(x, c)))}
    return getattr(srcad, operator)(f, x, Constant(c), prep=prep, **extra), runs


def check(seed: int, backend: str) -> list[tuple[str, str]]:
    rng = random.Random(f"output kinds {seed}")
    source = program(rng)
    with tempfile.NamedTemporaryFile("w", suffix=f"_kinds{seed}.py", delete=False) as handle:
        handle.write("import numpy as np\n\n\n" + source)
    namespace: dict = {}
    exec(compile("import numpy as np\n\n\n" + source, handle.name, "exec"), namespace)
    f = namespace["f"]
    x = np.array([rng.uniform(0.2, 1.2) for _ in range(rng.randint(3, 5))])
    c = np.array([rng.uniform(0.2, 1.2) for _ in range(3)])
    returns_float = np.ndim(f(x.copy(), c)) == 0
    jac = jacobian(f, x, c)
    results = []
    for operator in ("gradient", "hvp", "pullback", "pushforward"):
        try:
            got, runs = prepared(operator, f, x.copy(), c, backend)
        except ArgumentError as err:
            needs_float = operator in ("gradient", "hvp") and not returns_float
            if needs_float and "needs f to return a float" in str(err):
                results.append(("array refused", operator))
            else:
                results.append(("refused", f"{operator}: {str(err).splitlines()[0][:80]}"))
            continue
        except SrcadError as err:
            results.append(("refused", f"{operator}: {str(err).splitlines()[0][:80]}"))
            continue
        if operator in ("gradient", "hvp") and not returns_float:
            results.append(("wrong", f"{operator} of an array-valued f: {source.split()[-1]}"))
            continue
        if operator == "hvp":
            hessian = jacobian(lambda v, cc: jacobian(f, v, cc, 1e-4), x, c, 1e-4)
            want = hessian @ np.ones(x.size)
        elif operator == "pullback":
            want = np.ones(np.shape(f(x, c))).reshape(-1) @ jac.reshape(-1, x.size)
        elif operator == "pushforward":
            want = jac @ np.ones(x.size)
        else:
            want = jac
        tol = 1e-3 if operator == "hvp" else 1e-5
        if np.shape(got) != np.shape(want) or not np.allclose(got, want, rtol=tol, atol=tol):
            results.append(("wrong", f"{operator}: shape {np.shape(got)} vs {np.shape(want)}"))
            continue
        kind = "f not run" if returns_float and not runs else "f run" if returns_float \
            else "array"
        results.append((f"agreed ({kind})", operator))
    return results


def main():
    seeds_main("output kinds", __doc__.splitlines()[0], check)


if __name__ == "__main__":
    main()
