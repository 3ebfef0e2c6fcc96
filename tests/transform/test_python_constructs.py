"""Python as people write it around the math: comprehensions reduced by sum/max/min, zip,
enumerate(start), reversed ranges, loop else, tuple locals, keyword arguments and defaults,
nested functions, lambdas, functools.partial, and decorators that are not srcad's.

Every construct is checked in reverse, forward and vector mode against central finite
differences (srcad.testing.check_grads), on the python backend and under numba; where the
derivative has an easy closed form it is checked exactly too.
"""

import functools

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Forward, Reverse
from srcad.testing import check_grads

# --- comprehensions -----------------------------------------------------------------------


def power_series(x, n):
    return sum(x ** i / (i + 1) for i in range(n))


def reductions(x, y):
    total = sum([x[i] * y[i] for i in range(len(x))], 0.5)
    top = max(v * v for v in x if v > 0.0)
    low = min(x[i] - y[i] for i in range(len(x)))
    return total + top * low


def nested_generators(x, y):
    inner = sum(x[i] * y[j] for i in range(len(x)) for j in range(i))
    nested = sum(sum(x[i] * y[j] for j in range(len(y))) * x[i] for i in range(len(x)))
    return inner + nested


def comprehension_variable_is_not_the_functions(x, y):
    i = 2
    s = sum(x[i] * x[i] for i in range(len(x)))  # this `i` is the comprehension's own
    return s * y[i]


# --- loops ---------------------------------------------------------------------------------


def zipped(x, y, n):
    s = 0.0
    for a, b, k in zip(x, y, range(1, n, 2)):
        s += a * b * k
    return s


def enumerated(x, y):
    s = 0.0
    for i, v in enumerate(x, 3):
        s += v * i
    for i, v in enumerate(y, start=-1):
        s += v * i * v
    return s


def enumerated_zip(x, y):
    s = 0.0
    for i, (u, v) in enumerate(zip(x, y), 1):
        s += u * v * i
    return s


def reversed_ranges(x, n):
    s = 0.0
    for v in reversed(x):
        s = s * 0.75 + v * v
    for i, (u, v) in enumerate(zip(reversed(x), x)):
        s += u * v * i
    for i in reversed(range(n)):
        s = s * 0.5 + x[i % len(x)]
    for i in reversed(range(1, n, 2)):
        s = s * 0.25 + x[i % len(x)] * s
    return s


def loop_else(x, n):
    s = x
    for _ in range(n):
        s = s * x
        if s > 10.0:
            break
    else:
        s = s + 1.0  # runs only when the loop did not break
    k = 0
    while k < n:
        k += 1
    else:
        s = s * 2.0
    return s


# --- tuples --------------------------------------------------------------------------------


def _pair(a, b):
    return a + b, a * b


def tuple_from_helper(x, y):
    t = _pair(x, y)
    return t[0] * t[1] + t[-1]


def loop_over_helper_tuple(x, y):
    s = 0.0
    for w in _pair(x, y):
        s = s * x + w
    return s


def tuple_locals(x, y):
    t = (x * y, x - y, 3.0)
    u = t
    a, b, c = u
    if x > 0.0:
        t = (t[1], t[0], t[-1] * x)  # a swap through the tuple's own elements
    return t[0] * a + t[1] * b + t[2] * c


# --- lists of known length -------------------------------------------------------------------


def fixed_lists(x, y):
    xs = [1.0, x * x, y]
    xs[0] = xs[2] * x
    xs[-1] += y * y
    s = sum(xs) + len(xs) * max(xs) - min(xs)
    for v in xs:
        s = s * 0.5 + v
    for w in (x, y, 2.0):  # the tuple is built before the loop changes x
        s = s + w * w
        x = x * 1.1
    total = sum(v * v for v in xs)
    xs = [xs[1], xs[0], xs[2]]  # a swap: every element is read before any is written
    return s + total + xs[0] * 3.0


def rebound_to_other_sizes(x, y):
    t = (x, y, x * y)
    s = t[-1] * t[0]
    t = (s, x)  # another size: t[-1] is now x
    zs = [t[-1], s, y]
    s = s + t[-1] * zs[-1]
    zs = [zs[0] * s, zs[-1]]
    return s * zs[-1] + zs[0]


def list_comprehension_kept(x, a):
    ys = [x[i] * a + i for i in range(3)]  # constant bounds: a list of known length
    zs = [ys[k] * ys[k] for k in range(1, 3)]
    return sum(ys) * zs[0] + max(zs) + len(zs)


