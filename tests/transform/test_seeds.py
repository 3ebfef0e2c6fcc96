"""The three seed problems, end to end, in every mode (see ../shared/reference/seed-problems.md).

Expected values are hand-derived (the NumPy analytic mixture gradient in examples/mixture.py,
the seed-002 Jacobian recursion below) or central finite differences; never srcad's output.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from helpers.seed_problems import seed002, square

import srcad
from srcad import BatchDuplicated, Cache, Duplicated, Output

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mixture.py"
spec = importlib.util.spec_from_file_location("seed_mixture_example", EXAMPLE)
mixture = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mixture)


def problem(N, K):
    rng = np.random.default_rng(42)
    data = rng.standard_normal(N)
    params = np.concatenate([rng.random(K), rng.standard_normal(K), 2 * rng.random(K)])
    return params, data


@pytest.mark.parametrize("K", [4, 40])
def test_seed003_reverse_gradient_equals_hand_derived_gradient(K):
    params, data = problem(500, K)
    dparams = np.zeros_like(params)
    srcad.autodiff(srcad.Reverse, mixture.mixture_loglikelihood,
                   Duplicated(params, dparams), data)
    expected = mixture.mixture_gradient_numpy(params, data)
    np.testing.assert_allclose(dparams, expected, rtol=1e-10)


@pytest.mark.parametrize("chunk", [12, 5])
def test_seed003_vector_mode_equals_reverse_mode(chunk):
    """W = 3K in one call, and chunks of W < 3K, to 1e-12 relative."""
    params, data = problem(200, 4)
    reverse = np.zeros_like(params)
    srcad.autodiff(srcad.Reverse, mixture.mixture_loglikelihood,
                   Duplicated(params, reverse), data)
    n = len(params)
    vector = np.zeros(n)
    for start in range(0, n, chunk):
        width = min(chunk, n - start)
        seeds = np.zeros((width, n))
        seeds[np.arange(width), start + np.arange(width)] = 1.0
        vector[start:start + width] = srcad.autodiff(
            srcad.Forward, mixture.mixture_loglikelihood, BatchDuplicated(params, seeds), data)
    np.testing.assert_allclose(vector, reverse, rtol=1e-12)




def seed002_finite_differences(x, h=1e-6):
    n = len(x)
    J = np.zeros((n, n))
    for j in range(n):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        y_up, y_down = np.zeros(n), np.zeros(n)
        seed002(y_up, up, np.zeros(n))
        seed002(y_down, down, np.zeros(n))
        J[:, j] = (y_up - y_down) / (2 * h)
    return J


@pytest.mark.parametrize("chunk", [100, 16])
def test_seed002_jacobian_by_vector_mode_with_caller_allocated_cache_shadow(chunk):
    n = 100
    x = np.random.default_rng(0).random(n)
    J = np.zeros((n, n))
    for start in range(0, n, chunk):
        width = min(chunk, n - start)
        seeds = np.zeros((width, n))
        seeds[np.arange(width), start + np.arange(width)] = 1.0
        dy = np.zeros((width, n))
        dc = np.full((width, n), 123.0)  # a scratch shadow's content never matters
        srcad.autodiff(srcad.Forward, seed002, BatchDuplicated(np.zeros(n), dy),
                       BatchDuplicated(x.copy(), seeds), BatchDuplicated(np.zeros(n), dc))
        J[:, start:start + width] = dy.T
    np.testing.assert_allclose(J, seed002_finite_differences(x), atol=1e-7)


def test_seed002_prepared_jacobian_in_place():
    n = 100
    rng = np.random.default_rng(1)
    y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
    prep = srcad.prepare_jacobian(seed002, Output(y), rng.random(n), Cache(c))
    x = rng.random(n)
    assert srcad.jacobian(seed002, Output(y), x, Cache(c), prep=prep, out=J) is J
    np.testing.assert_allclose(J, seed002_finite_differences(x), atol=1e-7)




@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_seed000_square_jacobian(mode):
    x = np.linspace(-1.0, 2.0, 100)
    J = srcad.jacobian(square, x, mode=mode)
    np.testing.assert_allclose(J, np.diag(2.0 * x), atol=1e-15)
