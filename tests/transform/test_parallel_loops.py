"""Parallel loops of the python backend's forward code run on all iterations at once
(srcad/transform/parallel_loops.py): lifted where every iteration is independent, the loop
kept otherwise, the loop run when NumPy meets a division by zero, an overflow or an invalid
operation (CPython's own errors raised as the loop raises them). Expected values are central
differences of the primal, never srcad's own output."""

import math

import gast
import numpy as np
import pytest
from helpers.differences import central
from helpers.walk_counts import counting_walks

import srcad
from srcad.transform import parallel_loops
from srcad.transform.names import Namer

MARK = "parallel loop run on all its iterations"


def projected(x, pairs, n):
    """Per pair (a gather through an int array), a rotation-like branch on a value that is
    zero only at a point, and two writes per iteration (2 i, 2 i + 1)."""
    out = np.zeros(2 * n)
    for i in range(n):
        a = x[pairs[i, 0]]
        b = x[pairs[i, 1]] - 0.5
        s = a * a + b * b
        if s != 0.0:
            t = math.sqrt(s)
            c = math.cos(t) * a / t
            d = math.sin(t) * b
        else:
            c = a
            d = b
        out[2 * i] = c * d + abs(b)
        out[2 * i + 1] = math.exp(-s) * c
    return out


def pairs_of(n, size):
    return np.stack([np.arange(n) % size, (3 * np.arange(n) + 1) % size], axis=1)


def jacobian_by_differences(f, x, *rest):
    return central(f, x, *rest)


def test_an_independent_loop_is_lifted_and_matches_central_differences():
    x, n = np.array([0.3, -0.7, 1.1, 0.4, -0.2]), 7
    pairs = pairs_of(n, x.size)
    code = srcad.source(projected, srcad.Forward, srcad.Duplicated(x, np.ones(5)), pairs, n)
    assert MARK in code
    J = srcad.jacfwd(projected)(x, pairs, n)
    np.testing.assert_allclose(J, jacobian_by_differences(projected, x, pairs, n),
                               rtol=1e-7, atol=1e-9)


def test_a_branch_not_taken_that_divides_by_zero_runs_the_loop(recwarn):
    # s == 0 for the pair (x[0], x[1]) = (0, 0.5): the then-branch divides by zero there
    x, n = np.array([0.0, 0.5, 1.1, 0.4, -0.2]), 5
    pairs = np.array([[0, 1], [2, 3], [3, 4], [4, 2], [2, 2]])
    J = srcad.jacfwd(projected)(x, pairs, n)
    h = 1e-7  # one-sided where the branch switches at the point: the else branch's slope
    for k in (2, 3, 4):
        e = np.eye(5)[k]
        np.testing.assert_allclose(J[:, k], (projected(x + h * e, pairs, n)
                                             - projected(x - h * e, pairs, n)) / (2 * h),
                                   rtol=1e-5, atol=1e-6)
    # at s == 0 (a = b = 0): c = a, d = b; out[0] = a b + |b|, |b|' = 1 at 0 as in JAX
    np.testing.assert_allclose(J[:2, :2], [[0.0, 1.0], [1.0, 0.0]])
    assert not [w for w in recwarn if "divide" in str(w.message)]


def test_cpythons_error_is_raised_as_the_loop_raises_it():
    def roots(x, n):
        out = np.zeros(n)
        for i in range(n):
            out[i] = math.sqrt(x[i] - 1.0)
        return out

    x = np.array([2.0, 0.5, 3.0])
    assert MARK in srcad.source(roots, srcad.Forward, srcad.Duplicated(x, np.ones(3)), 3)
    with pytest.raises(ValueError, match="math domain error"):
        srcad.jacfwd(roots)(x, 3)


@pytest.mark.parametrize("body", [
    "        s = s + x[i] * x[i]\n        out[i] = s",  # a value carried to the next iteration
    "        out[i] = x[i] * x[i]\n        out[i + 1] = x[i]",  # two writes of one element
    "        out[i] = x[i] * x[i] + out[i - 1]",  # the written array read
    "        out[i % 2] = x[i] * x[i]",  # several iterations write one element
], ids=["carried", "colliding-writes", "written-read", "not-one-to-one"])
def test_dependent_iterations_keep_the_loop(body, tmp_path, monkeypatch):
    source = ("import math\nimport numpy as np\n\n\ndef f(x, n):\n    s = 0.0\n"
              "    out = np.zeros(n + 1)\n    for i in range(n):\n" + body + "\n    return out\n")
    (tmp_path / "dependent_loop.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    module = importlib.import_module("dependent_loop")
    f = module.f
    x = np.array([0.3, -0.7, 1.1, 0.4])
    assert MARK not in srcad.source(f, srcad.Forward, srcad.Duplicated(x, np.ones(4)), 4)
    np.testing.assert_allclose(srcad.jacfwd(f)(x, 4), jacobian_by_differences(f, x, 4),
                               rtol=1e-7, atol=1e-9)


def _walked_nodes(loops, monkeypatch):
    """Nodes the pass walks for a function of `loops` top-level parallel loops."""
    count = counting_walks(monkeypatch)
    body = "".join(f"    for i in range(n):\n        y[{k} * n + i] = math.sin(x[i]) * {k}.0\n"
                   for k in range(loops))
    fn = gast.parse(f"def f(x, y, n):\n{body}    return y\n").body[0]
    assert parallel_loops.lift_parallel_loops(fn, Namer(set())) == loops
    return count[0]


def test_the_walks_grow_with_the_function_not_its_square(monkeypatch):
    # each loop asked which names the rest of the function reads: a walk of the whole
    # function per loop made long unrolled forward code (GradBench's ba) quadratic
    assert _walked_nodes(40, monkeypatch) < 2.5 * _walked_nodes(20, monkeypatch)


def _walked_for_names(names, monkeypatch):
    """Nodes the pass walks for one parallel loop setting `names` temporaries, followed by
    a long rest of the function (unrolled forward code: many lanes, many statements)."""
    count = counting_walks(monkeypatch)
    loop = "".join(f"        t{k} = math.sin(x[i]) * {k}.0\n" for k in range(names))
    loop += "        y[i] = " + " + ".join(f"t{k}" for k in range(names)) + "\n"
    rest = "".join(f"    y[{k}] = y[{k}] * 2.0 + x[{k}]\n" for k in range(300))
    fn = gast.parse(f"def f(x, y, n):\n    for i in range(n):\n{loop}{rest}"
                    "    return y\n").body[0]
    assert parallel_loops.lift_parallel_loops(fn, Namer(set())) == 1
    return count[0]


def test_the_walks_of_the_rest_do_not_grow_with_the_names_a_loop_sets(monkeypatch):
    # which of a loop's names the rest of the function reads: one walk of each statement
    # after it for every name made the wide loops of unrolled lanes (ba) slow
    assert _walked_for_names(40, monkeypatch) < 2 * _walked_for_names(10, monkeypatch)
