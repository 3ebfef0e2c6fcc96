"""numba, reverse mode: a `for` loop's tape reservation counts the records the code makes
after the numba rewrites (srcad/transform/numba_tape_counts.py): one flag per comparison of a
running `min` reserves one value per step, not two; a record in a branch or a loop left
early is still reserved; counts the code cannot bound keep the transform's."""


import gast
import numpy as np
import pytest
from helpers.nearest_programs import nearest_cost

import srcad
from srcad.build import cache
from srcad.build.codegen import to_source
from srcad.transform import numba_stage
from srcad.transform.numba_tape_counts import exact_tape_counts


def _counted(text: str) -> str:
    return to_source(exact_tape_counts(gast.parse(text))).strip()


@pytest.mark.slow  # numba compiles reverse code without the replay
def test_one_flag_per_comparison_reserves_one_value_per_step(monkeypatch):
    pytest.importorskip("numba")
    # the flags alone, without the replay of the last winner (numba_last_winner.py)
    monkeypatch.setattr(numba_stage, "last_winner_steps", lambda tree, namer: tree)
    cache.clear()
    rng = np.random.default_rng(0)
    c, p = rng.normal(size=(5, 3)), rng.normal(size=(17, 3))
    text = srcad.source(nearest_cost, srcad.Reverse, srcad.Duplicated(c, np.zeros_like(c)),
                        srcad.Const(p), backend="numba")
    assert "1.0 if s < closest else 0.0" in text  # the flag (numba_compare_tapes.py)
    flat = "".join(text.split())  # the code's lines may wrap
    assert flat.count("reserve_tape(") == 1
    assert "tape=reserve_tape(tape,tape_size+len(range(centroids.shape[0]))*len(range(points." \
        "shape[0])))" in flat
    g = srcad.grad(nearest_cost, backend="numba")(c, srcad.Const(p))
    np.testing.assert_allclose(g, srcad.grad(nearest_cost, backend="python")(c, srcad.Const(p)),
                               rtol=1e-12, atol=1e-12)
    cache.clear()


def test_records_in_a_branch_count_as_if_it_were_taken():
    got = _counted("def f(tape, tape_size, x, n):\n"
                   "    tape = reserve_tape(tape, tape_size + 9 * len(range(n)))\n"
                   "    for i in range(n):\n"
                   "        if x[i] > 0.0:\n"
                   "            tape[tape_size] = x[i]\n"
                   "            tape_size += 1\n"
                   "        else:\n"
                   "            tape[tape_size] = 0.0\n"
                   "            tape[tape_size + 1] = 1.0\n"
                   "            tape_size += 2\n"
                   "    tape_size -= 1\n"
                   "    return x\n")
    assert "tape = reserve_tape(tape, tape_size + 3 * len(range(n)))" in got


@pytest.mark.parametrize("loop", [
    "    for i in range(n):\n        n = n - 1\n        if i > 0:\n",  # its bound changes
    "    for i in range(n):\n        for j in range(i):\n",  # the inner trip count varies
    "    for i in range(n):\n        while x[i] > 0.0:\n",  # no trip count
    "    for i in range(m[0]):\n        if i > 0:\n",  # an element may be written
])
def test_counts_it_cannot_bound_keep_the_transforms(loop):
    text = ("def f(tape, tape_size, x, n, m):\n"
            "    tape = reserve_tape(tape, tape_size + 7 * len(range(n)))\n"
            + loop +
            "            tape[tape_size] = x[i]\n"
            "            tape_size += 1\n"
            "    return x\n")
    assert "tape_size + 7 * len(range(n))" in _counted(text)


def test_records_after_a_pop_belong_to_another_reservation():
    got = _counted("def f(tape, tape_size, x, n):\n"
                   "    tape = reserve_tape(tape, tape_size + 5 * len(range(n)))\n"
                   "    for i in range(n):\n"
                   "        tape[tape_size] = x[i]\n"
                   "        tape_size += 1\n"
                   "    tape_size -= 1\n"
                   "    for i in range(n):\n"
                   "        tape[tape_size] = x[i]\n"
                   "        tape[tape_size + 1] = x[i]\n"
                   "        tape_size += 2\n"
                   "    return x\n")
    assert "tape = reserve_tape(tape, tape_size + len(range(n)))" in got
