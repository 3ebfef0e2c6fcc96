"""numba, reverse mode: two values recorded only for the reverse sweep of a running `min`
or `max` to compare are recorded as the comparison's outcome
(srcad/transform/numba_compare_tapes.py): the python backend's bits, ties and NaN operands
as `min` and `max` break them, gradients against central differences, forward mode and
reverse over forward."""

import math

import gast
import numpy as np
import pytest
from helpers.nearest_programs import nearest_cost
from helpers.nearest_programs import nearest_data as _data

import srcad
from srcad.build.codegen import to_source
from srcad.testing import check_grads
from srcad.transform.names import Namer
from srcad.transform.numba_compare_tapes import compare_tapes


def farthest_scaled(centroids, points, w):
    total = 0.0
    for i in range(points.shape[0]):
        far = -math.inf
        for j in range(centroids.shape[0]):
            far = max(far, w * (points[i, 0] - centroids[j, 0]) ** 2 + centroids[j, 1])
        total += far * far
    return total


def test_the_running_min_records_one_flag_per_step(monkeypatch):
    # without the replay of the last winner alone (numba_last_winner.py), which comes after
    from srcad.build import cache
    from srcad.transform import numba_stage
    monkeypatch.setattr(numba_stage, "last_winner_steps", lambda tree, namer: tree)
    cache.clear()  # code built with it
    c, p = _data()
    text = srcad.source(nearest_cost, srcad.Reverse, srcad.Duplicated(c, np.zeros_like(c)),
                        srcad.Const(p), backend="numba")
    assert "records only whether s < closest" in text
    assert "tape[tape_size] = 1.0 if s < closest else 0.0" in text
    assert "tape[tape_size] = s\n" not in text
    cache.clear()  # code built without it


@pytest.mark.parametrize("seed", [0, 1])
def test_gradients_have_the_python_backends_bits_with_ties(seed):
    c, p = _data(seed=seed)
    c[3] = c[1]  # a tie: the first of two equal centroids takes the point
    p[4] = c[1]  # a distance of exactly zero
    by_python = srcad.grad(nearest_cost, argnums=(0, 1), backend="python")(c, p)
    by_numba = srcad.grad(nearest_cost, argnums=(0, 1), backend="numba")(c, p)
    for got, want in zip(by_numba, by_python):
        assert np.array_equal(got, want)
    assert not np.any(by_numba[0][3])  # the second of the tied centroids takes nothing
    c, p = _data(seed=seed)  # away from ties
    check_grads(nearest_cost, srcad.Duplicated(c, np.zeros_like(c)), srcad.Duplicated(
        p, np.zeros_like(p)), backend="numba", modes=("rev",))


def test_a_nan_operand_leaves_the_derivative_with_the_running_value():
    # Python's min(closest, nan) is closest: a NaN distance wins no point
    c, p = _data(k=4, n=9, seed=3)
    p[2, 1] = math.nan  # every distance of point 2 is NaN: its closest stays inf
    c_finite, p_finite = c.copy(), np.delete(p, 2, axis=0)
    with np.errstate(invalid="ignore"):
        by_forward = srcad.jacfwd(nearest_cost, backend="python")(c, srcad.Const(p))
        by_numba = srcad.grad(nearest_cost, backend="numba")(c, srcad.Const(p))
    np.testing.assert_allclose(by_numba, by_forward, rtol=1e-12, atol=1e-14)
    want = srcad.grad(nearest_cost, backend="python")(c_finite, srcad.Const(p_finite))
    np.testing.assert_allclose(by_numba, want, rtol=1e-12, atol=1e-14)


def test_max_with_a_float_argument_against_central_differences_and_forward_mode():
    c, p = _data(k=4, n=7, d=2, seed=5)
    check_grads(farthest_scaled, srcad.Duplicated(c, np.zeros_like(c)), srcad.Const(p),
                srcad.Active(1.5), backend="numba", modes=("rev",))
    c[2] = c[0]  # a tie (no derivative there): max keeps the first
    by_numba = srcad.grad(farthest_scaled, argnums=(0, 2), backend="numba")(c, p, 1.5)
    by_forward = srcad.jacfwd(farthest_scaled, argnums=(0, 2), backend="python")(c, p, 1.5)
    for got, want in zip(by_numba, by_forward):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert not np.any(by_numba[0][2])


def test_gradient_and_hvp_reverse_over_forward_matches_the_python_backend():
    c, p = _data(k=6, n=30, d=4, seed=2)
    v = np.random.default_rng(7).normal(size=c.shape)
    got = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v,
                                 backend="numba")
    want = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v,
                                  backend="python")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def _rewritten(uses, between="pass", before="e = x[j] * x[j]", again="pass"):
    text = ("def f(x, y, tape, g):\n"
            "    tape_size = 0\n"
            f"    {again}\n"
            "    m = 9.0\n"
            "    for j in range(4):\n"
            f"        {before}\n"
            "        tape[tape_size] = m\n"
            "        tape_size += 1\n"
            f"        {between}\n"
            "        m = min(m, e)\n"
            "        tape[tape_size] = e\n"
            "        tape_size += 1\n"
            "    for j in range(3, -1, -1):\n"
            "        tape_size -= 1\n"
            "        e = tape[tape_size]\n"
            "        tape_size -= 1\n"
            "        m = tape[tape_size]\n"
            f"        {uses}\n"
            "    return y\n")
    tree = gast.parse(text)
    return "records only whether" in to_source(compare_tapes(tree, Namer.for_tree(tree)))


def test_only_pairs_read_in_one_comparison_alone_are_rewritten():
    assert _rewritten("if e < m:\n            y[j] += g")
    assert _rewritten("y[j] += g if m > e else 0.0\n        y[0] += g if m > e else 1.0")
    # read outside a comparison, in two different comparisons, e assigned between the
    # records or not before the first: left as written
    assert not _rewritten("y[j] += e if e < m else 0.0")
    assert not _rewritten("y[j] += (1.0 if e < m else 0.0) + (1.0 if e <= m else 0.0)")
    assert not _rewritten("if e < m:\n            y[j] += g", between="e = e + 1.0")
    assert not _rewritten("if e < m:\n            y[j] += g", before="pass")
    # another loop recording e (a copy run again, as checkpointed code does)
    assert not _rewritten("if e < m:\n            y[j] += g", again=(
        "for j in range(2):\n        e = x[j]\n        tape[tape_size] = e\n"
        "        tape_size += 1"))


def test_checkpointed_code_keeps_its_records_and_its_gradient():
    # with a memory budget the forward loop runs again in the reverse sweep: left as written
    c, p = _data(k=6, n=40, d=3, seed=4)
    c[4] = c[1]
    want = srcad.grad(nearest_cost, backend="python")(c, srcad.Const(p))
    shadow = np.zeros_like(c)
    srcad.autodiff(srcad.Reverse, nearest_cost, srcad.Duplicated(c, shadow), srcad.Const(p),
                   backend="numba", memory=2000)
    assert np.array_equal(shadow, want)
