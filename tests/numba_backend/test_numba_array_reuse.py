"""Zeros a loop of numba code makes on every iteration are written into the array their name
owns (srcad/transform/numba_array_reuse.py): the reverse sweep's adjoint resets of a descent
whose step is a nested gradient, checked against central differences and the python backend;
names whose array may reach another holder keep their fresh zeros."""

import math

import gast
import numpy as np
import pytest

import srcad
from srcad.analysis.types import Array
from srcad.build.codegen import to_source
from srcad.runtime.numba_semantics import zeros_into
from srcad.transform.numba_array_reuse import reuse_loop_zeros


def energy(p, q):
    return (p[0] - q[0]) ** 2 + 2.0 * (p[1] - q[1]) ** 2 + 0.1 * p[0] * p[1]


def descent(q, start):
    """A descent with a step that is accepted or halved (a `while` loop whose trip count the
    reverse sweep reads back); the step is a nested gradient."""
    x = start.copy()
    fx = energy(x, q)
    gx = srcad.grad(energy)(x, q)
    eta = 0.1
    k = 0
    while k < 12:
        x_new = x - eta * gx
        f_new = energy(x_new, q)
        if f_new < fx:
            x = x_new
            fx = f_new
            gx = srcad.grad(energy)(x_new, q)
        else:
            eta = eta / 2.0
        k = k + 1
    return fx + x[0] * q[1]


def central(f, q, h=1e-6):
    return np.array([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(q.size)])


def by_hand(q, start):
    """descent with the gradient of energy in p written out (the reference primal)."""
    def gradient(p):
        return np.array([2.0 * (p[0] - q[0]) + 0.1 * p[1], 4.0 * (p[1] - q[1]) + 0.1 * p[0]])
    x, eta = start.copy(), 0.1
    fx, gx = energy(x, q), gradient(x)
    for _ in range(12):
        x_new = x - eta * gx
        if energy(x_new, q) < fx:
            x, fx, gx = x_new, energy(x_new, q), gradient(x_new)
        else:
            eta = eta / 2.0
    return fx + x[0] * q[1]


def _loop_lines(source: str) -> list:
    """The lines of `source` inside its loops (indented deeper than a `while`/`for`)."""
    inside, depth = [], None
    for line in source.splitlines():
        indent = len(line) - len(line.lstrip())
        if depth is not None and line.strip() and indent <= depth:
            depth = None
        if depth is not None:
            inside.append(line.strip())
        elif line.lstrip().startswith(("while ", "for ")):
            depth = indent
    return inside


# arrays longer than numba code is specialized for (srcad/build/length_specialization.py: two
# elements would be numbers), so the general code's arrays are what is checked
LONG_Q, LONG_START = np.array([0.3, -0.2, 0.1, 0.0, 0.4]), np.array([1.0, 0.5, 0.0, 0.2, 0.3])


def test_reverse_sweep_resets_adjoints_in_place():
    q, start = LONG_Q, LONG_START
    source = srcad.source(descent, srcad.Reverse, srcad.Duplicated(q, np.zeros(q.size)),
                          srcad.Const(start), backend="numba")
    inside = _loop_lines(source)
    resets = [line for line in inside if "zeros_into(" in line]
    assert {line.split(" = ")[0] for line in resets} >= {"x_bar", "gx_bar", "x_new_bar"}
    assert not [line for line in inside if "np.zeros" in line]


@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward, srcad.ForwardWithPrimal])
def test_gradient_kept_in_the_loop_is_written_into_its_array(mode):
    """The primal's gradient (every argument Const), the reverse sweep's forward part, and the
    forward mode's gradient with its tangent (a pair kernel) are written into the arrays
    `gx` (and `gx_dot`) own."""
    q, start = LONG_Q, LONG_START
    first = srcad.Const(q) if mode is srcad.ForwardWithPrimal else \
        srcad.Duplicated(q, np.eye(q.size)[0])
    source = srcad.source(descent, mode, first, srcad.Const(start), backend="numba")
    inside = " ".join(_loop_lines(source))
    assert "_into(" in inside
    assert "gx, gx_dot)" in inside if mode is srcad.Forward else "x_new, q, gx)" in inside


