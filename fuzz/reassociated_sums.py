"""Reassociated sums on the numba backend (`python fuzz/reassociated_sums.py --count 20`):
each sum-loop program of fuzz/grammar_sums.py (the seeds `sum_seed` picks, made by
`generate(seed, nests=True)`: loops adding exp terms into float sums, some carrying values
from one iteration to the next) is differentiated in reverse mode on the numba backend twice,
with its sums added in the order written (srcad's default) and with
`SRCAD_NUMBA_REASSOCIATE=1` (build/numba_fastmath.py). The two answers (the value, the
derivatives of the Active floats, the shadows and final contents of the Duplicated arrays)
must agree within a relative 1e-9 of each quantity's size, and the reassociated code must
agree with central finite differences in forward and reverse mode (`srcad.testing.
check_grads`); a program srcad refuses must be refused with both settings. The primal computed
by srcad's numba code (its forward code with every argument constant, as srcad's GradBench
tool times it: loops adding exponentials call `simd_exp`, also inside other loops when
reassociated, srcad/transform/numba_exp_sums.py) must agree with both settings' reverse-mode
values within the same tolerance, and so must the arrays it writes.

    python fuzz/reassociated_sums.py --count 20 --seed 0
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # after PYTHONPATH

from checking import load_module  # noqa: E402
from generator import generate, module_text  # noqa: E402
from grammar_sums import sum_seed  # noqa: E402
from inputs import choose_inputs  # noqa: E402
from seed_runs import run_seeds  # noqa: E402

import srcad  # noqa: E402
from srcad.errors import SrcadError  # noqa: E402
from srcad.testing import check_grads  # noqa: E402

VARIABLE = "SRCAD_NUMBA_REASSOCIATE"
RTOL = 1e-9  # reassociation changes the last bits of a sum of a few terms, not more


def sum_seeds(start: int, count: int) -> list:
    """The first `count` seeds from `start` whose program is a sum-loop program."""
    seeds, seed = [], start
    while len(seeds) < count:
        if sum_seed(seed):
            seeds.append(seed)
        seed += 1
    return seeds


def reverse_answer(f, make_args) -> list:
    """Every number one reverse call gives: the value, the Active derivatives, and each
    Duplicated array's final contents and shadow."""
    args = make_args()
    derivatives, value = srcad.autodiff(srcad.ReverseWithPrimal, f, *args, backend="numba")
    out = [np.asarray(0.0 if value is None else value, dtype=float)]
    out += [np.asarray(d, dtype=float) for d in derivatives if d is not None]
    for a in args:
        if isinstance(a, srcad.Duplicated):
            out += [np.asarray(a.value, dtype=float), np.asarray(a.shadow, dtype=float)]
    return out


def primal_answer(f, make_args) -> list:
    """The value of srcad's numba primal (every argument constant) and each array argument's
    final contents, in the order `reverse_answer` gives them (no derivatives)."""
    args = make_args()
    annotated = (srcad.Const, srcad.Active, srcad.Duplicated)
    values = [a.value if isinstance(a, annotated) else a for a in args]
    value = srcad.autodiff(srcad.ForwardWithPrimal, f, *map(srcad.Const, values),
                           backend="numba")[-1]
    out = [np.asarray(0.0 if value is None else value, dtype=float)]
    for a, v in zip(args, values):
        if isinstance(a, srcad.Duplicated):
            out.append(np.asarray(v, dtype=float))
    return out


def reverse_values(answer: list, args) -> list:
    """The value and array contents of a `reverse_answer` (derivatives and shadows left out)."""
    duplicated = sum(isinstance(a, srcad.Duplicated) for a in args)
    arrays = answer[len(answer) - 2 * duplicated:]
    return [answer[0]] + arrays[0::2]


def agree(first: list, second: list) -> bool:
    for a, b in zip(first, second):
        scale = max(float(np.max(np.abs(a), initial=0.0)), 1e-300)
        if not np.all(np.abs(b - a) <= RTOL * scale):
            return False
    return len(first) == len(second)


def with_setting(setting: str, run):
    """`run()` with SRCAD_NUMBA_REASSOCIATE=`setting`, srcad's in-process caches emptied
    before and after (the setting is read when srcad builds a function's code)."""
    before = os.environ.get(VARIABLE)
    os.environ[VARIABLE] = setting
    srcad.build.cache.clear()
    try:
        return run()
    finally:
        srcad.build.cache.clear()
        if before is None:
            os.environ.pop(VARIABLE, None)
        else:
            os.environ[VARIABLE] = before


def check(seed: int) -> str:
    """'agreed', 'refused', 'skipped' (no acceptable inputs), or what went wrong."""
    program = generate(seed, nests=True)
    values, _ = choose_inputs(program)
    if values is None:
        return "skipped"
    module, name = load_module(module_text(program, values))
    try:
        f = module.f
        answers = []
        for setting in ("0", "1"):
            try:
                answers.append(with_setting(setting, lambda: reverse_answer(f, module.args)))
            except SrcadError:
                answers.append(None)
        if answers[0] is None or answers[1] is None:
            return "refused" if answers[0] is answers[1] is None else "refused by one"
        if not agree(*answers):
            return "settings differ"
        reference = reverse_values(answers[0], module.args())
        for setting in ("0", "1"):
            try:
                primal = with_setting(setting, lambda: primal_answer(f, module.args))
            except SrcadError:
                return f"primal refused: setting {setting}"
            if not agree(reference, primal):
                return f"primal differs: setting {setting}"
        try:
            with np.errstate(all="ignore"):
                with_setting("1", lambda: check_grads(f, *module.args(), modes=("fwd", "rev"),
                                                      backend="numba"))
        except AssertionError:
            return "disagreed"
        return "agreed"
    finally:
        sys.modules.pop(name, None)


def main(argv=None) -> int:
    return run_seeds(__doc__.splitlines()[0], check, argv, count=20,
                     accepted=("agreed", "refused", "skipped"), title="reassociated sums",
                     seeds=sum_seeds, program=lambda seed: generate(seed, nests=True).source)


if __name__ == "__main__":
    sys.exit(main())
