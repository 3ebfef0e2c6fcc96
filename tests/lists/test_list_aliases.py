"""Lists given another name, passed to the user's own functions (positionally, by keyword,
to a helper that appends to them) and returned from them, copied (`list(ys)`, `ys[:]`,
`ys.copy()`): srcad/transform/normalize/list_calls.py. Each derivative is checked against
central finite differences of the Python function and forward against reverse
(`check_grads`) in every mode, with mixed annotations; what stays refused names its file and
line."""

import os

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated
from srcad.testing import check_grads

THIS_FILE = os.path.basename(__file__)


def total(xs):
    s = 0.0
    for v in xs:
        s += v * v
    return s + len(xs) * xs[0]


def aliased_and_passed(x):
    ys = []
    for i in range(len(x)):
        ys.append(np.sin(x[i]))
    zs = ys  # another name for the same list
    return total(zs) + total([x[0], 2.0 * x[1]])


def feats(x):
    return [x[0] * x[1], x[1] ** 2]


def returned_literal(x):
    fs = feats(x)
    s = 0.0
    for v in feats(x):  # a returned list looped over
        s += v
    return fs[0] + fs[1] * 2.0 + s * feats(x)[1]


def push(out, v, w):
    out.append(v * w)
    if v > 0.0:
        out.append(v)


def appended_by_helper(x, a):
    ys = []
    for i in range(len(x)):
        push(ys, x[i], a)  # Python appends to the caller's list
    return sum(ys) + len(ys) * a + ys[-1] * ys[0]


def append_one(out, v):
    out.append(v)


def appended_in_straight_line(x):
    ys = [x[0]]
    append_one(ys, x[1] * x[2])
    append_one(out=ys, v=x[3])  # by keyword
    return ys[0] * ys[1] + ys[2] ** 2


def run(h0, xs, c):
    hs = []
    h = h0
    for i in range(len(xs)):
        h = np.tanh(h * c + xs[i])
        hs.append(h)
    return hs


def stacked(hs):
    return np.sum(np.stack(hs) ** 2)


def list_of_arrays(h0, x, c):
    hs = run(h0, x, c)
    return stacked(hs) + np.sum(hs[-1]) * len(hs)


def weighted(xs, scale=1.0):
    return scale * sum(xs) + len(xs)


def by_keyword(x, a):
    ys = [x[0] * a, x[1]]
    return weighted(xs=ys, scale=a) * len(ys) + weighted(ys)


def alias_then_append(x):
    ys = [x[0]]
    zs = ys
    zs.append(x[1] * x[2])  # seen through `ys` too
    return sum(ys) * ys[1] + zs[0]


def copies(x):
    ys = []
    for v in x:
        ys.append(v * v)
    zs = list(ys)
    ws = ys[:]
    us = ys.copy()
    zs[0] = 3.0 * x[0]  # a copy: `ys` keeps its first element
    ws.append(x[1])
    return sum(zs) + ws[-1] * us[1] + ys[0] + len(ws)


def last_two(xs):
    return xs[-1] * xs[-2]


def passes_on(xs, c):
    return last_two(xs) + c * total(xs)


def nested_helpers(x, c):
    ys = [v * c for v in x if v > -1.0]
    return passes_on(ys, c)


def extend_in_place(xs, v):
    xs += [v, v * v]  # in place: the caller's list


def extended_by_helper(x):
    ys = [x[0]]
    extend_in_place(ys, x[1] * x[2])
    return sum(ys) * len(ys) + ys[-1]


def same(xs):
    return xs


def returned_parameter(x):
    ys = [x[0]]
    zs = same(ys)  # the same list
    zs.append(x[1] * 3.0)
    return ys[-1] * len(ys) + zs[0]


def two_results(x):
    p = feats(x)
    q = feats(x * 2.0)  # another list
    p[0] = p[0] * 3.0
    return p[0] + q[0] + p[1] * q[1]


def results_in_a_loop(x):
    s = 0.0
    for i in range(3):
        fs = feats(x * (i + 1.0))
        s += fs[0] * fs[1]
    return s


def aliased_in_a_loop_body(x):
    s = 0.0
    for i in range(len(x)):
        ys = []
        for j in range(i + 1):
            ys.append(x[j] * x[i])
        zs = ys
        zs.append(x[i])
        s += sum(ys) * len(zs)
    return s


def local_helpers(x, c):
    def push(out, v):
        out.append(v * c)  # c: the enclosing function's
    ys = []
    for i in range(len(x)):
        if x[i] > 0.0:
            push(ys, x[i])
    add = lambda zs: sum(zs) * len(zs)  # noqa: E731
    return add(ys) + len(ys) + add([x[0], c])


def closure_appends(x):
    ys = []

    def push(v):
        ys.append(v * v)  # the enclosing function's list, from the closure

    for i in range(len(x)):
        push(x[i])
    return sum(ys) * len(ys)


X = np.array([0.3, -0.7, 1.1, 0.4])
H0 = np.array([0.1, -0.2, 0.3, 0.2])


def _dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


