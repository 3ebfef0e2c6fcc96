"""A list the user's function uses as a stack (appends, then `pop()`): the reverse mode had no
rule for `pop` and dropped it, a wrong gradient without an error (srcad accepted the stack as
the tapes of its own generated code, which it differentiates again for second order). Now a
user's stack is a buffer and a counter like any list grown by append (of floats or of 1-D
arrays), and a stack srcad cannot lower is refused; srcad's own tapes stay stacks."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def float_stack(x):
    st = []
    s = 0.0
    for i in range(len(x)):
        st.append(x[i] * x[i])
    for _ in range(len(x)):
        v = st.pop()
        s = s * 0.5 + v
    return s


def stack_popped_in_a_while(x, n):
    st = []
    for i in range(n):
        st.append(np.sin(x[i % len(x)]))
    s = 0.0
    while len(st) > 0:
        s = s * 0.7 + st.pop() * x[0]
    return s


def float_stack_expected_gradient(x):
    # popped last first: s = x[0]**2 + 0.5 x[1]**2 + 0.25 x[2]**2 + ...
    n = len(x)
    return np.array([2.0 * x[i] * 0.5 ** i for i in range(n)])


def test_float_stack_gradient():
    x = np.array([0.3, 0.5, 0.7, -1.1])
    np.testing.assert_allclose(srcad.gradient(float_stack, x),
                               float_stack_expected_gradient(x), rtol=1e-12)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_float_stack_every_mode(backend):
    x = np.array([0.3, 0.5, 0.7, -1.1])
    check_grads(float_stack, srcad.Duplicated(x, np.zeros(4)), backend=backend)


def test_stack_popped_in_an_uncounted_while():
    """Pops need no room in the buffer: a while loop that only pops is any loop."""
    x = np.array([0.3, -0.5, 0.7])
    for n in (5, 0):
        check_grads(stack_popped_in_a_while, srcad.Duplicated(x, np.zeros(3)), n)


def array_stack(x, W):
    hs = []
    h = x.copy()
    for _ in range(3):
        h = np.tanh(W @ h)
        hs.append(h)
    s = 0.0
    for _ in range(3):
        g = hs.pop()
        s = s * 0.5 + np.sum(g * g)
    return s


def test_array_stack_is_differentiated_or_refused():
    x, W = np.array([0.3, -0.4]), np.array([[0.5, -0.3], [0.2, 0.4]])
    try:
        g = srcad.gradient(array_stack, x, srcad.Constant(W))
    except srcad.SrcadError:
        return  # refused: never a wrong gradient
    check_grads(array_stack, srcad.Duplicated(x, np.zeros(2)), W)
    assert g.shape == (2,)
