"""Arrays of a constant small length in numba code become scalars
(srcad/transform/small_arrays.py): the rewritten code is checked as source (no array made in
the loop, the elements as numbers), run by Python against the code before the rewrite, and
compiled by numba against central differences with its allocations counted."""

import math

import gast
import numpy as np
import pytest

import srcad
from srcad.build.codegen import to_source
from srcad.transform.names import Namer
from srcad.transform.small_arrays import scalar_small_arrays


def rewritten(source, numbers=()):
    tree = gast.parse(source)
    names = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
    done = scalar_small_arrays(tree, Namer(names), set(numbers))
    return done, to_source(tree)


def _unshared(t, v):  # srcad/runtime/numba_semantics.py's, in NumPy
    return v.copy() if isinstance(v, np.ndarray) and np.shares_memory(t, v) else v


def run(source, *args):
    namespace = {"np": np, "math": math, "broadcast_view": np.broadcast_to,
                 "broadcast_shape": np.broadcast_shapes, "unshared": _unshared,
                 "unbroadcast": _unbroadcast}
    exec(source, namespace)
    return namespace["f"](*args)


EULER = '''
def f(w, steps):
    x = np.array([0.0, 8.0])
    x_dot = np.zeros_like(x)
    v = np.array([0.75, 0.0])
    dt = 0.1
    for k in range(steps):
        x_new = x + dt * v
        x_new_dot = broadcast_view(x_dot + dt * v, broadcast_shape(x.shape, v.shape))
        if x_new[1] > 0.0:
            x = x_new
            x_dot = x_new_dot
            v = v - dt * w * x
        else:
            break
    t = -x[1] / v[1]
    y = x + t * v
    return y[0] * y[0] + x_dot[1], x.shape
'''


def test_an_euler_loop_on_two_element_arrays_runs_on_numbers():
    done, code = rewritten(EULER, numbers=("w",))
    assert done == {"x", "x_dot", "v", "x_new", "x_new_dot", "y"}
    loop = code[code.index("for k"):code.index("\n    t = ")]
    assert "np." not in loop and "broadcast" not in loop  # nothing made in the loop
    assert "x_new_0, x_new_1 = x_0 + dt * v_0, x_1 + dt * v_1" in loop
    assert "if x_new_1 > 0.0:" in loop
    for w, steps in ((0.3, 5), (0.05, 40), (1.7, 200)):
        assert run(code, w, steps) == run(EULER, w, steps)


def test_every_element_is_computed_before_any_is_bound():
    source = ("def f():\n    x = np.array([2.0, 3.0])\n    x = x * x[0] + x[1]\n"
              "    return x[0], x[1]\n")
    done, code = rewritten(source)
    assert done == {"x"}
    assert run(code) == run(source) == (7.0, 9.0)


@pytest.mark.parametrize("source", [
    # written in place where another name holds the same array: the arrays stay
    "def f():\n    x = np.array([2.0, 3.0])\n    y = x\n    y[0] = 5.0\n    return x[0]\n",
    "def f():\n    x = np.array([2.0, 3.0])\n    y = x\n    x += 1.0\n    return y[0]\n",
    "def f():\n    x = np.array([2.0, 3.0])\n    y = broadcast_view(x, (2,))\n"
    "    x[1] -= 1.0\n    return y[1]\n",
    # written at an element out of range, or at a computed one
    "def f():\n    x = np.array([2.0, 3.0])\n    x[2] = 5.0\n    return x[0]\n",
    "def f(i):\n    x = np.array([2.0, 3.0])\n    x[i] = 5.0\n    return x[0]\n",
    # division (NumPy's a / 0 is inf, numba's float division raises), an array of unknown
    # length, a whole array returned, an element read with a computed index
    "def f():\n    x = np.array([2.0, 3.0])\n    y = x / 0.5\n    return y[0]\n",
    "def f(a):\n    x = np.array([2.0, 3.0])\n    y = x + a\n    return y[0]\n",
    "def f():\n    x = np.array([2.0, 3.0])\n    return x\n",
    "def f(i):\n    x = np.array([2.0, 3.0])\n    return x[i]\n",
    # ints written out (an int array), longer than MAX_LENGTH
    "def f():\n    x = np.array([2, 3])\n    y = x * 2.0\n    return y[0]\n",
    "def f():\n    x = np.zeros(5)\n    y = x + 1.0\n    return y[0]\n",
])
def test_arrays_used_otherwise_stay_arrays(source):
    done, code = rewritten(source, numbers=("i",))
    assert done == set()
    assert code.strip() == to_source(gast.parse(source)).strip()


