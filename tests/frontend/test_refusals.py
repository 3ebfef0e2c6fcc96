"""srcad refuses what it cannot differentiate, naming the construct, the file and the line;
it checks annotations before transforming; and it neither re-transforms nor touches Const data.
"""

import math
import os
import re

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Reverse

THIS_FILE = os.path.basename(__file__)


# --- unsupported constructs -------------------------------------------------------------------

def uses_try(x):
    try:
        y = x * x
    except ValueError:
        y = x
    return y


def uses_with(x):
    with open(os.devnull):
        y = x * x
    return y


def generator(x):
    yield x * x


def has_nested_def(x):
    s = 0.0
    for _ in range(2):
        def inner(*a):  # variadic parameters: inlining binds named ones only
            return a[0] * a[0]
        s += inner(x)
    return s


class Model:
    def energy(self, x):
        return x * x


GLOBAL_TOTAL = 0.0


def uses_global(x):
    global GLOBAL_TOTAL
    GLOBAL_TOTAL = x
    return x * x


def calls_numpy_linalg(x):
    return np.sum(np.linalg.tensorinv(np.outer(x, x) + np.eye(3), 1)) * x[0]


def calls_nextafter(x):
    return math.nextafter(x, 2.0) * 2.0  # no rule, and x carries a derivative


def recursive_local(x, n):
    def power(y, k):
        if k == 0:
            return y
        return power(y * y, k - 1)
    return power(x, n)


def star_args(*args):
    return args[0] * args[1]


def calls_lambda_in_an_and(x):
    return x > 0.0 and (lambda a: a * a)(x)  # `and`/`or` are not lowered to branches


REFUSED = [
    ("try", uses_try, (Active(1.0),)),
    ("with", uses_with, (Active(1.0),)),
    ("generator", generator, (Active(1.0),)),
    ("def", has_nested_def, (Active(1.0),)),
    ("global", uses_global, (Active(1.0),)),
    ("tensorinv", calls_numpy_linalg, (Duplicated(np.ones(3), np.zeros(3)),)),
    ("nextafter", calls_nextafter, (Active(1.5),)),
    ("recursi", recursive_local, (Active(1.0), 2)),
    ("args", star_args, (Active(1.0), Active(2.0))),
    ("lambda", calls_lambda_in_an_and, (Active(1.0),)),
]


@pytest.mark.parametrize("construct, f, args", REFUSED,
                         ids=[f"{f.__name__}-{c}" for c, f, _ in REFUSED])
def test_unsupported_construct_is_refused_with_file_and_line(construct, f, args):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, f, *args)
    text = str(info.value)
    assert construct in text.lower()
    assert f"{THIS_FILE}:" in text
    assert info.value.line is not None and f":{info.value.line}:" in text


def test_bound_method_is_differentiated():
    """A bound method differentiates with respect to its arguments (tests/objects)."""
    assert srcad.autodiff(Reverse, Model().energy, Active(3.0)) == (6.0,)


def test_refusal_points_at_the_offending_line():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, calls_nextafter, Active(1.5))
    assert info.value.line == calls_nextafter.__code__.co_firstlineno + 1


# --- annotations checked before transforming -------------------------------------------------

def square_sum(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def scale(x):
    return 2.0 * x


BAD_ARGUMENTS = [
    ("integer", scale, (Active(3),)),
    ("array", scale, (Active(np.ones(3)),)),
    ("shadow", square_sum, (Duplicated(np.ones(3), np.zeros(4)),)),
    ("shadow", square_sum, (Duplicated(np.ones((3, 1)), np.zeros(3)),)),
    ("dtype", square_sum, (Duplicated(np.ones(3, dtype=int), np.zeros(3, dtype=int)),)),
]


@pytest.mark.parametrize("word, f, args", BAD_ARGUMENTS,
                         ids=[f"{word}-{i}" for i, (word, _, _) in enumerate(BAD_ARGUMENTS)])
def test_bad_annotation_is_refused_with_file_and_line(word, f, args):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, f, *args)
    text = str(info.value)
    assert word in text.lower()
    # Every refusal names the file and the line (the call site or the function's definition).
    assert re.search(re.escape(THIS_FILE) + r":\d+", text), text


