"""try statements on constants and library objects (random generators) made inside the
function run as they are; an argument that carries a derivative is refused by line."""

import re

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad.errors import SrcadError

X = np.array([1.0, 2.0, 3.0])
TEXT = "3"


def parsed_count(x):
    try:
        k = int(TEXT)
    except ValueError:
        k = 1
    return x[k - 1] * k


def reparameterized(x):
    rng = np.random.default_rng(0)
    eps = rng.normal(size=3)
    return np.sum(x * eps) + eps[0] * x[1] ** 2


def legacy_random(x):
    eps = np.random.RandomState(0).randn(3)
    return np.sum(np.sin(x) * eps)


@pytest.mark.parametrize("f", [parsed_count, reparameterized, legacy_random])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_constant_blocks_match_central_differences(f, mode):
    np.testing.assert_allclose(srcad.gradient(f, X, mode=mode), central(f, X), rtol=1e-6)


def test_reparameterization_exact():
    eps = np.random.default_rng(0).normal(size=3)
    np.testing.assert_allclose(srcad.grad(reparameterized)(X),
                               eps + np.array([0.0, 2 * eps[0] * X[1], 0.0]), rtol=1e-12)


def test_constant_blocks_in_vector_mode():
    lanes = srcad.pushforward(legacy_random, X, tangent=(np.eye(3)[0], np.eye(3)[2]))
    np.testing.assert_allclose(lanes, central(legacy_random, X)[[0, 2]], rtol=1e-6)


@pytest.mark.slow
def test_reparameterization_on_numba():
    np.testing.assert_allclose(srcad.grad(reparameterized, backend="numba")(X),
                               central(reparameterized, X), rtol=1e-6)


def noise_scaled_by_x(x):
    rng = np.random.default_rng(0)
    eps = rng.normal(x[0], size=3)
    return np.sum(x * eps)


def try_on_varied_values(x):
    try:
        k = int(x[0])
    except ValueError:
        k = 1
    return k * x[1]


def try_with_finally(x):
    try:
        k = int(TEXT)
    finally:
        k = 2
    return k * x[1]


@pytest.mark.parametrize("f, words", [(noise_scaled_by_x, "library object: .*reads `x`"),
                                      (try_on_varied_values, "try/except: .*reads `x`"),
                                      (try_with_finally, "try")])
def test_varied_arguments_and_other_try_forms_refused_by_line(f, words):
    with pytest.raises(SrcadError, match=words) as info:
        srcad.grad(f)(X)
    assert f.__code__.co_firstlineno < info.value.line <= f.__code__.co_firstlineno + 2
    assert not re.search(r"\b(constant_block|try_block)", str(info.value))  # srcad's names
