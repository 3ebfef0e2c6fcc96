"""Wrong answers and crashes found by a third hunt, each fixed at its root."""

import pytest

import srcad
from srcad.errors import SrcadError

BACKENDS = ["python", "numba"]


# --- a helper's tuple default, inlined into its caller ------------------------------------

def shifted(v):
    return v


def shift_then_add(a, cs=(0.425,)):
    s = a
    s = shifted(s)
    s = s + cs[0]
    return s


def add_default(a, cs=(0.425, 2.0)):
    s = a
    s = s * cs[1] + cs[0]
    return s


def calls_add_default(a):
    return add_default(a) * a


@pytest.mark.parametrize("backend", BACKENDS)
def test_helper_tuple_default_reached_through_a_lambda_keeps_the_derivative(backend):
    # once: derivative 0.0 (the default's element was taken to cut the derivative)
    assert srcad.grad(lambda a: shift_then_add(a), backend=backend)(1.0) == pytest.approx(1.0)
    # once: refused as an opaque value
    assert srcad.grad(lambda a: add_default(a), backend=backend)(1.0) == pytest.approx(2.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_helper_tuple_default_called_from_a_function(backend):
    a = 1.3  # d/da (2a + 0.425) a = 4a + 0.425
    assert srcad.grad(calls_add_default, backend=backend)(a) == pytest.approx(4 * a + 0.425)
    g = srcad.gradient(calls_add_default, a, mode="forward", backend=backend)
    assert g == pytest.approx(4 * a + 0.425)


class _Holder:
    c = 0.425


HOLDER = _Holder()


def shift_then_scale(a, h=HOLDER):
    s = a
    s = shifted(s)
    s = s * h.c
    return s


def shift_then_mixed(a, cs=(0.425, "label")):
    s = a
    s = shifted(s)
    s = s + cs[0]
    return s


@pytest.mark.parametrize("f", [shift_then_scale, shift_then_mixed])
def test_opaque_default_read_after_a_helper_call_is_refused_not_zero(f):
    # once: derivative 0.0 (the copies through the helper hid the opaque read)
    with pytest.raises(SrcadError, match="opaque value.*`(h|cs)`"):
        srcad.grad(lambda a: f(a))(1.0)