CASES = [
    ("alias and helper", aliased_and_passed, lambda: [_dup(X)]),
    ("returned literal", returned_literal, lambda: [_dup(X)]),
    ("helper appends", appended_by_helper, lambda: [_dup(X), Active(0.5)]),
    ("helper appends, Const x", appended_by_helper, lambda: [X.copy(), Active(0.5)]),
    ("straight-line appends", appended_in_straight_line, lambda: [_dup(X)]),
    ("list of arrays", list_of_arrays, lambda: [_dup(H0), _dup(X), Active(0.7)]),
    ("list of arrays, Const h0 c", list_of_arrays, lambda: [H0.copy(), _dup(X), 0.7]),
    ("keywords", by_keyword, lambda: [_dup(X), Active(1.3)]),
    ("keywords, Const x", by_keyword, lambda: [X.copy(), Active(1.3)]),
    ("alias then append", alias_then_append, lambda: [_dup(X)]),
    ("copies", copies, lambda: [_dup(X)]),
    ("helpers passing it on", nested_helpers, lambda: [_dup(X), Active(0.8)]),
    ("+= in a helper", extended_by_helper, lambda: [_dup(X)]),
    ("returned parameter", returned_parameter, lambda: [_dup(X)]),
    ("two results", two_results, lambda: [_dup(X)]),
    ("results in a loop", results_in_a_loop, lambda: [_dup(X)]),
    ("alias in a loop body", aliased_in_a_loop_body, lambda: [_dup(X)]),
    ("local def and lambda", local_helpers, lambda: [_dup(X), Active(0.6)]),
    ("local def and lambda, Const x", local_helpers, lambda: [X.copy(), Active(0.6)]),
    ("closure appends", closure_appends, lambda: [_dup(X)]),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_lists_through_names_and_helpers(name, f, args):
    check_grads(f, *args())


def test_a_helper_appends_to_the_callers_list():
    # d/dx of sum(ys) with ys = [x0 a, x0 (x0 > 0), x1 a, ...]: a + 1 where x > 0, a elsewhere,
    # plus the ys[-1] * ys[0] term and len(ys) * a (no x in it); derived by hand
    a = 0.5
    x = np.array([0.3, -0.7])
    shadow = np.zeros(2)
    srcad.autodiff(srcad.Reverse, appended_by_helper, Duplicated(x.copy(), shadow), a)
    ys = [x[0] * a, x[0], x[1] * a]  # the last: x[1] a; the first: x[0] a
    want = np.array([a + 1.0 + ys[-1] * a, a + a * ys[0]])
    np.testing.assert_allclose(shadow, want, rtol=1e-12)


@pytest.mark.parametrize("f, args", [
    (aliased_and_passed, lambda: [_dup(X)]),
    (appended_by_helper, lambda: [_dup(X), Active(0.5)]),
])
def test_numba(f, args):
    check_grads(f, *args(), modes=("rev", "fwd"), backend="numba")


# -- what stays refused --------------------------------------------------------------------

def grow(out, v):
    out.append(v)
    return v


def reads_beside_a_call_that_appends(x):
    ys = [x[0]]
    s = ys[-1] + grow(ys, x[1])  # Python reads ys[-1] first, then appends
    return s + sum(ys)


def alias_read_beside_a_call_that_appends(x):
    ys = [x[0]]
    zs = ys
    s = zs[-1] * 2.0 + grow(ys, x[1])  # zs[-1] is read before the append
    return s + sum(ys)


def alias_rebound_later(x):
    ys = []
    for v in x:
        ys.append(v)
    zs = ys
    ys = [x[0]]
    return sum(zs) + sum(ys)


def with_nested_def(xs):
    def square(v):
        return v * v
    return square(xs[0])


def helper_defines_a_function(x):
    ys = [x[0], x[1]]
    return with_nested_def(ys)


def rebinds(xs):
    xs = xs + [1.0]  # a new list: the caller's keeps its length
    return sum(xs) * len(xs)


def helper_rebinds_its_parameter(x):
    ys = [x[0], x[1] * x[2]]
    return rebinds(ys) + sum(ys) * len(ys)


def _line_of(f, text):
    import inspect
    lines, first = inspect.getsourcelines(f)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("f, text", [
    (reads_beside_a_call_that_appends, "ys = [x[0]]"),
    (alias_rebound_later, "ys = []"),
    (alias_read_beside_a_call_that_appends, "ys = [x[0]]"),
    (helper_defines_a_function, "ys = [x[0], x[1]]"),
    (helper_rebinds_its_parameter, "ys = [x[0], x[1] * x[2]]"),
])
def test_refused_with_file_and_line(f, text):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(srcad.Reverse, f, _dup(X))
    message = str(info.value)
    assert f"{THIS_FILE}:{_line_of(f, text)}:" in message
    assert "list: not supported" in message
    assert "another name" in message and "own functions" in message


SCALE = 2.0


def scaled_total(xs):
    return SCALE * sum(xs)


def uses_scaled_total(x):
    ys = [x[0] * x[1], x[2]]
    return scaled_total(ys)


def test_a_global_read_by_a_helper_inlined_early_is_checked_by_the_cache():
    # d/dx of SCALE (x0 x1 + x2) is SCALE (x1, x0, 1, 0): rebinding SCALE must rebuild
    global SCALE
    try:
        for scale in (2.0, 3.0):
            SCALE = scale
            shadow = np.zeros(4)
            srcad.autodiff(srcad.Reverse, uses_scaled_total, Duplicated(X.copy(), shadow))
            np.testing.assert_allclose(shadow, scale * np.array([X[1], X[0], 1.0, 0.0]))
    finally:
        SCALE = 2.0
