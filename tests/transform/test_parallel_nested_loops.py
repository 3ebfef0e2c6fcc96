"""Parallel loops inside loops and with loops inside (srcad/transform/parallel_loops.py):
an independent loop nested in a dependent one is lifted, its inner loops run over the arrays
of all its iterations, `+=` writes and stacked lanes (`A_dot[:, i]`) included. Expected values
are central differences of the primal and srcad's reverse mode, never the forward code's own
output."""

import math

import gast
import numpy as np
from helpers.differences import central

import srcad
from srcad.annotations import BatchDuplicated
from srcad.build.codegen import to_source
from srcad.transform.names import Namer
from srcad.transform.parallel_loops import lift_parallel_loops

MARK = "parallel loop run on all its iterations"


def skinned(x, weights, base):
    """ht's skinning: bones (a dependent loop: += over b) of vertices (independent), each an
    inner product over k; then a loop writing 3 * v + j for j in range(3)."""
    nb, nv = weights.shape
    transforms = np.zeros((nb, 3, 4))
    for b in range(nb):
        for r in range(3):
            for k in range(4):
                transforms[b, r, k] = math.sin(x[(b + r + k) % x.size] * (r + 1))
    positions = np.zeros((3, nv))
    for b in range(nb):
        for v in range(nv):
            for r in range(3):
                s = 0.0
                for k in range(4):
                    s += transforms[b, r, k] * base[k, v]
                positions[r, v] += s * weights[b, v]
    out = np.zeros(3 * nv)
    for v in range(nv):
        t = positions[0, v] * x[0]
        for j in range(3):
            out[3 * v + j] = positions[j, v] * t + math.cos(positions[j, v])
    return out


def skinned_inputs(nv=7):
    rng = np.random.default_rng(3)
    return (rng.uniform(-1.0, 1.0, 5), rng.uniform(0.1, 1.0, (4, nv)),
            rng.uniform(-1.0, 1.0, (4, nv)))


def lanes_source(f, x, *rest):
    lanes = BatchDuplicated(x, list(np.eye(x.size).reshape((x.size,) + x.shape)))
    return srcad.source(f, srcad.Forward, lanes, *rest, batch="stacked")


