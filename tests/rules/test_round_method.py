"""x.round(decimals) as a method: a step function, derivative 0 (JAX's answer, at the steps
too), as np.round(x, decimals) has."""

import numpy as np
import pytest

import srcad

X = np.array([1.34, 2.61, -4.12])


def rounded_method(x):
    return np.sum(x.round(decimals=1) * x + x.round())


def rounded_function(x):
    return np.sum(np.round(x, 1) * x + np.round(x))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_round_method_has_derivative_zero_like_the_function(mode):
    np.testing.assert_allclose(srcad.gradient(rounded_method, X, mode=mode), np.round(X, 1))
    np.testing.assert_allclose(srcad.gradient(rounded_method, X, mode=mode),
                               srcad.gradient(rounded_function, X, mode=mode))


def test_round_method_in_vector_mode():
    np.testing.assert_allclose(srcad.jacfwd(lambda x: x.round(1) * x)(X), np.diag(np.round(X, 1)))


def test_round_method_with_out_is_refused():
    def f(x):
        y = np.zeros(3)
        return np.sum(x.round(1, y))
    with pytest.raises(srcad.SrcadError, match="out="):
        srcad.gradient(f, X)


def steps_on_numba(x):
    return np.sum(x.round(1) * x + x.round(decimals=2) + x * np.fix(3.0 * x))


@pytest.mark.slow  # numba compiles
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_round_method_and_fix_compile_on_numba(mode):
    # numba has np.round but not the method, and np.trunc but not np.fix
    expected = np.round(X, 1) + np.fix(3.0 * X)
    np.testing.assert_allclose(srcad.gradient(steps_on_numba, X, backend="numba", mode=mode),
                               expected)
