"""The pattern read from the source (srcad/operators/sparse/static_sparsity.py) equals the traced
one on
every sparse test function whose index structure it proves, holds every nonzero of central-
difference jacobians, counts both sides of a branch on x (so a prepared call at a point
taking the other side still gets every entry), and declines to the traced pattern where it
cannot prove the structure."""

import importlib
import math
import pathlib
import sys

import numpy as np
import pytest
from test_sparse_jacobian import arrowhead, banded, calls_solve, product, whole_array

import srcad
from srcad import Output
from srcad.api import _compiled
from srcad.build.engines import Slot, _spec
from srcad.build.pipeline import Request
from srcad.operators.sparse.sparsity import jacobian_pattern
from srcad.operators.sparse.static_sparsity import static_pattern

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


def neighbours(y, x):
    for i in range(len(x)):
        y[i] = x[i] ** 2
        if i > 0:
            y[i] += x[i - 1] * x[i]
        if i < len(x) - 1:
            y[i] -= math.sin(x[i + 1])


def running_sum(y, x):
    """Row i reads x[0 .. i]: a value carried from one iteration to the next."""
    s = 0.0
    for i in range(len(x)):
        s += x[i]
        y[i] = s * x[i]


def grid(y, x, w):
    """2-D x and y, tuple indices."""
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            y[i, j] = w * x[i, j]
            if j > 0:
                y[i, j] += x[i, j - 1] ** 2


def blocks(y, x, owner):
    """Row i reads the 2-element block owner[i] of x and x[-1]: an index map from data."""
    last = x[-1]
    for i in range(len(owner)):
        b = 2 * owner[i]
        a0, a1 = x[b], x[b + 1]
        y[i] = math.exp(a0) * a1 + last


def branch_on_x(y, x):
    for i in range(len(x) - 1):
        if x[i] > 0.0:
            y[i] = x[i] ** 2
        else:
            y[i] = x[i + 1] * x[i]


def local_array(y, x):
    t = np.zeros(2)
    t[0] = x[0]
    y[0] = t[0] * x[1]


def _tail_sum(x, i):
    s = 0.0
    for k in range(i, len(x)):
        s += x[k]
    return s


def whole_x_to_a_helper(y, x):
    for i in range(len(x)):
        y[i] = _tail_sum(x, i)


def traced(f, slots):
    specs = tuple(_spec(Slot(s.role, s.value), True) for s in slots)
    return jacobian_pattern(_compiled(f, Request("forward", specs, 1, False, "python")),
                            slots, f)


def entries(pattern):
    indptr, indices, _ = pattern
    return {(i, int(j)) for i in range(len(indptr) - 1) for j in indices[indptr[i]:indptr[i + 1]]}


def central_jacobian(f, slots, eps=1e-6):
    """Central differences of the output (numpy, no srcad) with respect to x."""
    position = next(k for k, s in enumerate(slots) if s.role == "x")
    x = slots[position].value

    def output(xv):
        values = [s.value for s in slots]
        values[position] = xv
        y = np.zeros_like(slots[0].value)
        values[0] = y
        f(*values)
        return y.reshape(-1)

    columns = []
    for j in range(x.size):
        hi, lo = x.copy(), x.copy()
        hi.reshape(-1)[j] += eps
        lo.reshape(-1)[j] -= eps
        columns.append((output(hi) - output(lo)) / (2 * eps))
    return np.stack(columns, axis=1)


@pytest.fixture(scope="module")
def ba():
    saved = list(sys.path)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module("srcad.gradbench.ports.ba")
    finally:
        sys.path[:] = saved