@pytest.mark.slow  # numba compiles the descent's nested kernels for ~15 s
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_descent_gradient_against_central_differences(mode):
    q, start = np.array([0.3, -0.2]), np.array([1.0, 0.5])
    want = central(lambda q: by_hand(q, start), q)
    numba = srcad.gradient(descent, q, srcad.Constant(start), mode=mode, backend="numba")
    python = srcad.gradient(descent, q, srcad.Constant(start), mode=mode, backend="python")
    np.testing.assert_allclose(numba, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(numba, python, rtol=1e-12, atol=1e-14)


@pytest.mark.slow  # numba compiles for ~6 s
def test_reused_arrays_of_another_length_per_call():
    """The owned arrays are reused within a call only: a call with other lengths gets
    its own (the reset compares shapes)."""
    def f(q, start):
        x = start * 1.0
        total = 0.0
        k = 0
        while k < 3:
            x = x - 0.1 * srcad.grad(energy)(x, q) * q[0]
            total = total + x[0] * x[1]
            k = k + 1
        return total + math.sin(q[1])

    q = np.array([0.3, -0.2])
    for start in (np.array([1.0, 0.5]), np.array([0.2, 0.4, 0.7])):
        numba = srcad.gradient(f, q, srcad.Constant(start), backend="numba")
        want = central(lambda q, start=start: f_by_python(f, q, start), q)
        np.testing.assert_allclose(numba, want, rtol=1e-6, atol=1e-8)


def f_by_python(f, q, start):
    return srcad.autodiff(srcad.ForwardWithPrimal, f, srcad.Const(q), srcad.Const(start),
                          backend="python")[-1]


class _Types:
    def __init__(self, **arrays):
        self.env = {name: Array(rank, True) for name, rank in arrays.items()}
        self.mixed = set()


def _rewritten(body: str, **ranks) -> tuple[set, str]:
    tree = gast.parse("def f(x, n):\n" + "".join(f"    {line}\n" for line in body.splitlines()))
    bars = {name: name + "_bar" for name in ranks}
    names = reuse_loop_zeros(tree, _Types(x=1, **ranks), bars)
    return names, to_source(tree)


LOOP = "g_bar = np.zeros_like(x)\nfor i in range(n):\n    {use}\n    g_bar = np.zeros(x.shape)"


@pytest.mark.parametrize("use", [
    "g_bar[0] += x[i]",  # a write into it
    "x[0] += g_bar[0] * 2.0",  # an element read, arithmetic
    "x += unshared(x, unbroadcast(g_bar, x.shape))",  # added into another array
    "x[1] += srcad_nested_adjoint_1_0(g_bar, x)[0]",  # an operand of a nested kernel
])
def test_owned_name_is_reset_in_place(use):
    names, source = _rewritten(LOOP.format(use=use), g=1)
    assert names == {"g_bar"}
    assert "g_bar = zeros_into(g_bar, x.shape)" in source


@pytest.mark.parametrize("use", [
    "y = g_bar",  # another name holds it
    "y = g_bar[0:1]",  # a view of it
    "y = unbroadcast(g_bar, x.shape)",  # maybe itself
    "tape.append(g_bar)",  # a container holds it
    "y = (g_bar, x)",
    "y = g_bar.T",
    "y = helper(g_bar)",  # anything else may keep it
])
def test_escaping_name_keeps_fresh_zeros(use):
    names, source = _rewritten(LOOP.format(use=use), g=1)
    assert names == set()
    assert "zeros_into" not in source


def test_row_of_a_matrix_is_a_view():
    body = "g_bar = np.zeros((n, 2))\nfor i in range(n):\n    y = g_bar[i]\n" \
        "    g_bar = np.zeros((n, 2))"
    assert _rewritten(body, g=2)[0] == set()
    body = body.replace("g_bar[i]", "g_bar[i, 0]")
    assert _rewritten(body, g=2)[0] == {"g_bar"}


def test_name_bound_to_a_shared_array_is_not_owned():
    body = "g_bar = x\nfor i in range(n):\n    x[0] += g_bar[0]\n    g_bar = np.zeros(x.shape)"
    assert _rewritten(body, g=1)[0] == set()


def test_name_first_bound_in_a_loop_is_bound_before_it():
    body = "for i in range(n):\n    g_bar = np.zeros_like(x)\n    g_bar[0] += x[i]\n" \
        "    x[0] += g_bar[0]"
    names, source = _rewritten(body, g=1)
    assert names == {"g_bar"}
    assert source.index("g_bar = np.zeros((0,))") < source.index("for i in range(n)")


def test_zeros_into_reuses_only_an_array_of_the_shape():
    import numba

    @numba.njit
    def reset(v, shape):
        return zeros_into(v, shape)

    v = np.ones(3)
    same = reset(v, (3,))
    assert same.ctypes.data == v.ctypes.data and not same.any()
    other = reset(np.ones(3), (4,))
    assert other.shape == (4,) and not other.any()
    assert reset(np.ones(2), 2).ctypes.data != 0 and not reset(np.ones(2), 5).any()
    matrix = np.ones((2, 2))
    assert reset(matrix, (2, 2)).ctypes.data == matrix.ctypes.data and not matrix.any()
    np.testing.assert_array_equal(zeros_into(np.ones(2), (2,)), np.zeros(2))


def long_walk(q, steps):
    """A `while` loop of many iterations pushing floats and branch flags (its tapes grow
    inside the loop), a branch that pushes more on one arm than the other."""
    x = q * 1.0
    total = 0.0
    k = 0
    while k < steps:
        if k % 3 == 0:
            x = x * 0.999 + 0.001 * np.sin(x)
            total = total + x[0] * x[1]
        else:
            total = total + math.cos(x[1]) * 0.01
        k = k + 1
    return total


def test_while_loop_tapes_grow_at_the_start_of_an_iteration():
    q = np.array([0.3, -0.2])
    source = srcad.source(long_walk, srcad.Reverse, srcad.Duplicated(q, np.zeros(2)),
                          srcad.Const(3000), backend="numba")
    inside = _loop_lines(source)
    assert any(line.startswith("int_tape = reserve_tape(int_tape") for line in inside)
    assert not [line for line in inside if "np.concatenate((int_tape" in line]


@pytest.mark.slow  # numba compiles for ~4 s
def test_while_loop_tapes_grown_inside_the_loop_give_the_gradient():
    q = np.array([0.3, -0.2])
    want = central(lambda q: long_walk(q, 3000), q)
    got = srcad.gradient(long_walk, q, srcad.Constant(3000), backend="numba")
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_fused_map_of_vectors_allocates_only_its_result():
    """`x - eta * g` on contiguous vectors: the loop reads them in place (a buffer is made
    only for an operand broadcast along the vector); numba's NRT counts each allocation."""
    import numba
    from numba.core.runtime import _nrt_python as nrt

    from srcad.runtime.numba_fusion import fused_kernel

    step = fused_kernel("(a0 - (a1 * a2))", ("map",), 3)

    @numba.njit
    def run(x, eta, g, times):
        total = 0.0
        for _ in range(times):
            x = step(x, eta, g)  # a descent's step
            total += x[1]
        return total

    x, g = np.array([1.0, 2.0]), np.array([0.5, -0.5])
    assert run(x, 0.1, g, 2) == pytest.approx(2.05 + 2.1)
    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        before = nrt.memsys_get_stats_alloc()
        run(x, 0.1, g, 10)
        made = nrt.memsys_get_stats_alloc() - before
    finally:
        if not was_on:
            nrt.memsys_disable_stats()
    assert made == 10 + 2  # one result per step (and the two arguments' unboxing)
    np.testing.assert_array_equal(step(x, 0.1, np.array([0.5])), x - 0.1 * np.array([0.5]))
    np.testing.assert_array_equal(step(np.array([3.0]), 0.1, g), 3.0 - 0.1 * g)
