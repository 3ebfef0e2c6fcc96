"""A helper's reads of its module's globals keep meaning those globals when the caller binds a
local of the same name (the inlined body used to read the caller's local: a wrong derivative),
while a local function's free names keep meaning the enclosing function's locals."""

import numpy as np

import srcad
from srcad.testing import check_grads

c = 10.0
weights = np.array([1.0, 2.0, 3.0])


def scaled(x):
    return x * c  # the module's c


def weighted(v):
    return np.sum(weights * v * v)  # the module's weights


def caller_with_constant_local(x):
    c = 3.0
    return scaled(x) + c * x


def caller_with_active_local(x):
    c = x * x
    return scaled(x) + c


def middle(x):
    c = x * 2.0
    return scaled(x) + c  # scaled inlined into middle, middle into the caller


def caller_through_middle(x):
    return middle(x)


def caller_with_array_local(v):
    weights = v * 0.5
    return weighted(v) + np.sum(weights)


def closure_reads_enclosing(x):
    c = x * x

    def inner(y):
        return y * c  # the enclosing c, not the module's

    return inner(x)


def test_caller_local_does_not_capture_helper_global():
    # d/dx (10 x + 3 x) = 13; the old code read the caller's c = 3 in the helper: 6
    assert srcad.gradient(caller_with_constant_local, 2.0) == 13.0
    # d/dx (10 x + x^2) = 10 + 2x
    assert srcad.gradient(caller_with_active_local, 2.0) == 14.0
    # d/dx (10 x + 2 x) = 12
    assert srcad.gradient(caller_through_middle, 2.0) == 12.0


def test_array_global_read_by_helper():
    v = np.array([0.5, -1.0, 2.0])
    expected = 2.0 * weights * v + 0.5
    assert np.allclose(srcad.gradient(caller_with_array_local, v), expected, rtol=1e-12)
    check_grads(caller_with_array_local, srcad.Duplicated(v, np.zeros(3)))


def test_closure_still_reads_enclosing_local():
    assert srcad.gradient(closure_reads_enclosing, 2.0) == 12.0  # d/dx x^3


def test_every_mode_against_finite_differences():
    for f in (caller_with_constant_local, caller_with_active_local, caller_through_middle,
              closure_reads_enclosing):
        check_grads(f, srcad.Active(1.7))
