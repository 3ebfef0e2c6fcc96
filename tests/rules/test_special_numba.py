"""The numba column of the scipy.special family, generated from the rule table: each function
x operand shapes that broadcast x {reverse, forward, vector} on the numba backend, against
central finite differences. The calls are on values the function computes (`1.0 * x0`), so
they run in the compiled code (srcad/runtime/numba_special.py); a call on the function's own
arguments runs SciPy's before it. The whole matrix compiles one module per case: slow; one
smoke test stays in `make test`."""

import math

import numpy as np
import pytest
import scipy.special

import srcad
from srcad.rules import special
from srcad.testing import check_grads
from tests.helpers import library_rule_cases as cases

SPECIAL = [c for c in cases.elementwise_cases() if c[1].startswith(("scipy.special.", "math.l",
                                                                     "math.g"))
           and c[2] not in special.PYTHON_ENTRIES]  # refused on numba by name


def _annotated(values):
    return [v if isinstance(v, int) else srcad.Active(v) if isinstance(v, float)
            else srcad.Duplicated(v, np.zeros_like(v)) for v in values]


def _computed_call(name, entry):
    """`name(1.0 * x0, ...)`: float operands computed inside the function."""
    xs = [f"x{k}" if isinstance(d, int) else f"1.0 * x{k}" for k, d in enumerate(entry.domain)]
    return f"{name}({', '.join(xs)})"


@pytest.mark.slow
@pytest.mark.parametrize("case", SPECIAL, ids=[c[0] for c in SPECIAL])
def test_rule_agrees_with_finite_differences_on_numba(case):
    _, name, entry, shapes = case
    f = cases.function_of(_computed_call(name, entry), len(entry.domain))
    check_grads(f, *_annotated(cases.arguments(entry, shapes)), rtol=1e-6, backend="numba",
                modes=cases.NUMBA_RULE_MODES)


def test_every_special_entry_has_a_numba_case():
    assert {f"scipy.special.{e.rule.name}" for e in special.ENTRIES} <= {c[1] for c in SPECIAL}


def gammaln_likelihood(alpha, x):
    """A gamma distribution's log-likelihood in its shape (rate 1)."""
    return np.sum((alpha - 1.0) * np.log(x) - x - scipy.special.gammaln(alpha * np.ones(3)))


def test_gammaln_runs_compiled_on_numba_and_agrees_with_the_python_backend():
    x = np.array([0.5, 1.7, 3.2])
    got = srcad.gradient(gammaln_likelihood, 2.3, srcad.Constant(x), backend="numba")
    expected = np.sum(np.log(x)) - 3.0 * scipy.special.digamma(2.3)
    assert got == pytest.approx(expected, rel=1e-13)


def lgamma_of_a_square(x):
    return math.lgamma(x * x) * x


@pytest.mark.slow
def test_math_lgamma_runs_on_numba():
    check_grads(lgamma_of_a_square, srcad.Active(1.3), backend="numba", modes=("rev", "fwd"))


X = np.array([[0.5, 1.2, 2.0], [1.5, 0.7, -0.9]])
W = np.array([[1.0, 2.0, 0.5], [0.3, 1.0, 2.0]])


def shaped_family(x, w):
    """logsumexp, softmax and log_softmax along axes, on values computed inside."""
    y = 1.0 * x
    return (np.sum(scipy.special.logsumexp(y, axis=1) ** 2)
            + scipy.special.logsumexp(y, b=1.0 * w)
            + np.sum(scipy.special.logsumexp(y, axis=-1, keepdims=True) * X)
            + scipy.special.logsumexp(y, (0, 1))
            + np.sum(scipy.special.softmax(y, axis=0) * W)
            + np.sum(scipy.special.log_softmax(y, axis=1) * W)
            + np.sum(scipy.special.log_softmax(y) * W))


@pytest.mark.slow
def test_logsumexp_softmax_log_softmax_on_numba():
    check_grads(shaped_family, srcad.Duplicated(X.copy(), np.zeros_like(X)),
                srcad.Duplicated(W.copy(), np.zeros_like(W)), backend="numba")
