"""numba, reverse mode: a running `min`/`max` whose reverse steps are all unchanged but the
last winner's records that step's index once per outer iteration and replays one step
(srcad/transform/numba_last_winner.py). The python backend's bits with ties, zero distances
and NaN operands; loops where other steps matter are left as they are."""

import math

import gast
import numpy as np
import pytest
from helpers.nearest_programs import nearest_cost
from helpers.nearest_programs import nearest_data as _data

import srcad
from srcad.build.codegen import to_source
from srcad.transform.names import Namer
from srcad.transform.numba_last_winner import last_winner_steps

pytest.importorskip("numba")

REPLAYED = "replays only the step of the last winner"


def farthest_weighted(centroids, points, w):
    total = 0.0
    for i in range(points.shape[0]):
        far = -math.inf
        for j in range(centroids.shape[0]):
            s = 0.0
            for t in range(points.shape[1]):
                s += w * (points[i, t] - centroids[j, t]) ** 2
            far = max(far, s)
        total += far
    return total


def running_sum_of_minima(centroids, points):
    # every step's running minimum is used: each step passes an adjoint along
    total = 0.0
    for i in range(points.shape[0]):
        closest = math.inf
        for j in range(centroids.shape[0]):
            d = (points[i, 0] - centroids[j, 0]) ** 2
            closest = min(closest, d)
            total += closest
    return total


def _source(f, c, *constants):
    return srcad.source(f, srcad.Reverse, srcad.Duplicated(c, np.zeros_like(c)),
                        *(srcad.Const(a) for a in constants), backend="numba")


@pytest.mark.parametrize("seed", [0, 1])
def test_the_nearest_centroid_step_alone_is_replayed_with_the_python_backends_bits(seed):
    c, p = _data(seed=seed)
    c[3] = c[1]  # a tie: the first of two equal centroids takes the point
    p[4] = c[1]  # a distance of exactly zero
    text = _source(nearest_cost, c, p)
    assert REPLAYED in text
    assert "1.0 if s < closest else 0.0" not in text  # no flag per step
    flat = "".join(text.split())
    assert "tape=reserve_tape(tape,tape_size+len(range(points.shape[0])))" in flat
    by_numba = srcad.grad(nearest_cost, backend="numba")(c, srcad.Const(p))
    by_python = srcad.grad(nearest_cost, backend="python")(c, srcad.Const(p))
    assert np.array_equal(by_numba, by_python)
    assert not np.any(by_numba[3])  # the second of the tied centroids takes nothing


@pytest.mark.slow  # numba compiles another reverse code
def test_a_running_max_with_a_constant_weight_is_replayed():
    c, p = _data(k=6, n=11, seed=4)
    c[4] = c[2]  # a tie: the first of the two farthest takes the point
    assert REPLAYED in _source(farthest_weighted, c, p, 0.7)
    by_numba = srcad.grad(farthest_weighted, backend="numba")(c, srcad.Const(p), 0.7)
    by_python = srcad.grad(farthest_weighted, backend="python")(c, srcad.Const(p), 0.7)
    assert np.array_equal(by_numba, by_python)
    forward = srcad.jacfwd(farthest_weighted, backend="python")(c, srcad.Const(p), 0.7)
    np.testing.assert_allclose(by_numba, forward, rtol=1e-12, atol=1e-12)


def test_a_nan_distance_wins_no_point():
    # Python's min(closest, nan) is closest: point 2's distances are all NaN, no winner
    c, p = _data(k=4, n=9, seed=3)
    p[2, 1] = math.nan
    with np.errstate(invalid="ignore"):
        by_numba = srcad.grad(nearest_cost, backend="numba")(c, srcad.Const(p))
        by_forward = srcad.jacfwd(nearest_cost, backend="python")(c, srcad.Const(p))
    np.testing.assert_allclose(by_numba, by_forward, rtol=1e-12, atol=1e-14)
    kept = np.delete(p, 2, axis=0)
    assert np.array_equal(by_numba, srcad.grad(nearest_cost, backend="python")(
        c, srcad.Const(kept)))


@pytest.mark.slow  # numba compiles another reverse code
def test_a_loop_whose_every_step_passes_an_adjoint_is_left_as_it_is():
    c, p = _data(k=5, n=7, seed=2)
    assert REPLAYED not in _source(running_sum_of_minima, c, p)
    by_numba = srcad.grad(running_sum_of_minima, backend="numba")(c, srcad.Const(p))
    by_python = srcad.grad(running_sum_of_minima, backend="python")(c, srcad.Const(p))
    np.testing.assert_allclose(by_numba, by_python, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # numba compiles second-order code
def test_gradient_and_hvp_replays_the_winner_too():
    c, p = _data(seed=5)
    prep = srcad.prepare_gradient_and_hvp(nearest_cost, c, srcad.Constant(p),
                                          tangent=np.ones_like(c), backend="numba")
    assert REPLAYED in str(prep.engine.reverse.compiled.source)
    v = np.random.default_rng(6).normal(size=c.shape)
    got = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v, prep=prep)
    want = srcad.gradient_and_hvp(nearest_cost, c, srcad.Constant(p), tangent=v,
                                  backend="python")
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


_PAIR = ("def f(x, x_bar, tape, m_bar):\n"
         "    tape_size = 0\n"
         "    e_bar = START\n"
         "    m = 9.0\n"
         "    for j in range(4):\n"
         "        e = x[j] * x[j]\n"
         "        tape[tape_size] = 1.0 if e < m else 0.0\n"
         "        tape_size += 1\n"
         "        m = min(m, e)\n"
         "    for j in range(3, -1, -1):\n"
         "        tape_size -= 1\n"
         "        flag = tape[tape_size]\n"
         "        g = m_bar\n"
         "        m_bar = 0.0\n"
         "        if not flag != 0.0:\n"
         "            m_bar += g\n"
         "        if flag != 0.0:\n"
         "            e_bar += g\n"
         "        if e_bar != 0.0:\n"
         "            x_bar[j] += 2.0 * x[j] * e_bar\n"
         "        e_bar = 0.0\n"
         "    return AFTER\n")


def _rewritten(start="0.0", after="x_bar") -> bool:
    tree = gast.parse(_PAIR.replace("START", start).replace("AFTER", after))
    return REPLAYED in to_source(last_winner_steps(tree, Namer.for_tree(tree)))


def test_an_adjoint_not_zero_when_the_loop_starts_keeps_every_step():
    assert _rewritten()
    assert not _rewritten(start="1.0")  # the first step adds it into x_bar whatever its flag
    assert not _rewritten(after="g")  # the last step's copy is read after the loop


def test_the_index_record_checks_its_room_where_no_reservation_counts_it():
    # (a loop of no steps recorded nothing before: a reservation counted per step may be 0)
    tree = gast.parse(_PAIR.replace("START", "0.0").replace("AFTER", "x_bar"))
    unreserved = to_source(last_winner_steps(tree, Namer.for_tree(tree)))
    assert "np.concatenate((tape, np.empty_like(tape)))" in unreserved
    reserved = _PAIR.replace("START", "0.0").replace("AFTER", "x_bar").replace(
        "    m = 9.0\n", "    m = 9.0\n    tape = reserve_tape(tape, tape_size + len(range(4)))\n")
    tree = gast.parse(reserved)
    text = to_source(last_winner_steps(tree, Namer.for_tree(tree)))
    assert REPLAYED in text and "np.concatenate" not in text