def grown_list(x, a, n):
    terms = []
    for i in range(1, n):
        t = x[i % len(x)] * a + i
        terms.append(t * t)
    s = sum(terms) + len(terms) * terms[0] + max(terms) - min(terms)
    for v in terms:
        s = s * 0.5 + v
    return s + terms[len(terms) - 1]


# --- calls ---------------------------------------------------------------------------------


def helper_with_options(a, b=2.0, *, c=3.0):
    return a * b + c * a * a


def keyword_calls(x, y):
    return helper_with_options(x, c=y) + helper_with_options(y, b=x) + helper_with_options(b=y,
                                                                                           a=x)


def nested_def_and_lambda(x, y):
    scale = y * 2.0

    def h(a, p=2):
        t = a * scale  # `scale` is the enclosing function's, read when h is called
        return t ** p

    sq = lambda a: a * a + scale  # noqa: E731
    first = h(x)
    scale = scale + x  # late binding, as Python's closures
    return first + sq(h(y, p=3))


BOUND = functools.partial(helper_with_options, c=0.5)


def calls_partial(x):
    return BOUND(x) * x + BOUND(x, 3.0)


def twice(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@twice
def doubled_square(x):
    return x * x


def scaled(x, y, weight=0.5):
    return weight * x * y


X = np.array([0.3, -0.7, 1.1, 0.4])
Y = np.array([0.9, 0.2, -0.5, 1.4, 0.6])


def _dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


CASES = [
    ("sum of a generator", power_series, lambda: (Active(0.7), 6)),
    ("sum/max/min of comprehensions", reductions, lambda: (_dup(X), _dup(Y))),
    ("nested generators", nested_generators, lambda: (_dup(X), _dup(Y))),
    ("comprehension scope", comprehension_variable_is_not_the_functions,
     lambda: (_dup(X), _dup(Y))),
    ("zip", zipped, lambda: (_dup(X), _dup(Y), 9)),
    ("enumerate start", enumerated, lambda: (_dup(X), _dup(Y))),
    ("enumerate of zip", enumerated_zip, lambda: (_dup(X), _dup(Y))),
    ("reversed ranges", reversed_ranges, lambda: (_dup(X), 9)),
    ("loop else, no break", loop_else, lambda: (Active(1.2), 3)),
    ("loop else, break", loop_else, lambda: (Active(2.5), 6)),
    ("tuple from helper", tuple_from_helper, lambda: (Active(0.5), Active(2.0))),
    ("tuple locals", tuple_locals, lambda: (Active(0.5), Active(2.0))),
    ("loop over a helper's tuple", loop_over_helper_tuple, lambda: (Active(0.5), Active(2.0))),
    ("tuple locals, other branch", tuple_locals, lambda: (Active(-0.5), Active(2.0))),
    ("fixed-length lists", fixed_lists, lambda: (Active(0.7), Active(1.3))),
    ("list comprehension kept", list_comprehension_kept, lambda: (_dup(X), Active(0.8))),
    ("list grown by append", grown_list, lambda: (_dup(X), Active(0.8), 6)),
    ("rebound to other sizes", rebound_to_other_sizes, lambda: (Active(0.6), Active(-1.2))),
    ("keyword arguments", keyword_calls, lambda: (Active(1.3), Active(0.7))),
    ("nested def and lambda", nested_def_and_lambda, lambda: (Active(0.3), Active(0.7))),
    ("functools.partial helper", calls_partial, lambda: (Active(0.4),)),
    ("user decorator", doubled_square, lambda: (Active(1.5),)),
    ("mixed: Const float", scaled, lambda: (Active(1.5), 2.0)),
]


@pytest.mark.parametrize("name, f, make_args", CASES, ids=[c[0] for c in CASES])
def test_construct_matches_finite_differences_in_every_mode(name, f, make_args):
    check_grads(f, *make_args())


NUMBA_CASES = [c for c in CASES if c[0] in (
    "sum/max/min of comprehensions", "nested generators", "zip", "enumerate start",
    "reversed ranges", "loop else, break", "tuple locals", "fixed-length lists",
    "list comprehension kept", "list grown by append",
    "keyword arguments",
    "nested def and lambda", "functools.partial helper")]


# numba compiles each case in three modes for seconds: the first is `make test`'s smoke test
@pytest.mark.parametrize("name, f, make_args", [
    pytest.param(*c, id=c[0], marks=pytest.mark.slow if k else ())
    for k, c in enumerate(NUMBA_CASES)])
@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_construct_under_numba(name, f, make_args):
    pytest.importorskip("numba")
    check_grads(f, *make_args(), backend="numba")


# --- exact values ----------------------------------------------------------------------------


def test_sum_of_generator_exact():
    x, n = 0.7, 6
    expected = sum(i * x ** (i - 1) / (i + 1) for i in range(1, n))  # d/dx x^i/(i+1)
    dx = srcad.autodiff(Reverse, power_series, Active(x), n)[0]
    assert dx == pytest.approx(expected, rel=1e-14)
    assert srcad.autodiff(Forward, power_series, Duplicated(x, 1.0), n) == \
        pytest.approx(expected, rel=1e-14)


def test_user_decorator_is_differentiated_as_itself():
    """The wrapper returns 2 * x * x: its derivative at 3 is 12, not the wrapped x * x's 6."""
    assert srcad.autodiff(Reverse, doubled_square, Active(3.0)) == (12.0,)
    assert srcad.autodiff(Forward, doubled_square, Duplicated(3.0, 1.0)) == 12.0


def test_keyword_arguments_and_defaults_exact():
    x, y = 1.3, 0.7
    # x*2 + y*x^2 + y*x + 3*y^2 + x*y + 3*x^2
    dx = 2.0 + 2 * y * x + y + y + 6 * x
    dy = x * x + x + 6 * y + x
    got = srcad.autodiff(Reverse, keyword_calls, Active(x), Active(y))
    assert got == pytest.approx((dx, dy), rel=1e-14)


def test_nested_function_reads_the_enclosing_variable_at_the_call():
    x, y = 0.3, 0.7
    # first = (2xy)^2; sq(h(y, 3)) = ((2y+x) y)^6 + (2y+x)
    w = 2 * y + x
    dx = 8 * x * y * y + 6 * (w * y) ** 5 * y + 1.0
    got = srcad.autodiff(Reverse, nested_def_and_lambda, Active(x), Active(y))
    assert got[0] == pytest.approx(dx, rel=1e-13)


def test_fixed_list_exact():
    def sum_of_squares_list(x, y):
        parts = [x * x, x * y, 2.0]
        parts[2] = parts[0] * y
        return sum(parts) + len(parts)
    # x^2 + xy + x^2 y + 3
    got = srcad.autodiff(Reverse, sum_of_squares_list, Active(0.5), Active(3.0))
    assert got == pytest.approx((2 * 0.5 + 3.0 + 2 * 0.5 * 3.0, 0.5 + 0.25), rel=1e-15)


def test_grown_list_exact():
    def sum_of_appended(x, n):
        parts = []
        for i in range(n):
            parts.append(x ** i)
        return sum(parts) + parts[2]
    x = 1.5  # d/dx (1 + x + x^2 + x^3) + d/dx x^2
    got = srcad.autodiff(Reverse, sum_of_appended, Active(x), 4)
    assert got[0] == pytest.approx(1 + 2 * x + 3 * x * x + 2 * x, rel=1e-15)


def test_loop_else_runs_only_without_break():
    # no break (x = 1.2, n = 3): s = x^4 + 1, then * 2: d/dx = 8 x^3
    assert srcad.autodiff(Reverse, loop_else, Active(1.2), 3)[0] == \
        pytest.approx(8 * 1.2 ** 3, rel=1e-14)
    # break at s = x^3 > 10 (x = 2.5): s = x^3, then * 2: d/dx = 6 x^2
    assert srcad.autodiff(Reverse, loop_else, Active(2.5), 6)[0] == \
        pytest.approx(6 * 2.5 ** 2, rel=1e-14)


def test_max_of_generator_picks_the_largest_element():
    x = np.array([0.5, -2.0, 1.5, 1.0])
    grad = np.zeros(4)
    srcad.autodiff(Reverse, largest_doubled, Duplicated(x, grad))
    assert grad.tolist() == [0.0, 0.0, 2.0, 0.0]  # the largest, 2 * x[2]


def largest_doubled(x):
    return max(2.0 * v for v in x)


def largest_square_after(x, k):
    return max(x[i] * x[i] for i in range(k, len(x)))


def smallest_positive(x):
    return min(v for v in x if v > 0.0)


def largest_grown(x, n):
    xs = []
    for i in range(n):
        xs.append(x * i)
    return max(xs)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_max_and_min_of_an_empty_generator_raise_as_python_does(backend):
    """Python raises ValueError for max()/min() of an empty sequence; the lowered loop used to
    return 0.0 and its derivative 0 instead. The message is Python's own."""
    x = np.array([-1.0, 2.0, 3.0])
    cases = [(largest_square_after, (x, 3)), (smallest_positive, (-np.abs(x),))]
    for f, args in cases:
        with pytest.raises(ValueError) as python:
            f(*args)
        for mode in (Reverse, Forward):
            shadow = np.zeros(3) if mode is Reverse else np.ones(3)
            with pytest.raises(ValueError) as generated:
                srcad.autodiff(mode, f, Duplicated(args[0].copy(), shadow), *args[1:],
                               backend=backend)
            assert str(generated.value) == str(python.value)
    # not empty: the same code still answers (d/dx[2] of x[2]^2 is 6; the smallest positive
    # element is x[1] = 2.0, so the gradient is e_1)
    grad = np.zeros(3)
    srcad.autodiff(Reverse, largest_square_after, Duplicated(x, grad), 2, backend=backend)
    assert grad.tolist() == [0.0, 0.0, 6.0]
    grad = np.zeros(3)
    srcad.autodiff(Reverse, smallest_positive, Duplicated(x, grad), backend=backend)
    assert grad.tolist() == [0.0, 1.0, 0.0]
    # a grown list is reduced through the same loop: max(x * i for i < n)
    with pytest.raises(ValueError) as python:
        largest_grown(2.0, 0)
    with pytest.raises(ValueError) as generated:
        srcad.autodiff(Reverse, largest_grown, Active(2.0), 0, backend=backend)
    assert str(generated.value) == str(python.value)
    assert srcad.autodiff(Reverse, largest_grown, Active(2.0), 3, backend=backend) == (2.0, None)


def model(x, w, b=2.0, *, c=3.0):
    return w * x * x + b * x + c


def test_partial_as_the_differentiated_function():
    bound_x = functools.partial(model, 1.5, c=0.25)  # f(w, b=2.0)
    assert srcad.autodiff(Reverse, bound_x, Active(2.0), Active(1.0)) == (1.5 ** 2, 1.5)
    assert srcad.autodiff(Reverse, bound_x, Active(2.0)) == (1.5 ** 2,)  # b's default
    bound_w = functools.partial(model, w=0.5)  # f(x)
    assert srcad.autodiff(Forward, bound_w, Duplicated(2.0, 1.0)) == 2 * 0.5 * 2.0 + 2.0
    check_grads(bound_x, Active(0.7), Active(1.1))


def test_partial_leaving_a_keyword_only_parameter_is_refused():
    def needs_c(x, *, c):
        return x * c
    with pytest.raises(srcad.ArgumentError, match="`c` to be passed by keyword"):
        srcad.autodiff(Reverse, functools.partial(needs_c), Active(1.0))


def second_order(x):
    def power(a, p=2):
        return a ** p
    t = (x[0] * x[1], x[1])
    parts = [t[0], power(x[0], p=3)]
    return sum(power(v) for v in x) + sum(parts) + t[1] * t[0]


def test_hessian_through_lowered_constructs():
    """Second order differentiates srcad's generated reverse code, lowered again."""
    x = np.array([0.3, 0.7, -0.2])
    # sum v^2 + x0 x1 + x0^3 + x0 x1^2
    x0, x1 = x[0], x[1]
    expected = np.array([[2 + 6 * x0, 1 + 2 * x1, 0.0],
                         [1 + 2 * x1, 2 + 2 * x0, 0.0],
                         [0.0, 0.0, 2.0]])
    assert np.allclose(srcad.hessian(second_order, x), expected, rtol=1e-13, atol=1e-13)


def make_loss(data, weight=0.5):
    def residual(p, d):
        return p[0] * d + p[1] - d * d

    def loss(params):
        return weight * sum(residual(params, data[i]) ** 2 for i in range(len(data)))
    return loss


def test_closure_from_a_factory():
    """A loss made by a factory reads its data and weight from closure cells, and calls a
    helper defined next to it."""
    data = np.array([0.1, 0.5, 0.9])
    loss = make_loss(data)
    p = np.array([0.3, -0.2])
    r = p[0] * data + p[1] - data * data
    expected = np.array([2 * 0.5 * np.sum(r * data), 2 * 0.5 * np.sum(r)])
    assert np.allclose(srcad.gradient(loss, p), expected, rtol=1e-14, atol=1e-15)
    check_grads(loss, Duplicated(p.copy(), np.zeros(2)))
