"""A method of a library object called inside a larger expression
(`np.sum(np.random.RandomState(0).randn(3) * x)`) runs as a constant, as it does when bound
to a name of its own; one given a value that carries a derivative is still refused by line."""

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad.errors import SrcadError

X = np.array([0.3, 0.7, 1.1])


def legacy_inline(x):
    return np.sum(np.random.RandomState(0).randn(3) * x ** 2)


def generator_inline(x):
    return np.sum(x * np.random.default_rng(0).normal(size=3)) + x[0]


def two_inline(x):
    y = np.sin(x) * np.random.RandomState(1).rand(3) + np.random.RandomState(2).randn(3)
    return np.sum(y * y)


@pytest.mark.parametrize("f", [legacy_inline, generator_inline, two_inline])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_inline_library_object_calls_are_constants(f, mode):
    np.testing.assert_allclose(srcad.gradient(f, X, mode=mode), central(f, X), rtol=1e-6,
                               atol=1e-8)


def test_inline_library_object_calls_on_numba():
    np.testing.assert_allclose(srcad.gradient(generator_inline, X, backend="numba"),
                               central(generator_inline, X), rtol=1e-6)


def shifted_draws(x):
    return np.sum(np.random.default_rng(0).normal(x[0], size=3) * x)


def test_an_inline_call_given_a_varied_value_is_refused_by_line():
    with pytest.raises(SrcadError) as info:
        srcad.grad(shifted_draws)(X)
    assert "normal(x[0]" in open(__file__).read().splitlines()[info.value.line - 1]
