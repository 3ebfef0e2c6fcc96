"""Lists built as people build them: appended to in nested loops, in a counted `while` loop,
created and used within a loop body, bound by literals in the arms of an `if`, and read
while they fill (srcad/transform/normalize/conditional_lists.py, list_room.py, list_arms.py).
Each gradient is checked against finite differences and forward against reverse
(`check_grads`, every mode) with mixed annotations, some against one derived by hand; an index
out of range raises what Python raises; what is still refused names its line."""

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Forward, Reverse
from srcad.testing import check_grads


def products(x, a):
    ys = []
    for i in range(len(x)):
        for j in range(len(x)):
            ys.append(x[i] * x[j] * a)
    s = 0.0
    for y in ys:
        s = s * 0.5 + y
    return sum(ys) + ys[3] * ys[-1] + np.array(ys)[2] + s


def ordered_pairs(x, a):
    ys = []
    for i in range(len(x)):
        for j in range(i + 1, len(x)):  # the inner trip count depends on i
            if x[i] > x[j]:
                ys.append(x[i] * x[j] + a)
            elif x[j] > a:
                continue
            else:
                ys.append(a * x[j])
    return sum(ys) * len(ys) + max(ys) - min(ys) + ys[1]


def counted_while(x, n):
    ys = []
    i = 0
    while i < n:
        ys.append(x[i] ** 2)
        if x[i] > 1.0:
            break
        i += 1
    return sum(ys) * ys[-1]


def counted_while_inclusive(x, a):
    ys = []
    k = 1
    while k <= len(x) - 1:
        for j in range(k):  # a for loop nested in the while
            ys.append(x[k] * x[j] * a)
        k += 1
    return sum(ys) + ys[-1] * ys[0]


def while_in_a_for(x, a):
    ys = []
    for i in range(len(x)):
        j = i // 2  # the counter set just before its while: its trip count is known
        while j <= i:
            ys.append(x[j] * x[i] + a)
            j += 1
    return sum(ys) * ys[-1] + min(ys)


def list_per_iteration(x, a):
    total = 0.0
    for i in range(len(x)):
        ys = []
        for j in range(len(x)):
            if x[j] > x[i]:
                ys.append(x[i] * x[j] * a)
        if ys:
            total += sum(ys) * ys[0]
        else:
            total -= x[i]
    return total


def growing_list_per_iteration(x):
    total = 0.0
    for i in range(len(x)):
        ys = []
        for j in range(i + 1):  # one element more each iteration
            ys.append(x[i] * x[j])
        ys.append(x[i])
        total += sum(ys) * ys[-2] + len(ys)
        for y in ys:  # looped over within the iteration
            total = total * 0.5 + y
    return total


def first_three(x):
    ys = []
    for i in range(len(x)):
        if len(ys) < 3:
            ys.append(x[i] ** 2)
    return ys[-1] + sum(ys)


def running_product(x, a):
    ys = [a]
    for i in range(len(x)):
        if not ys or ys[-1] > 2.0:
            ys.append(x[i])
        else:
            ys.append(ys[-1] * x[i] + sum(ys) * 0.1)
    return ys[-1] + ys[2]


def literal_in_each_arm(x, c):
    if c > 0:
        ys = [x[0], x[1]]
    else:
        ys = [x[1], x[2], x[3]]
    ys.append(x[2])
    return ys[0] * ys[2] + sum(ys)


def literal_in_each_arm_then_loop(x, c):
    if c > 1:
        ys = [x[0], x[1]]
    elif c > 0:
        ys = [x[3]]
    else:
        ys = [x[1] * c, x[2]]
    for i in range(3):
        ys.append(x[i] * ys[-1])
    return ys[-1] * ys[0] + len(ys)


def comprehensions_in_loops(x, a):
    ys = [x[i] * x[j] + a for i in range(len(x)) for j in range(i) if x[j] > x[i]]
    total = sum(ys) * len(ys) + ys[0]
    for i in range(len(x)):
        zs = [v * x[i] for v in x if v > x[i]]  # a comprehension in a loop body
        if zs:
            total += max(zs) + sum(zs)
    return total


def reads_an_empty_list(x):
    ys = []
    for i in range(len(x)):
        ys.append(ys[-1] * x[i])  # ys[-1] of an empty list: IndexError
    return sum(ys)


X = np.array([0.3, -0.7, 1.1, 0.4, 0.9])


def _dup(a):
    return Duplicated(a.copy(), np.zeros_like(a))


def _reverse_gradient(f, *args):
    args = [_dup(a) if isinstance(a, np.ndarray) else a for a in args]
    srcad.autodiff(Reverse, f, *args)
    return args[0].shadow