def test_nested_independent_loops_are_lifted_and_match_central_differences():
    x, weights, base = skinned_inputs()
    code = lanes_source(skinned, x, weights, base)
    # transforms' r loop inside b, the v loop inside b (b carries +=), the last v loop
    assert code.count(MARK) >= 3
    J = srcad.jacfwd(skinned)(x, weights, base)
    np.testing.assert_allclose(J, central(skinned, x, weights, base), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(J, srcad.jacrev(skinned)(x, weights, base), rtol=1e-12,
                               atol=1e-12)


def test_iterations_as_many_as_lanes_do_not_mix_the_two():
    # 5 lanes and 5 iterations: a tangent of every lane (t_dot, one per lane) must meet
    # x_dot[:, i] lane by lane, not iteration by iteration
    def scaled(x, n):
        out = np.zeros(n)
        for i in range(n):
            t = x[0] * 2.0
            out[i] = t * x[i] + t
        return out

    x = np.array([0.3, 0.5, 0.7, 1.1, 1.3])
    assert MARK in lanes_source(scaled, x, 5)
    np.testing.assert_allclose(srcad.jacfwd(scaled)(x, 5), central(scaled, x, 5), rtol=1e-7,
                               atol=1e-9)


def interleaved(x, m):
    out = np.zeros(3 * x.size + 3)
    for i in range(x.size):
        for j in range(m):
            out[3 * i + j] = x[i] * (j + 1.0)
    return out


def test_an_inner_variable_in_the_written_index_is_checked_against_the_stride():
    x = np.array([0.3, -0.5, 0.7])
    assert MARK in lanes_source(interleaved_three, x)
    np.testing.assert_allclose(srcad.jacfwd(interleaved_three)(x),
                               central(interleaved_three, x), rtol=1e-7, atol=1e-9)
    # j in range(4) with a stride of 3: iteration i, j = 3 writes what i + 1, j = 0 writes
    assert MARK not in lanes_source(interleaved_four, x)
    np.testing.assert_allclose(srcad.jacfwd(interleaved_four)(x),
                               central(interleaved_four, x), rtol=1e-7, atol=1e-9)


def interleaved_three(x):
    out = np.zeros(3 * x.size + 3)
    for i in range(x.size):
        for j in range(3):
            out[3 * i + j] = x[i] * (j + 1.0)
    return out


def interleaved_four(x):
    out = np.zeros(3 * x.size + 3)
    for i in range(x.size):
        for j in range(4):
            out[3 * i + j] = x[i] * (j + 1.0) + out[3 * i + j]
    return out


def test_a_value_carried_between_inner_passes_from_the_last_iteration_keeps_the_loop():
    def carried(x):
        out = np.zeros(x.size)
        u = 0.0
        for i in range(x.size):
            for _pass in range(2):
                out[i] = u * x[i] + x[i]
                u = x[i] * 0.5  # read by the next pass, and by the next iteration's first
        return out

    x = np.array([0.3, -0.5, 0.7, 0.2])
    assert MARK not in lanes_source(carried, x)
    np.testing.assert_allclose(srcad.jacfwd(carried)(x), central(carried, x), rtol=1e-7,
                               atol=1e-9)


def test_a_name_set_only_in_an_inner_loop_and_read_after_keeps_the_loop():
    def last(x, m):
        out = np.zeros(x.size)
        w = 1.0
        for i in range(x.size):
            for j in range(m):
                w = x[i] * (j + 2.0)
            out[i] = x[i]
        out[0] = out[0] * w
        return out

    x = np.array([0.3, -0.5, 0.7])
    for m in (0, 2):  # no pass: w keeps 1.0
        np.testing.assert_allclose(srcad.jacfwd(last)(x, m), central(last, x, m),
                                   rtol=1e-7, atol=1e-9)
    code = lanes_source(last, x, 2)
    assert "i = np.arange" not in code and "j = np.arange(" in code  # only the inner one


def test_a_failure_after_accumulating_writes_runs_the_loop_once():
    # the lifted code divides by zero for the last vertex (NumPy raises inside): the +=
    # writes of the other iterations must not be added twice when the loop runs instead
    def accumulate(x, d):
        out = np.zeros(x.size)
        for i in range(x.size):
            for k in range(3):
                out[i] += x[i] * (k + 1.0)
            out[i] = out[i] * 1.0 if d[i] == 0.0 else x[i] / d[i]
        return out

    x, d = np.array([0.3, -0.5, 0.7]), np.array([0.0, 0.0, 0.0])
    np.testing.assert_allclose(srcad.jacfwd(accumulate)(x, d), central(accumulate, x, d),
                               rtol=1e-7, atol=1e-9)


def lifted_count(source):
    fn = gast.parse(source).body[0]
    count = lift_parallel_loops(fn, Namer(set()))
    return count, to_source(fn)


def test_a_vector_of_lanes_passed_to_a_math_function_keeps_the_loop():
    # math.sin of a vector raises in the loop: the lifted code must not compute it
    source = ("def f(y, y_dot, x, x_dot, n):\n    for i in range(n):\n"
              "        y_dot[:, i] = math.sin(x_dot[:, i])\n")
    assert lifted_count(source)[0] == 0
    control = source.replace("math.sin(x_dot[:, i])", "x_dot[:, i] * math.sin(x[i])")
    assert lifted_count(control)[0] == 1


def test_accumulating_writes_into_an_integer_array_run_the_loop():
    source = ("def f(y, x, n):\n    for i in range(n):\n        for k in range(2):\n"
              "            y[i] += x[i] * 0.5\n")
    count, code = lifted_count(source)
    assert count == 1 and "y.dtype.kind == 'f'" in code
    namespace = {"np": np, "math": math}
    exec(code, namespace)
    y, x = np.zeros(3, dtype=np.int64), np.array([1.0, 3.0, 5.0])
    namespace["f"](y, x, 3)
    expected = np.zeros(3, dtype=np.int64)
    for i in range(3):
        for _ in range(2):
            expected[i] += x[i] * 0.5
    np.testing.assert_array_equal(y, expected)


def test_a_written_array_seen_through_a_view_runs_the_loop():
    # x is a view of y: iteration i reads what iteration i - 1 wrote
    source = ("def f(y, x, n):\n    for i in range(n):\n        y[i + 1] = x[i] * 2.0\n")
    count, code = lifted_count(source)
    assert count == 1 and "np.may_share_memory(y, x" in code
    namespace = {"np": np, "math": math}
    exec(code, namespace)
    y = np.ones(4)
    namespace["f"](y, y[:3], 3)
    np.testing.assert_array_equal(y, [1.0, 2.0, 4.0, 8.0])  # the loop's answer