@pytest.mark.parametrize("source, want", [
    ("def f():\n    x = np.array([2.0, 3.0])\n    x[0] = 5.0\n    return x[0] + x[1]\n", 8.0),
    ("def f():\n    x = np.array([2.0, 3.0])\n    x += x * 2.0\n    x[1] -= 1.0\n"
     "    return x[0] * x[1]\n", 48.0),
    ("def f():\n    x = np.zeros(2)\n    y = np.ones_like(x)\n    x += unshared(x, y)\n"
     "    y[0] = 7.0\n    return x[0] + y[0]\n", 8.0),
])
def test_an_array_written_in_place_that_no_other_name_holds_is_numbers(source, want):
    done, code = rewritten(source)
    assert done and "[" not in code.replace("np.array([2.0, 3.0])", "")
    assert run(code) == run(source) == want


def test_a_nested_kernel_gets_a_buffer_and_its_results_are_read_as_elements():
    source = '''
def f(w, w_dot):
    x = np.array([0.0, 8.0])
    x_dot = np.zeros_like(x)
    for k in range(3):
        pair = srcad_nested_gradient_tangents_1_0_1_scratch(srcad_space, srcad_int_space,
                                                            x, w, x_dot, w_dot)
        g = -1.0 * pair[0]
        g_dot = -pair[1]
        x = x + 0.1 * g
        x_dot = x_dot + 0.1 * g_dot
    return x[0]
'''
    done, code = rewritten(source, numbers=("w",))
    assert done == {"x", "x_dot", "g", "g_dot"}
    start = code[:code.index("for k")]
    assert "srcad_small_x = np.empty(2)" in start and "srcad_small_x_dot = np.empty(2)" in start
    assert "srcad_small_x[1] = x_1" in code
    assert "(srcad_space, srcad_int_space, srcad_small_x, w, srcad_small_x_dot, w_dot)" \
        in code.replace("\n", "").replace("    ", "").replace(", ", ",").replace(",", ", ")
    assert "g_0, g_1 = -1.0 * pair[0][0], -1.0 * pair[0][1]" in code


# -- compiled -------------------------------------------------------------------------------


def potential(x, w):
    return 1.0 / math.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2) \
        + 1.0 / math.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)


def euler(w, steps):
    x = np.array([0.0, 8.0])
    v = np.array([0.75, 0.0])
    for _ in range(steps):
        a = -1.0 * srcad.grad(potential)(x, w)
        x = x + 0.1 * v
        v = v + 0.1 * a
    return x[0] * x[1] + v[0]


def euler_by_hand(w, steps):
    x, v = np.array([0.0, 8.0]), np.array([0.75, 0.0])
    for _ in range(steps):
        a = np.zeros(2)
        for c in (np.array([10.0, 10.0 - w]), np.array([10.0, 0.0])):
            d = x - c
            a += d / math.sqrt(d @ d) ** 3
        x, v = x + 0.1 * v, v + 0.1 * a
    return x[0] * x[1] + v[0]


@pytest.mark.slow  # numba compilations: make test-all
def test_a_forward_euler_loop_over_a_nested_gradient_allocates_nothing_per_step():
    """Before, a step allocated the kernel's buffers' products and sums: 8 arrays."""
    pytest.importorskip("numba")
    nrt = pytest.importorskip("numba.core.runtime._nrt_python")

    def derivative(w, steps):
        return srcad.autodiff(srcad.Forward, euler, srcad.Duplicated(w, 1.0), steps,
                              backend="numba")

    def allocations(steps):
        derivative(0.3, steps)
        before = nrt.memsys_get_stats_alloc()
        derivative(0.3, steps)
        return nrt.memsys_get_stats_alloc() - before

    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        per_step = (allocations(30) - allocations(10)) / 20
    finally:
        if not was_on:
            nrt.memsys_disable_stats()
    assert per_step == 0
    h = 1e-6
    for w, steps in ((0.3, 7), (-0.2, 25)):
        want = (euler_by_hand(w + h, steps) - euler_by_hand(w - h, steps)) / (2 * h)
        assert derivative(w, steps) == pytest.approx(want, rel=1e-6)
        assert srcad.autodiff(srcad.Reverse, euler, srcad.Active(w), steps,
                              backend="numba")[0] == pytest.approx(want, rel=1e-6)


def test_a_literal_with_negated_numbers_numba_stacks_is_a_small_array_too():
    source = ("def f():\n    x = array_stack((-1.5, 2.0, -3))\n    y = 2.0 * x - x\n"
              "    return y[0] + y[2]\n")
    done, code = rewritten(source)
    assert done == {"x", "y"}
    assert "x_0, x_1, x_2 = -1.5, 2.0, -3.0" in code
    assert run(code) == -4.5