def test_appends_in_nested_loops():
    check_grads(products, _dup(X), Active(0.7))
    check_grads(products, X.copy(), Active(0.7))  # x Const
    check_grads(products, _dup(X), 0.7)  # a Const
    # sum(ys) = a (sum x)^2: its gradient 2 a sum(x) in every entry
    def total(x, a):
        ys = []
        for i in range(len(x)):
            for j in range(len(x)):
                ys.append(x[i] * x[j] * a)
        return sum(ys)
    np.testing.assert_allclose(_reverse_gradient(total, X, 0.7), 2 * 0.7 * X.sum() * np.ones(5),
                               rtol=1e-14)


def test_appends_in_a_loop_whose_trip_count_depends_on_the_outer_one():
    for a in (0.5, -0.2):  # which pairs take which arm
        check_grads(ordered_pairs, _dup(X), Active(a))
        check_grads(ordered_pairs, _dup(X), a)  # a Const


def test_appends_in_a_counted_while_loop():
    check_grads(counted_while, _dup(X), 4)  # stops at x[2] = 1.1 > 1: three elements
    check_grads(counted_while, _dup(X), 2)
    # n = 2: ys = [x0^2, x1^2], f = (x0^2 + x1^2) x1^2
    want = [2 * X[0] * X[1] ** 2, 2 * X[1] * (X[0] ** 2 + 2 * X[1] ** 2), 0.0, 0.0, 0.0]
    np.testing.assert_allclose(_reverse_gradient(counted_while, X, 2), want, rtol=1e-14)
    check_grads(counted_while_inclusive, _dup(X), Active(0.6))
    check_grads(counted_while_inclusive, X.copy(), Active(0.6))
    check_grads(while_in_a_for, _dup(X), Active(0.1))


def test_a_list_created_in_a_loop_body_is_used_within_the_iteration():
    check_grads(list_per_iteration, _dup(X), Active(1.3))
    check_grads(list_per_iteration, _dup(X), 1.3)
    check_grads(growing_list_per_iteration, _dup(X))


def test_a_loop_reads_the_list_it_fills():
    check_grads(first_three, _dup(X))
    np.testing.assert_allclose(_reverse_gradient(first_three, X),
                               [2 * X[0], 2 * X[1], 4 * X[2], 0.0, 0.0], rtol=1e-14)
    check_grads(running_product, _dup(X), Active(0.8))
    check_grads(running_product, _dup(X), Active(2.5))  # ys[-1] > 2 at the start
    check_grads(running_product, X.copy(), Active(0.8))


def test_a_list_bound_by_a_literal_in_each_arm_of_an_if():
    check_grads(literal_in_each_arm, _dup(X), 1.0)
    check_grads(literal_in_each_arm, _dup(X), -1.0)
    # c < 0: ys = [x1, x2, x3, x2], f = x1 x3 + x1 + 2 x2 + x3
    want = [0.0, X[3] + 1.0, 2.0, X[1] + 1.0, 0.0]
    np.testing.assert_allclose(_reverse_gradient(literal_in_each_arm, X, -1.0), want,
                               rtol=1e-14)
    for c in (2.0, 0.5, -0.5):
        check_grads(literal_in_each_arm_then_loop, _dup(X), Active(c))


def test_comprehensions_with_two_fors_and_in_a_loop_body():
    check_grads(comprehensions_in_loops, _dup(X), Active(0.2))
    check_grads(comprehensions_in_loops, _dup(X), 0.2)


def test_an_index_out_of_range_while_the_list_fills_raises_index_error():
    with pytest.raises(IndexError):
        reads_an_empty_list(X.copy())
    for mode in (Reverse, Forward):
        with pytest.raises(IndexError):
            srcad.autodiff(mode, reads_an_empty_list, _dup(X))


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_numba_differentiates_lists_in_loops():
    pytest.importorskip("numba")
    check_grads(ordered_pairs, _dup(X), Active(0.5), backend="numba")
    check_grads(running_product, _dup(X), Active(0.8), backend="numba")


def list_read_after_its_loop(x):
    for i in range(len(x)):
        ys = []
        for j in range(i):
            ys.append(x[j])
    return ys[0]  # the last iteration's list, outside the body that makes it


def appended_while_looping_over_it(x):
    ys = [x[0]]
    for y in ys:  # Python would loop over the elements appended too
        if y < 10.0:
            ys.append(y * 2.0)
    return sum(ys)


@pytest.mark.parametrize("f, line", [(list_read_after_its_loop, 2),
                                     (appended_while_looping_over_it, 1)])
def test_what_is_still_refused_names_its_line(f, line):
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, f, _dup(X))
    assert info.value.construct == "list"
    assert info.value.line == f.__code__.co_firstlineno + line
    assert "and while loops" in str(info.value)
