"""Second order on the numba backend (reverse over forward): hvp, hessian and
second_derivative of a scalar-loop program and of an array program, against central
differences of the numba gradient and against the python backend (forward over reverse);
and the refusals. One preparation per program and backend, shared by the tests (numba
compiles each once).
"""

import math

import numpy as np
import pytest

import srcad
from srcad import Constant

pytest.importorskip("numba")


def chain_energy(x, p):
    s = 0.0
    for i in range(len(x) - 1):
        d = x[i + 1] - x[i] * x[i]
        s += p[i] * d * d + math.sin(x[i] * x[i + 1])
    return s


def array_energy(x, p):
    return np.sum(np.tanh(p * x)) + np.dot(x, x) ** 2


def gathered_cubes(x, idx):
    y = x[idx]  # the numba reverse of a gather needs np.add.at
    return np.sum(y * y * y)


def quartic(x):
    return x ** 4 + math.exp(-x)


X = np.array([0.3, -0.7, 1.1, 0.4, -0.2])
P = np.array([1.5, 0.5, 2.0, 0.8, 1.2])
PROGRAMS = {"scalar_loop": chain_energy, "array": array_energy}


@pytest.fixture(scope="module")
def hessians():
    """name -> (numba Hessian, python Hessian, numba hvp preparation)."""
    out = {}
    for name, f in PROGRAMS.items():
        prep = srcad.prepare_hessian(f, X, Constant(P), backend="numba")
        numba_h = srcad.hessian(f, X, Constant(P), prep=prep).copy()
        python_h = srcad.hessian(f, X, Constant(P), backend="python")
        hvp_prep = srcad.prepare_hvp(f, X, Constant(P), tangent=X, backend="numba")
        out[name] = (numba_h, python_h, hvp_prep)
    return out


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("name", PROGRAMS)
def test_numba_hessian_matches_central_differences_of_the_numba_gradient(name, hessians):
    f, (numba_h, _, _) = PROGRAMS[name], hessians[name]
    h = 1e-5
    prep = srcad.prepare_gradient(f, X, Constant(P), backend="numba")
    columns = [(srcad.gradient(f, X + h * e, Constant(P), prep=prep)
                - srcad.gradient(f, X - h * e, Constant(P), prep=prep)) / (2 * h)
               for e in np.eye(len(X))]
    np.testing.assert_allclose(numba_h, np.array(columns).T, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(numba_h, numba_h.T, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("name", PROGRAMS)
def test_numba_second_order_matches_the_python_backend(name, hessians):
    f, (numba_h, python_h, hvp_prep) = PROGRAMS[name], hessians[name]
    assert hvp_prep.mode == "reverse-over-forward"
    np.testing.assert_allclose(numba_h, python_h, rtol=1e-12, atol=1e-12)
    v = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    got = srcad.hvp(f, X, Constant(P), tangent=v, prep=hvp_prep)
    np.testing.assert_allclose(got, python_h @ v, rtol=1e-12, atol=1e-12)
    # a second point through the same preparation (buffers refilled, not stale)
    x2 = X[::-1].copy()
    got2 = srcad.hvp(f, x2, Constant(P), tangent=v, prep=hvp_prep)
    np.testing.assert_allclose(got2, srcad.hvp(f, x2, Constant(P), tangent=v), rtol=1e-12)


def test_numba_second_derivative_of_a_float_input():
    x = 0.7
    want = 12.0 * x * x + math.exp(-x)  # by hand
    assert srcad.second_derivative(quartic, x, backend="numba") == pytest.approx(want,
                                                                                  rel=1e-13)


def test_python_backend_runs_reverse_over_forward_when_asked(hessians):
    _, python_h, _ = hessians["scalar_loop"]
    got = srcad.hessian(chain_energy, X, Constant(P), mode="reverse-over-forward")
    np.testing.assert_allclose(got, python_h, rtol=1e-12, atol=1e-12)


def test_numba_hessian_refuses_chunks_and_forward_over_reverse():
    with pytest.raises(srcad.ArgumentError, match="one Hessian column per pass"):
        srcad.prepare_hessian(chain_energy, X, Constant(P), chunk=4, backend="numba")
    with pytest.raises(srcad.ArgumentError, match="reverse over forward"):
        srcad.prepare_hvp(chain_energy, X, Constant(P), tangent=X, backend="numba",
                          mode="forward-over-reverse")


def test_numba_hvp_through_index_arrays_agrees_with_the_hand_derived_one():
    # numba's forward code reads through index arrays too (once refused by line here);
    # H v = (6 x0 v0, 0, 12 x2 v2) (x2 gathered twice)
    x, v = np.array([0.3, 0.5, -0.2]), np.array([1.0, 2.0, 3.0])
    expected = [6 * 0.3 * 1.0, 0.0, 12 * -0.2 * 3.0]
    for options in ({"backend": "numba"}, {"mode": "reverse-over-forward"}):
        got = srcad.hvp(gathered_cubes, x, Constant(np.array([0, 2, 2])), tangent=v, **options)
        np.testing.assert_allclose(got, expected, rtol=1e-13)
