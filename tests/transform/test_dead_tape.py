"""A value the reverse sweep never reads is not taped. On numba a call (exp, sqrt, ...) is
taped as a result; the leaves only its recomputation would read (its operand `w[i] - m`) are
then not recorded, while the leaves a rule inside it reads (`w[i]` of `w[i] * w[i]`) still
are (srcad/transform/reverse/taped_intermediates.py, `_taped_intermediates_of`)."""

import math

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def exp_of_rewritten(a, b):
    """`w` is rewritten for every r, so `w[i]` read by exp is gone by the reverse sweep; the
    shift `m` is rebound for every r too."""
    w = np.zeros(len(a))
    s = 0.0
    for r in range(len(b)):
        m = b[r] * 0.5
        for i in range(len(a)):
            w[i] = a[i] * b[r]
        for i in range(len(a)):
            s = s + math.exp(w[i] - m)
    return s


def exp_of_product(a, b):
    """The product's rule inside exp reads `w[i]` and `v`: they are recorded as before."""
    w = np.zeros(len(a))
    s = 0.0
    for r in range(len(b)):
        v = b[r] + 1.0
        for i in range(len(a)):
            w[i] = a[i] * b[r]
        for i in range(len(a)):
            s = s + math.exp(w[i] * v * w[i]) + math.sqrt(1.0 + math.sin(w[i]) ** 2)
    return s


def _args():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=4) * 0.5, rng.normal(size=3) * 0.5
    return a, b


def _taped_line(f, backend):
    a, b = _args()
    src = srcad.source(f, srcad.Reverse, srcad.Duplicated(a, np.zeros_like(a)),
                       srcad.Duplicated(b, np.zeros_like(b)), backend=backend)
    return next(line for line in src.splitlines() if line.strip().startswith("Taped:"))


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("f", [exp_of_rewritten, exp_of_product])
def test_gradients(f, backend):
    a, b = _args()
    check_grads(f, srcad.Duplicated(a, np.zeros_like(a)), srcad.Duplicated(b, np.zeros_like(b)),
                backend=backend)


def test_operand_of_a_taped_exp_is_not_taped():
    taped = _taped_line(exp_of_rewritten, "numba")
    assert "exp" in taped
    assert "w[i]" not in taped and " m," not in taped and not taped.rstrip().endswith(" m")


def test_python_backend_recomputes_exp_from_its_operand():
    taped = _taped_line(exp_of_rewritten, "python")  # no call taped: its operand is
    assert "w[i]" in taped


def test_operands_a_rule_inside_the_call_reads_are_still_taped():
    taped = _taped_line(exp_of_product, "numba")
    assert "w[i]" in taped and "exp" in taped
