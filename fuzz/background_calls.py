"""The numba backend's `compile="background"` (`python fuzz/background_calls.py --count 20`):
a random loop program `f(x, c)` (x the float array differentiated, c a constant float array)
is differentiated in reverse and forward mode with `backend="numba", compile="background"`:
the first call of each is answered by the python backend while numba compiles on a thread,
the call after `srcad.build.background.wait()` by numba's code. Each answer must agree with
central finite differences, and the two answers with each other; a program srcad refuses must
be refused by both (the numba refusal raised by the call after the compilation). Programs come
from `random.Random(f"background {seed}")`, a stream of their own.

    python fuzz/background_calls.py --count 20 --seed 0
"""

from __future__ import annotations

import os
import random
import sys
import tempfile

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

from seed_runs import run_seeds  # noqa: E402

import srcad  # noqa: E402
from srcad.build import background  # noqa: E402
from srcad.errors import SrcadError  # noqa: E402

TERMS = ["np.sin({0})", "{0} * {0}", "np.tanh({0}) * 1.5", "np.exp({0} * 0.3)",
         "{0} * c[{1}]", "np.log(1.0 + {0} * {0})", "{0} / (1.0 + c[{1}] * c[{1}])"]


def program(seed: int) -> str:
    """The source of the random f(x, c) of `seed`."""
    rng = random.Random(f"background {seed}")
    lines = ["def f(x, c):", "    s = 0.0"]
    if rng.random() < 0.5:
        lines += ["    for i in range(x.shape[0]):",
                  f"        s += {rng.choice(TERMS).format('x[i]', rng.randint(0, 2))}"]
    else:
        lines += ["    y = np.zeros_like(x)", "    for i in range(x.shape[0]):",
                  f"        y[i] = {rng.choice(TERMS).format('x[i]', rng.randint(0, 2))}",
                  "    for i in range(1, x.shape[0]):",
                  f"        s = s * 0.5 + {rng.choice(TERMS).format('y[i] * x[i - 1]', 1)}"]
    lines.append(f"    return s + {rng.choice(TERMS).format('x[0]', 0)}")
    return "\n".join(lines) + "\n"


def central(f, x, c, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up, c) - f(down, c)) / (2 * eps)
    return out


def case(seed: int, suffix: str = "bg") -> tuple:
    """(f, x, c, central differences of f at x) of `seed`, f's text in a file of its own."""
    source = "import numpy as np\n\n\n" + program(seed)
    with tempfile.NamedTemporaryFile("w", suffix=f"_{suffix}{seed}.py", delete=False) as handle:
        handle.write(source)
    namespace: dict = {}
    exec(compile(source, handle.name, "exec"), namespace)
    f = namespace["f"]
    rng = np.random.default_rng(seed)
    x, c = rng.uniform(-1.0, 1.0, rng.integers(3, 6)), rng.uniform(0.5, 1.5, 3)
    return f, x, c, central(f, x, c)


def check(seed: int) -> str:
    f, x, c, expected = case(seed)
    answers = []
    for _ in range(2):  # python's answer while numba compiles, then numba's
        dx = np.zeros_like(x)
        try:
            srcad.autodiff(srcad.Reverse, f, srcad.Duplicated(x, dx), c, backend="numba",
                           compile="background")
        except SrcadError:
            answers.append(None)
        else:
            answers.append(dx)
        direction = np.ones_like(x)
        try:
            tangent = srcad.autodiff(srcad.Forward, f, srcad.Duplicated(x, direction), c,
                                     backend="numba", compile="background")
        except SrcadError:
            tangent = None
        answers.append(tangent)
        background.wait()
    if background.answered.get((f, "python"), 0) != 2 \
            or background.answered.get((f, "numba"), 0) != 2:
        return "no switch"
    if any(a is None for a in answers):
        return "refused"
    scale = max(np.max(np.abs(expected)), 1e-12)
    for k, answer in enumerate(answers):
        want = expected if k % 2 == 0 else float(np.sum(expected))
        if np.max(np.abs(np.asarray(answer) - want)) > 1e-5 * scale:
            return "disagreed"
    if not (np.allclose(answers[0], answers[2], rtol=1e-10, atol=1e-13)
            and np.isclose(answers[1], answers[3], rtol=1e-10, atol=1e-13)):
        return "backends differ"
    return "agreed"


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=20,
                     accepted=("agreed", "refused"), title="background compile", program=program)


if __name__ == "__main__":
    sys.exit(main())
