"""`srcad.testing.check_grads` is what most derivative tests trust: it must fail on a wrong
derivative (a wrong rule, or one mode disagreeing with the others), also when the derivative
is small, and pass on right ones whatever their size."""

import math

import numpy as np
import pytest

import srcad
from srcad import testing
from srcad.annotations import ReverseWithPrimal
from srcad.rules import rule
from srcad.rules import table as rule_table
from srcad.testing import check_grads


@pytest.fixture(autouse=True)
def fresh_cache():
    srcad.build.cache.clear()
    yield
    srcad.build.cache.clear()


def wrong_sin_rule(monkeypatch, partial):
    """Make srcad differentiate math.sin with `partial` (compiled code is rebuilt)."""
    info = rule_table.lookup_call(math.sin)
    bad = rule_table.CallInfo(info.name, rule("sin", "x", partial), info.result)
    monkeypatch.setitem(rule_table._TABLE, id(math.sin), (math.sin, bad))
    srcad.build.cache.clear()


def tiny_sine(x):
    return 1e-6 * math.sin(x)


def offset_tiny_sine(x):
    return 1.0 + 1e-6 * math.sin(x)


def sines_into(y, a):
    for i in range(len(y)):
        y[i] = 1e-6 * math.sin(a * (i + 1.0))


def sine_product(x, y):
    return math.sin(x) * y


@pytest.mark.parametrize("f", [tiny_sine, offset_tiny_sine])
def test_right_derivative_of_size_1e_minus_6_passes(f):
    check_grads(f, srcad.Active(0.3))


@pytest.mark.parametrize("f", [tiny_sine, offset_tiny_sine])
def test_ten_percent_error_in_a_derivative_of_size_1e_minus_6_fails(monkeypatch, f):
    """d/dx 1e-6 sin(x) = 1e-6 cos(x) ~ 9.6e-7; a rule 10% off must be caught, also when the
    value itself is of size 1 (then the finite difference is noisier, ~1e-10)."""
    wrong_sin_rule(monkeypatch, "1.1 * g * math.cos(x)")
    with pytest.raises(AssertionError, match="disagrees with finite differences"):
        check_grads(f, srcad.Active(0.3))


def test_small_error_in_array_outputs_fails(monkeypatch):
    y = np.zeros(3)
    check_grads(sines_into, srcad.Duplicated(y, np.zeros(3)), srcad.Active(0.3))
    wrong_sin_rule(monkeypatch, "1.1 * g * math.cos(x)")
    with pytest.raises(AssertionError):
        check_grads(sines_into, srcad.Duplicated(y, np.zeros(3)), srcad.Active(0.3))


@pytest.mark.parametrize("partial", ["-g * math.cos(x)", "g * math.sin(x)", "g",
                                     "g * math.cos(x) * 1.0001"])
def test_wrong_rule_fails_in_every_mode(monkeypatch, partial):
    """A wrong rule is wrong in all modes (forward and reverse share it): finite differences
    catch it, whichever modes are checked."""
    wrong_sin_rule(monkeypatch, partial)
    for modes in [("rev",), ("fwd",), ("vec",)]:
        with pytest.raises(AssertionError):
            check_grads(sine_product, srcad.Active(0.7), srcad.Active(2.0), modes=modes)


@pytest.mark.parametrize("wrong_mode, label", [("reverse", "reverse"),
                                               ("forward", "forward"),
                                               ("vector", "vector lane 2")])
def test_one_mode_disagreeing_with_the_others_fails(monkeypatch, wrong_mode, label):
    """A derivative wrong in one mode only (here by 0.1%) is named in the failure."""
    real = testing.autodiff

    def skewed(mode, f, *args, **kwargs):
        out = real(mode, f, *args, **kwargs)
        batch = any(isinstance(a, srcad.BatchDuplicated) for a in args)
        if mode is ReverseWithPrimal and wrong_mode == "reverse":
            return tuple(None if d is None else d * 1.001 for d in out[0]), out[1]
        if mode is srcad.Forward and wrong_mode == "forward" and not batch:
            return out * 1.001
        if mode is srcad.Forward and wrong_mode == "vector" and batch:
            return out * np.array([1.0, 1.001])
        return out

    check_grads(sine_product, srcad.Active(0.7), srcad.Active(2.0))
    monkeypatch.setattr(testing, "autodiff", skewed)
    with pytest.raises(AssertionError, match=label):
        check_grads(sine_product, srcad.Active(0.7), srcad.Active(2.0))


def test_agreement_is_relative_to_the_quantities_compared():
    assert testing.agrees(1.0e-6, 1.0e-6, 0.0, 1e-6, 0.0)
    assert not testing.agrees(1.1e-6, 1.0e-6, 0.0, 1e-6, 0.0)
    assert not testing.agrees(1.1e3, 1.0e3, 0.0, 1e-6, 0.0)
    assert testing.agrees(1.0 + 1e-7, 1.0, 0.0, 1e-6, 0.0)
    assert not testing.agrees(float("nan"), 1.0, 0.0, 1e-6, 0.0)
    assert testing.agrees(1.1e-6, 1.0e-6, 2e-7, 1e-6, 0.0)  # within the fd's own error
    assert not testing.agrees(1.1e-6, 1.0e-6, 5e-8, 1e-6, 0.0)  # beyond it
    inf = float("inf")  # an infinite bound or value accepts nothing but an equal value
    assert not testing.agrees(5.0, inf, 0.0, 1e-6, 0.0)
    assert not testing.agrees(1.0, 2.0, inf, 1e-6, 0.0)
    assert testing.agrees(inf, inf, 0.0, 1e-6, 0.0)


def test_finite_difference_error_bound_comes_from_the_function():
    """Smooth and small: a tiny bound. Rounding of a large value: a bound of its size."""
    def line(scale, offset):
        return lambda step: (offset + scale * step, abs(offset) + abs(scale * step))
    fd, err = testing._central_difference(line(1e-6, 0.0), 1e-6)
    assert fd == pytest.approx(1e-6, rel=1e-9) and err < 1e-15
    fd, err = testing._central_difference(line(1e-6, 1.0), 1e-6)
    assert 1e-12 < err < 1e-8


def squares_in_place(x):
    for i in range(len(x)):
        x[i] = x[i] * x[i]


@pytest.mark.parametrize("what, f, args, message", [
    ("value", sine_product, lambda: (srcad.Active(0.7), srcad.Active(2.0)),
     "generated code returns"),
    ("array", squares_in_place, lambda: (srcad.Duplicated(np.array([0.5, 2.0]), np.zeros(2)),),
     "generated code leaves argument 0"),
])
def test_generated_code_computing_another_primal_fails(monkeypatch, what, f, args, message):
    """The generated reverse code must compute the primal bit for bit (value and written
    arrays): one ulp off in either fails, before any derivative is compared."""
    real = testing.autodiff

    def off_by_one_ulp(mode, f, *args, **kwargs):
        out = real(mode, f, *args, **kwargs)
        if mode is not ReverseWithPrimal:
            return out
        if what == "array":
            array = args[0].value
            array[0] = np.nextafter(array[0], np.inf)
            return out
        return out[0], np.nextafter(out[1], np.inf)

    check_grads(f, *args())
    monkeypatch.setattr(testing, "autodiff", off_by_one_ulp)
    with pytest.raises(AssertionError, match=message):
        check_grads(f, *args())
