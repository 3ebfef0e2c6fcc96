"""Composed transforms on the numba backend (`jacfwd(grad(f), backend='numba')`): numba
compiles each level of srcad's derivative code at its first call; where it refuses a
construct of that code (`reversed(range(n)[:trips])`, from a loop left early), the level's
python code runs instead of a numba TypingError reaching the user (a fuzzer's second-order
program crashed so)."""

import numpy as np
import pytest
from helpers.differences import central  # noqa: E402

import srcad

pytestmark = pytest.mark.slow  # numba compiles the derivative code


def returns_from_a_loop(x):
    s = 0.0
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i] * 1.663
        if acc > 1.578:
            return acc * x[i] + s
    s += acc * 0.805
    p = np.exp(x * -0.451)
    p[1:] += -0.634
    return s + p[-1] * x[0] + np.sum(x ** 2) * -0.878


@pytest.mark.parametrize("x", [np.array([0.3, 0.2, -0.4]), np.array([0.9, 0.8, -0.4])],
                         ids=["runs through", "returns early"])
def test_jacfwd_of_grad_on_numba_runs_and_agrees(x):
    gradient = srcad.grad(returns_from_a_loop, backend="numba")
    H = srcad.jacfwd(gradient, backend="numba")(x.copy())
    np.testing.assert_allclose(H, srcad.jacfwd(srcad.grad(returns_from_a_loop))(x.copy()),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, central(srcad.grad(returns_from_a_loop), x), rtol=1e-6,
                               atol=1e-6)
