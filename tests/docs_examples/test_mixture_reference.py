"""The hand-derived NumPy gradient in examples/mixture.py matches finite differences.

This pins the reference that srcad's reverse mode is compared against; it does not import srcad.
"""

import importlib.util
from pathlib import Path

import numpy as np

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mixture.py"


def load_mixture_example():
    spec = importlib.util.spec_from_file_location("mixture_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def central_differences(f, params, data, step=1e-6):
    gradient = np.zeros_like(params)
    for i in range(len(params)):
        h = step * max(1.0, abs(params[i]))
        up, down = params.copy(), params.copy()
        up[i] += h
        down[i] -= h
        gradient[i] = (f(up, data) - f(down, data)) / (2.0 * h)
    return gradient


def test_numpy_gradient_matches_central_differences_of_loop_primal():
    mixture = load_mixture_example()
    params, data = mixture.make_problem(N=50, K=3)
    analytic = mixture.mixture_gradient_numpy(params, data)
    numeric = central_differences(mixture.mixture_loglikelihood, params, data)
    scale = np.maximum(np.abs(analytic), 1.0)
    assert np.max(np.abs(analytic - numeric) / scale) < 1e-6


def test_numpy_gradient_handles_negative_standard_deviations():
    # The primal sees only s*s, so flipping a sign must flip only that s-derivative.
    mixture = load_mixture_example()
    params, data = mixture.make_problem(N=20, K=2)
    flipped = params.copy()
    flipped[-1] = -flipped[-1]
    gradient = mixture.mixture_gradient_numpy(params, data)
    gradient_flipped = mixture.mixture_gradient_numpy(flipped, data)
    np.testing.assert_allclose(gradient_flipped[:-1], gradient[:-1], rtol=1e-12)
    np.testing.assert_allclose(gradient_flipped[-1], -gradient[-1], rtol=1e-12)