def test_the_element_names_are_new_names():
    source = ("def f():\n    x = np.array([2.0, 3.0])\n    x_0 = 5.0\n    y = x * x_0\n"
              "    return y[0] + x_0\n")
    tree = gast.parse(source)
    done = scalar_small_arrays(tree, Namer(set()), {"x_0"})  # a namer that knows no name
    code = to_source(tree)
    assert done == {"x", "y"}
    assert run(code) == run(source) == 15.0


REVERSE_SWEEP = '''
def f(p, start, n):
    x_bar = np.zeros((0,))
    array_tape_1d = []
    shape_tape_1d = []
    x = start.copy()
    for k in range(n):
        array_tape_1d.append(np.ascontiguousarray(x))
        shape_tape_1d.append(x.shape)
        x = x * p[0] + p
    x_bar = np.zeros_like(x)
    x_bar[0] += 1.0
    total = 0.0
    for k in range(n):
        x_shape = shape_tape_1d.pop()
        x = array_tape_1d.pop()
        total = total + x_bar[0] * x[0] + x_bar[1]
        x_bar += unshared(x_bar, unbroadcast(x_bar * p[0], x_shape))
    return total + x_bar[1]
'''


def _unbroadcast(a, shape):  # the runtime's, for arrays of the shape already
    assert a.shape == shape
    return a


def test_a_reverse_sweep_over_parameters_of_given_lengths_runs_on_numbers():
    """Parameters whose lengths the code is specialized for (srcad/build/
    length_specialization.py): the arrays made from them, their recording on list tapes
    (tuples of numbers; their shapes the constant (2,), no longer recorded), the accumulations
    into the adjoint and its placeholder before its first binding are numbers."""
    tree = gast.parse(REVERSE_SWEEP)
    names = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
    done = scalar_small_arrays(tree, Namer(names), {"n", "k", "total"},
                               {"p": 2, "start": 2})
    code = to_source(tree)
    assert done == {"x", "x_bar"}
    assert "array_tape_1d.append((x_0, x_1))" in code
    assert "x_0, x_1 = array_tape_1d.pop()" in code
    assert "shape_tape_1d" not in code and "np." not in code.split("\n    total")[0][80:]
    assert "if p.shape[0] != 2:" in code and "raise ValueError" in code
    for p, start, n in (([0.5, -0.3], [1.0, 2.0], 3), ([1.1, 0.2], [-0.4, 0.7], 0)):
        args = (np.array(p), np.array(start), n)
        assert run(code, *args) == run(REVERSE_SWEEP, *args)
    with pytest.raises(ValueError, match="specialized for 2 elements of p"):
        run(code, np.zeros(3), np.zeros(2), 1)


def test_lengths_given_that_change_nothing_leave_the_code_general():
    source = "def f(p):\n    return p[0] * p[1]\n"
    tree = gast.parse(source)
    assert scalar_small_arrays(tree, Namer({"f", "p"}), set(), {"p": 2}) == set()
    assert to_source(tree).strip() == to_source(gast.parse(source)).strip()


def test_the_sum_of_a_small_array_is_its_elements_added_in_order():
    source = ("def f(a):\n    x = np.array([2.0, 3.0, -1.0])\n    s = np.sum(x * a - x)\n"
              "    return s + np.sum(x)\n")
    done, code = rewritten(source, numbers=("a",))
    assert done == {"x"} and "np.sum" not in code
    assert run(code, 0.5) == run(source, 0.5)


def test_a_view_of_arithmetic_on_kernel_results_is_read_element_by_element():
    """`broadcast_view(a - 0.5 * b, shape)` of two kernels' arrays (forward mode's tangent of
    a difference of nested gradients): each element of the view is the elements' arithmetic
    (before, the view was copied into every element's number: numba refused the code)."""
    source = ("def f(w):\n    x = np.array([0.5, 8.0])\n"
              "    d = broadcast_view(srcad_nested_gradient_1(srcad_space, srcad_int_space, x, w)"
              " - 0.5 * srcad_nested_gradient_1(srcad_space, srcad_int_space, x, 2.0 * w),"
              " (2,))\n    return d[0] * d[1]\n")
    done, code = rewritten(source, numbers=("w",))
    assert done == {"x", "d"} and "broadcast_view" not in code
    kernel = {"srcad_nested_gradient_1": lambda space, int_space, x, w: x * w,
              "srcad_space": None, "srcad_int_space": None}
    results = []
    for text in (code, source):
        namespace = {"np": np, "broadcast_view": np.broadcast_to, **kernel}
        exec(text, namespace)
        results.append(namespace["f"](0.3))
    assert results[0] == results[1]