# --- activity ---------------------------------------------------------------------------------

def writes_active_into_const(out, x):
    for i in range(len(out)):
        out[i] = x * i
    return x * x


def test_writing_active_value_into_const_array_suggests_duplicated():
    with pytest.raises(srcad.ActivityError) as info:
        srcad.autodiff(Reverse, writes_active_into_const, np.zeros(3), Active(2.0))
    text = str(info.value)
    assert "Duplicated" in text
    assert f"{THIS_FILE}:" in text
    assert info.value.line == writes_active_into_const.__code__.co_firstlineno + 2


def weighted_sum(w, x):
    s = 0.0
    for i in range(len(w)):
        s += w[i] * x[i]
    return s


def normalizes_const_in_place(w, x):
    for i in range(len(w)):
        w[i] = w[i] * 2.0
    s = 0.0
    for i in range(len(w)):
        s += w[i] * x[i]
    return s


def test_const_array_is_not_modified_by_reverse_mode():
    w = np.array([1.0, 2.0, 3.0])
    x = np.array([0.5, -1.0, 4.0])
    dx = np.zeros(3)
    srcad.autodiff(Reverse, weighted_sum, w, Duplicated(x, dx))
    np.testing.assert_array_equal(w, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x, [0.5, -1.0, 4.0])
    np.testing.assert_array_equal(dx, w)


def test_const_array_is_modified_as_the_primal_modifies_it():
    w = np.array([1.0, 2.0, 3.0])
    x = np.array([0.5, -1.0, 4.0])
    dx = np.zeros(3)
    srcad.autodiff(Reverse, normalizes_const_in_place, w, Duplicated(x, dx))
    np.testing.assert_array_equal(w, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(dx, [2.0, 4.0, 6.0])


# --- caching ----------------------------------------------------------------------------------

def cubic(x, y):
    return x * x * x + math.sin(y)


def test_same_signature_is_transformed_once():
    srcad.autodiff(Reverse, cubic, Active(1.0), Active(2.0))
    size = srcad.build.cache.size()
    first = srcad.autodiff(Reverse, cubic, Active(1.5), Active(0.5))
    assert srcad.build.cache.size() == size
    assert first == pytest.approx((3 * 1.5 ** 2, math.cos(0.5)))


def test_different_signature_is_transformed_separately():
    srcad.autodiff(Reverse, cubic, Active(1.0), Active(2.0))
    size = srcad.build.cache.size()
    derivs = srcad.autodiff(Reverse, cubic, Active(1.0), 2.0)
    assert srcad.build.cache.size() == size + 1
    assert derivs == (pytest.approx(3.0), None)
    srcad.autodiff(Reverse, cubic, Active(4.0), 0.1)
    assert srcad.build.cache.size() == size + 1


def _pair(a, b):
    return a + b, a * b


def keeps_a_tuple(x, y, k):
    t = _pair(x, y)
    return t[k] * t[1]  # a variable index: the tuple cannot be split into variables


def test_tuple_valued_variable_is_refused_not_silently_zero():
    with pytest.raises(srcad.SrcadError, match="tuple") as err:
        srcad.autodiff(srcad.Reverse, keeps_a_tuple, srcad.Active(0.5), srcad.Active(2.0), 0)
    assert "test_refusals.py" in str(err.value)


def _scaled_by_name(p, rows):
    total = 0.0
    for n in range(len(rows)):
        total += eval("p[0]") * rows[n]
    return total


def _helper_reading_locals(x):
    return locals()["x"] * 2.0


def _through_helper(x):
    return _helper_reading_locals(x) + x


@pytest.mark.parametrize("f, args, construct", [
    (_scaled_by_name, (np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])), "eval()"),
    (_through_helper, (1.5,), "locals()"),
])
def test_code_run_by_name_is_refused_not_given_a_zero_derivative(f, args, construct):
    # eval("p[0]") * rows[n] once gave the gradient [0, 0] (it is [6, 0])
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.grad(f)(*args)
    assert construct in str(caught.value) and __file__ in str(caught.value)
