"""A name rebound from an array to a number, and array expressions returned directly: both
are differentiated in every mode on both backends, checked against central finite
differences, forward against reverse, and hand-derived derivatives."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.errors import SrcadError
from srcad.testing import check_grads

RNG = np.random.default_rng(23)


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def squared_total(x):
    x = np.sum(x)
    x = x * x
    return x


def norm_then_scale(x, w):
    s = np.dot(w, x)
    s = np.tanh(s)
    s = s * x  # back to an array
    return np.sum(s * s)


def sine_times_x(x):
    return np.sin(x) * x


def residual(A, x, b):
    return A @ x - b


def read_before_retyping(W, x, b):
    # h's rows are read by np.outer (which checks its operands' ranks) before h is rebound to
    # a float: typing the function before the renaming must not refuse the read
    h = np.stack([np.dot(W.T, b), x[::-1]])
    s = np.sum(np.outer(h[1], x))
    h = np.sum(h * h)
    return h + s


def rebound_in_a_loop(x):
    for _ in range(2):
        x = np.sum(x)
    return x


BOTH = [(squared_total, lambda: (dup(RNG.standard_normal(4)),)),
        (norm_then_scale, lambda: (dup(RNG.standard_normal(3)), dup(RNG.standard_normal(3)))),
        (sine_times_x, lambda: (dup(RNG.standard_normal(4)),)),
        (read_before_retyping, lambda: (dup(RNG.standard_normal((2, 3))),
                                        dup(RNG.standard_normal(3)), dup(RNG.standard_normal(2)))),
        (residual, lambda: (dup(RNG.standard_normal((3, 2))), dup(RNG.standard_normal(2)),
                            RNG.standard_normal(3)))]


@pytest.mark.parametrize("f, args", BOTH, ids=lambda v: getattr(v, "__name__", ""))
def test_every_mode_on_the_python_backend(f, args):
    check_grads(f, *args())


@pytest.mark.parametrize("f, args", BOTH[:3:2], ids=lambda v: getattr(v, "__name__", ""))
def test_forward_and_reverse_on_numba(f, args):  # two programs: numba compiling is the cost
    pytest.importorskip("numba")
    check_grads(f, *args(), modes=("fwd", "rev"), backend="numba")


def test_rebound_name_gradient_is_the_hand_derived_one():
    x = RNG.standard_normal(5)
    np.testing.assert_allclose(srcad.grad(squared_total)(x), 2.0 * np.sum(x) * np.ones(5),
                               rtol=1e-12)


def test_returned_expression_jacobians_are_the_hand_derived_ones():
    x = RNG.standard_normal(4)
    want = np.diag(np.cos(x) * x + np.sin(x))
    np.testing.assert_allclose(srcad.jacrev(sine_times_x)(x), want, rtol=1e-12)
    np.testing.assert_allclose(srcad.jacfwd(sine_times_x)(x), want, rtol=1e-12)
    A, x2, b = RNG.standard_normal((3, 2)), RNG.standard_normal(2), RNG.standard_normal(3)
    np.testing.assert_allclose(srcad.jacrev(residual, argnums=1)(A, x2, b), A, rtol=1e-12)


def test_a_name_of_two_kinds_rebound_in_a_loop_is_still_refused_at_its_line():
    with pytest.raises(SrcadError) as info:
        srcad.autodiff(srcad.Reverse, rebound_in_a_loop, dup(np.ones(3)))
    text = str(info.value)
    assert "test_array_retyping.py:" in text and "`x` is bound to an array" in text
