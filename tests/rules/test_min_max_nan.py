"""Python's min(x, y) is x unless y < x, and max(x, y) x unless y > x: a NaN second operand
leaves the first the result, so the first gets the derivative (a running min over distances
one of which is NaN keeps the real nearest one, and its gradient). Expected values by hand."""

import math

import numpy as np
import pytest

import srcad


def weighted_extrema(a, b):
    return min(a, b) * 3.0 + max(a, b) * 5.0


def nearest(c, p):
    closest = math.inf
    for j in range(c.shape[0]):
        closest = min(closest, (c[j] - p) * (c[j] - p))
    return closest


def farthest(c, p):
    far = -math.inf
    for j in range(c.shape[0]):
        far = max(far, (c[j] - p) * (c[j] - p))
    return far


BACKENDS = ["python", "numba"]  # numba is a test dependency (pyproject dev extra)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nan_second_operand_leaves_the_first_its_derivative(backend):
    grad = srcad.grad(weighted_extrema, argnums=(0, 1), backend=backend)
    assert min(1.0, math.nan) == 1.0 and max(1.0, math.nan) == 1.0  # Python's semantics
    assert grad(1.0, math.nan) == (8.0, 0.0)
    assert grad(2.0, 2.0) == (8.0, 0.0)  # a tie: the first operand
    assert grad(1.0, 2.0) == (3.0, 5.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, winner", [(nearest, 0), (farthest, 2)])
def test_a_running_extremum_past_a_nan_keeps_its_winner(backend, f, winner):
    c = np.array([1.0, np.nan, 3.0])
    assert f(c, 0.5) == (c[winner] - 0.5) ** 2
    g = srcad.grad(f, backend=backend)(c, 0.5)
    assert g[winner] == 2.0 * (c[winner] - 0.5)  # d/dc (c - p)^2
    assert g[2 - winner] == 0.0
    # the NaN entry: the loop as written adds 0 * d/dc of its NaN distance, NaN (as JAX gives
    # for 0 * NaN); numba's reverse code records the winner alone and gives forward mode's 0
    # (docs/numba_running_extrema.md)
    if backend == "python":
        assert math.isnan(g[1])
    else:
        assert g[1] == 0.0



def extrema_mix(x, y):
    return max(x, y) * 2.0 + min(x, y) * 3.0, max(y, x)


def test_vmap_keeps_pythons_min_and_max_at_nan_and_signed_zeros():
    # lifted to whole-array code: np.maximum(x, nan) would be NaN where max(x, nan) is x
    xs = np.array([1.0, 2.0, np.nan, 0.0, -0.0, 4.0])
    ys = np.array([np.nan, 1.0, 3.0, -0.0, 0.0, 4.0])
    batched = srcad.vmap(extrema_mix)
    assert batched.__srcad_vmap_form__(xs, ys)[0] == "lifted"
    got = batched(xs, ys)
    for k in range(2):
        expected = [extrema_mix(a, b)[k] for a, b in zip(xs.tolist(), ys.tolist())]
        assert [math.isnan(v) for v in got[k]] == [math.isnan(v) for v in expected]
        assert all(g == e and math.copysign(1, g) == math.copysign(1, e)
                   for g, e in zip(got[k], expected) if not math.isnan(e))
    assert got[0][0] == 5.0 and math.isnan(got[1][0])  # max(1, nan) = min(1, nan) = 1
