"""`compile="background"` of the function transforms and operators
(`python fuzz/background_transforms.py --count 12`): the random loop programs `f(x, c)` of
fuzz/background_calls.py, differentiated by one of `grad`, `value_and_grad`, `jacfwd`,
`jacrev`, `gradient`, `value_and_gradient` or a `prepare_gradient` preparation, each with
`backend="numba", compile="background"`. The first answer comes from the python backend
while numba compiles on a thread, the answer after `srcad.build.background.wait()` from
numba; both must agree with central finite differences and with each other, and a program
srcad refuses must be refused by both. The choice of transform comes from
`random.Random(f"background transforms {seed}")`, a stream of its own.

    python fuzz/background_transforms.py --count 12 --seed 0
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

import srcad  # noqa: E402
from fuzz.background_calls import case, program  # noqa: E402
from srcad.build import background  # noqa: E402
from srcad.errors import SrcadError  # noqa: E402


def _transform(name):
    """(x, c) -> the gradient, by the transform or operator `name`, in the background."""
    options = {"backend": "numba", "compile": "background"}
    if name in ("grad", "jacfwd", "jacrev"):
        return lambda f: getattr(srcad, name)(f, **options)
    if name == "value_and_grad":
        return lambda f: lambda x, c: srcad.value_and_grad(f, **options)(x, c)[1]
    if name == "value_and_gradient":
        return lambda f: lambda x, c: srcad.value_and_gradient(
            f, x, srcad.Constant(c), **options)[1]
    if name == "gradient":
        return lambda f: lambda x, c: srcad.gradient(f, x, srcad.Constant(c), **options)

    def prepared(f):
        kept = {}

        def gradient(x, c):
            if "prep" not in kept:
                kept["prep"] = srcad.prepare_gradient(f, x, srcad.Constant(c), **options)
            return srcad.gradient(f, x, srcad.Constant(c), prep=kept["prep"])
        return gradient
    return prepared


NAMES = ["grad", "value_and_grad", "jacfwd", "jacrev", "gradient", "value_and_gradient",
         "prepare_gradient"]


def check(seed: int) -> tuple:
    name = random.Random(f"background transforms {seed}").choice(NAMES)
    f, x, c, expected = case(seed, "bgt")
    gradient = _transform(name)(f)
    answers = []
    for _ in range(2):  # python's answer while numba compiles, then numba's
        try:
            answers.append(np.asarray(gradient(x, c)))
        except SrcadError:
            answers.append(None)
        background.wait()
    if background.answered.get((f, "python"), 0) < 1 \
            or background.answered.get((f, "numba"), 0) < 1:
        return name, "no switch"
    if any(a is None for a in answers):
        return name, "refused" if all(a is None for a in answers) else "one refused"
    scale = max(np.max(np.abs(expected)), 1e-12)
    if any(np.max(np.abs(a - expected)) > 1e-5 * scale for a in answers):
        return name, "disagreed"
    if not np.allclose(answers[0], answers[1], rtol=1e-10, atol=1e-13):
        return name, "backends differ"
    return name, "agreed"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    outcomes, used = collections.Counter(), collections.Counter()
    for seed in range(args.seed, args.seed + args.count):
        name, outcome = check(seed)
        outcomes[outcome] += 1
        used[name] += 1
        if outcome not in ("agreed", "refused"):
            print(f"seed {seed} ({name}): {outcome}\n{program(seed)}", flush=True)
    print(f"background transforms: {args.count} programs: {dict(outcomes)}; "
          f"by transform: {dict(used)}")
    return 0 if set(outcomes) <= {"agreed", "refused"} else 1


if __name__ == "__main__":
    sys.exit(main())
