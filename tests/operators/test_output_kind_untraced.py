"""The operators learn that f returns a float from srcad's typing of f's code, not by
running f in CPython (minutes at GradBench's k-means default sizes); an f returning an array
is still refused by the operators that need a float."""

import sys

import numpy as np
import pytest

import srcad
from srcad.errors import ArgumentError


def cost(c, points):
    total = 0.0
    for i in range(points.shape[0]):
        closest = np.inf
        for j in range(c.shape[0]):
            d = 0.0
            for k in range(c.shape[1]):
                d += (c[j, k] - points[i, k]) * (c[j, k] - points[i, k])
            closest = min(closest, d)
        total += closest
    return total


def spread(c, points):
    total = 0.0
    for i in range(points.shape[0]):
        d = c[0] - points[i]
        total += np.sum(d * d * c[1])
    return total


def squares(x):
    return x * x


def _calls_of(function, run):
    """How many times `function`'s own code ran in CPython during `run()`."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is function.__code__:
            seen.append(frame)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return len(seen)


C = np.array([[0.0, 0.1], [1.0, 0.9]])
POINTS = np.array([[0.1, 0.2], [0.9, 1.1], [0.2, -0.1]])


@pytest.mark.parametrize("prepare", [
    lambda: srcad.prepare_gradient(cost, C, srcad.Constant(POINTS)),
    lambda: srcad.prepare_gradient(cost, C, srcad.Constant(POINTS), mode="forward"),
    lambda: srcad.prepare_hvp(spread, C, srcad.Constant(POINTS), tangent=np.ones_like(C)),
    lambda: srcad.prepare_gradient_and_hvp(spread, C, srcad.Constant(POINTS),
                                           tangent=np.ones_like(C)),
    lambda: srcad.prepare_pullback(cost, C, srcad.Constant(POINTS)),
    lambda: srcad.prepare_pushforward(cost, C, srcad.Constant(POINTS),
                                      tangent=np.ones_like(C)),
], ids=["gradient", "gradient-forward", "hvp", "gradient_and_hvp", "pullback", "pushforward"])
def test_preparing_a_float_valued_f_does_not_run_it(prepare):
    assert _calls_of(cost, prepare) == 0 and _calls_of(spread, prepare) == 0


@pytest.mark.slow  # forward over reverse of a triple loop: ~1.4 s
def test_the_prepared_second_order_pass_matches_the_hand_derivative():
    prep = srcad.prepare_gradient_and_hvp(cost, C, srcad.Constant(POINTS),
                                          tangent=np.ones_like(C))
    g, h = srcad.gradient_and_hvp(cost, C, srcad.Constant(POINTS), tangent=np.ones_like(C),
                                  prep=prep)
    # centroid 0 is closest to points 0 and 2, centroid 1 to point 1
    want_g = np.array([2 * (C[0] - POINTS[0]) + 2 * (C[0] - POINTS[2]), 2 * (C[1] - POINTS[1])])
    np.testing.assert_allclose(g, want_g, atol=1e-12)
    np.testing.assert_allclose(h, [[4.0, 4.0], [2.0, 2.0]], atol=1e-12)


@pytest.mark.parametrize("operator", ["gradient", "hvp", "hessian"])
def test_an_array_valued_f_is_still_refused(operator):
    x = np.array([1.0, 2.0])
    options = {"tangent": x} if operator == "hvp" else {}
    with pytest.raises(ArgumentError, match=f"{operator} needs f to return a float"):
        getattr(srcad, operator)(squares, x, **options)


def energy(params, scale):
    w = params["w"]
    return np.sum(w * w * w) * scale + params["b"] * np.sum(w)


def test_a_container_hvp_does_not_run_a_float_valued_f():
    params = {"w": np.array([1.0, 2.0]), "b": 0.5}
    tangent = {"w": np.array([1.0, 0.0]), "b": 1.0}
    hv, runs = None, 0

    def run():
        nonlocal hv
        hv = srcad.hvp(energy, params, srcad.Constant(2.0), tangent=tangent)

    runs = _calls_of(energy, run)
    assert runs == 0
    # H = [[6 w0 s + 0, 0, 1], [0, 6 w1 s, 1], [1, 1, 0]] at w = (1, 2), s = 2
    np.testing.assert_allclose(hv["w"], [12.0 + 1.0, 1.0])
    assert hv["b"] == pytest.approx(1.0)


def zero_dim(x):
    return np.asarray(np.sum(x * x * x))


def test_a_zero_dimensional_array_result_is_a_float_as_jax_takes_it():
    # srcad types a 0-d array as the float it holds; jax.grad takes a shape-() output too
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(srcad.gradient(zero_dim, x), 3 * x * x)
    np.testing.assert_allclose(srcad.hvp(zero_dim, x, tangent=np.ones(3)), 6 * x)