def proven_cases(ba):
    rng = np.random.default_rng(3)
    x = rng.random(7) + 0.5
    cases = {
        "arrowhead": (arrowhead, [Slot("output", np.zeros(7)), Slot("x", x)]),
        "neighbours": (neighbours, [Slot("output", np.zeros(7)), Slot("x", x)]),
        "running_sum": (running_sum, [Slot("output", np.zeros(7)), Slot("x", x)]),
        "grid": (grid, [Slot("output", np.zeros((2, 3))), Slot("x", rng.random((2, 3))),
                        Slot("constant", 1.5)]),
        "blocks": (blocks, [Slot("output", np.zeros(5)), Slot("x", x),
                            Slot("constant", np.array([2, 0, 2, 1, 0]))]),
    }
    for b in (0, 1, 3):
        cases[f"banded{b}"] = (banded, [Slot("output", np.zeros(7)), Slot("x", x),
                                        Slot("constant", b)])
    bx, constants = ba.parse(ba.generate(**ba.SIZES["small"]), perturb=0.05)
    cases["ba"] = (ba.ba_objective, [Slot("output", np.zeros(3 * constants[2])),
                                     Slot("x", bx)] + [Slot("constant", c) for c in constants])
    return cases


def test_static_pattern_equals_traced_and_holds_every_nonzero(ba):
    for name, (f, slots) in proven_cases(ba).items():
        static = static_pattern(f, slots)
        assert static is not None, name
        assert entries(static) == entries(traced(f, slots)), name
        J = central_jacobian(f, slots)
        nonzeros = {(int(i), int(j)) for i, j in zip(*np.nonzero(np.abs(J) > 1e-9))}
        assert nonzeros <= entries(static), name


def test_sparse_jacobian_says_which_pattern_it_used(ba):
    x = np.linspace(0.5, 1.5, 6)
    prep = srcad.prepare_jacobian(neighbours, Output(np.zeros(6)), x, sparse=True)
    assert prep.state["pattern_source"] == "static"
    prep = srcad.prepare_jacobian(product, np.ones(3), sparse=True)
    assert prep.state["pattern_source"] == "traced"


@pytest.mark.parametrize("f, args", [
    (product, (np.ones(3),)),  # returns its result
    (whole_array, (np.ones(4),)),
    (calls_solve, (np.ones(2), np.eye(2))),
    (local_array, (np.zeros(1), np.ones(2))),
    (whole_x_to_a_helper, (np.zeros(3), np.ones(3))),  # a call given a whole array
])
def test_declines_what_it_cannot_prove(f, args):
    roles = ["x"] if len(args) == 1 or f is calls_solve else ["output", "x"]
    roles += ["constant"] * (len(args) - len(roles))
    assert static_pattern(f, [Slot(r, a) for r, a in zip(roles, args)]) is None


def test_a_branch_on_x_counts_both_sides():
    # prepared where every x[i] > 0 (the traced pattern sees the diagonal only); a call
    # where x[i] <= 0 takes the other side and needs (i, i + 1) too
    x_prep = np.linspace(0.5, 1.5, 6)
    slots = [Slot("output", np.zeros(6)), Slot("x", x_prep)]
    assert entries(traced(branch_on_x, slots)) == {(i, i) for i in range(5)}
    assert entries(static_pattern(branch_on_x, slots)) == {
        (i, i) for i in range(5)} | {(i, i + 1) for i in range(5)}
    y = np.zeros(6)
    prep = srcad.prepare_jacobian(branch_on_x, Output(y), x_prep, sparse=True)
    x_call = np.array([0.5, -1.0, 2.0, -0.5, 1.0, 0.3])
    J = srcad.jacobian(branch_on_x, Output(y), x_call, prep=prep)
    expected = central_jacobian(branch_on_x, [Slot("output", y), Slot("x", x_call)])
    np.testing.assert_allclose(J.toarray(), expected, rtol=1e-7, atol=1e-8)


def test_numba_sparse_jacobian_from_the_static_pattern():
    x = np.linspace(-1.0, 1.0, 8)
    y = np.zeros(8)
    prep = srcad.prepare_jacobian(neighbours, Output(y), x, sparse=True, backend="numba")
    assert prep.state["pattern_source"] == "static"
    J = srcad.jacobian(neighbours, Output(y), x, prep=prep)
    expected = central_jacobian(neighbours, [Slot("output", y), Slot("x", x)])
    assert J.nnz == 3 * 8 - 2
    np.testing.assert_allclose(J.toarray(), expected, rtol=1e-7, atol=1e-8)
