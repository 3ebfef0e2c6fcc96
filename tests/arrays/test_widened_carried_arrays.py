"""An array a loop carries whose binding broadcasts it wider (`y = y + v` with a (1,) `y` and
a (3,) `v`). Reverse mode takes such an array to keep its shape (the adjoints of what is
computed from it zeroed in place); the forward sweep checks that, and where the shape changed
the code that records shapes runs instead: every derivative here is checked against finite
differences and forward mode. Where that second run is not sound (the function writes its
arguments) the LoopShapeError names the array, its line and both shapes."""

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad import Active, Const, Duplicated, Reverse
from srcad.errors import LoopShapeError
from srcad.testing import check_grads

NARROW = np.array([0.3])
WIDE = np.array([0.1, 0.5, 0.9])


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


def in_a_while(x, v):
    y = x * 1.0
    s = 0.0
    i = 0
    while i < 3:
        w = np.sin(y) * (y + 1.0)
        s += np.sum(w * w)
        y = y + v * 0.1
        i += 1
    return s


def two_dimensional(x, m):
    # (1, 3) in the first iteration, (2, 3) after
    y = x * 1.0
    s = 0.0
    for _ in range(3):
        w = np.cos(y) * y
        s += np.sum(w * w)
        y = y * 0.9 + m
    return s


def through_maximum(x, v):
    y = x * 1.0
    s = 0.0
    for _ in range(3):
        w = np.sin(y) * y
        s += np.sum(w * w)
        y = np.maximum(y, v) * 1.1
    return s


def scaled(y, c):
    return np.sin(y) * c


def read_by_a_helper(x, v, c):
    y = x * 1.0
    s = 0.0
    for _ in range(3):
        w = scaled(y, c)
        s += np.sum(w * w)
        y = y + v * c
    return s


def widened_in_the_second_iteration(x, v):
    # b widens in the first iteration, a (from b) in the second
    a = x * 1.0
    b = x * 2.0
    s = 0.0
    for _ in range(3):
        w = np.sin(a) * a
        s += np.sum(w * w)
        a = a + b * 0.1
        b = b + v * 0.1
    return s


def long_steps(x, v):
    y = x * 1.0
    s = 0.0
    for _ in range(40):
        w = np.sin(y) * (y + 1.0)
        s += np.sum(w * w)
        y = y * 0.9 + v * 0.1
    return s


def state(x, v):
    y = x[:1] * 1.0
    for _ in range(3):
        w = np.sin(y) * (y + x[1:2])
        y = y + v * 0.1 + w * 0.01
    return y


def written_argument(x, v, out):
    y = x * 1.0
    s = 0.0
    for _ in range(3):
        w = np.sin(y) * y
        s += np.sum(w * w)
        y = y + v
    out[0] = s
    return s


def euler_steps(x, k):
    y = x * 1.0
    for _ in range(4):
        f = np.concatenate((y[:1], k[1:] * y[:-1]))
        y = y + 0.1 * f
    return np.sum(y * y)


CASES = {
    "in_a_while": (in_a_while, lambda: (dup(NARROW), dup(WIDE))),
    "two_dimensional": (two_dimensional, lambda: (
        dup(np.array([[0.3, 0.2, 0.1]])), dup(np.array([[0.1, 0.5, 0.9], [0.2, 0.3, 0.4]])))),
    "through_maximum": (through_maximum, lambda: (dup(NARROW), Const(WIDE))),
    "read_by_a_helper": (read_by_a_helper, lambda: (dup(NARROW), Const(WIDE), Active(0.7))),
    "widened_in_the_second_iteration": (widened_in_the_second_iteration, lambda: (
        dup(NARROW), dup(WIDE))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_mode_on_the_python_backend(name):
    f, args = CASES[name]
    check_grads(f, *args())


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_reverse_on_the_numba_backend():
    pytest.importorskip("numba")
    check_grads(read_by_a_helper, dup(NARROW), Const(WIDE), Active(0.7), modes=("rev",),
                backend="numba")


@pytest.mark.parametrize("memory", [None, 200])
def test_a_checkpointed_loop(memory):
    # with memory= the steps rerun from snapshots: such a loop is taped whole instead
    expected = central(long_steps, NARROW, WIDE)
    got = srcad.gradient(long_steps, NARROW, srcad.Constant(WIDE), memory=memory)
    assert np.allclose(got, expected, rtol=1e-6)


def test_a_jacobian_by_rows():
    x = np.array([0.3, 0.2, 0.5, 0.1])
    expected = central(state, x, WIDE)
    assert np.allclose(srcad.jacrev(state)(x, WIDE), expected, rtol=1e-6)
    assert np.allclose(srcad.jacobian(state, x, srcad.Constant(WIDE)), expected, rtol=1e-6)


def test_repeated_prepared_gradients():
    prep = srcad.prepare_gradient(long_steps, NARROW, srcad.Constant(WIDE))
    expected = central(long_steps, NARROW, WIDE)
    for _ in range(2):
        got = srcad.gradient(long_steps, NARROW, srcad.Constant(WIDE), prep=prep)
        assert np.allclose(got, expected, rtol=1e-6)


def test_a_function_writing_its_arguments_is_refused_at_the_call():
    # a second run would start from the arguments the first one wrote
    with pytest.raises(LoopShapeError, match=r"`y` changes shape in the loop, from \(1,\) "
                       r"to \(3,\)") as caught:
        srcad.autodiff(Reverse, written_argument, dup(NARROW), Const(WIDE), dup(np.zeros(1)))
    assert caught.value.line == written_argument.__code__.co_firstlineno + 6


def test_a_step_that_keeps_its_shape_is_still_zeroed_in_place():
    x, k = np.array([0.3, 0.2, 0.4]), WIDE
    code = srcad.source(euler_steps, Reverse, dup(x), Const(k))
    assert ("f_bar[...] = 0.0" in code or "f_bar = 0.1 *" in code) \
        and "f_bar = np.zeros(" not in code
    assert code.count("raise LoopShapeError") == 1  # the check after y's binding
    check_grads(euler_steps, dup(x), Const(k))
