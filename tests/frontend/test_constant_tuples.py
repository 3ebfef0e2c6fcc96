"""Constant tuples and lists of numbers a function reads (a default argument, a Const or
Constant argument, a global, a closure cell) read by index, len, loops, enumerate, zip and sum
as Python reads them; whole-tuple uses refused at the name; refusals that name no name srcad
made (srcad/frontend/constant_sequences.py, srcad/analysis/type_refusals.py, ParsedFunction.error).
"""

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated, Forward, Reverse
from srcad.testing import check_grads

COEFFS = (1.0, 2.0, 3.0)
WEIGHTS = [0.5, 0.25]
ORDER = (2, 0, 1)
PAIRS = ((1.0, 2.0), (3.0, 4.0))
GENERATED = ("sum_of", "c_1", "rnn_hs", "rnn_result", "_result", "_1")


def poly(x, coeffs=(1.0, 2.0, 3.0)):
    return sum(c * x ** k for k, c in enumerate(coeffs))


def poly_global(x):
    s = 0.0
    for k in range(len(COEFFS)):
        s = s + COEFFS[k] * x ** k
    return s


def weighted(x, w):
    s = 0.0
    for wi, xi in zip(w, x):
        s = s + wi * np.sin(xi)
    for c in w:
        s = s + c * x[0] * x[1]
    return s + sum(w) * x[len(w) - 1] ** 2


def permuted(x, order=(2, 0, 1)):
    s = 0.0
    for k in range(len(order)):
        s = s + (k + 1.0) * x[order[k]] * x[k]
    return s


def global_list(x):
    return sum(w * np.exp(x[k]) for k, w in enumerate(WEIGHTS)) + x[ORDER[0]] * WEIGHTS[1]


def scaled(data):
    def f(x):
        return data[0] * x * x + data[1] * x
    return f


def test_the_default_tuple_of_the_report():
    x = 0.5
    assert srcad.derivative(poly, x) == pytest.approx(2.0 + 2 * 3.0 * x)
    check_grads(poly, Active(0.7))


def test_a_global_tuple_by_variable_index():
    assert srcad.derivative(poly_global, 0.5) == pytest.approx(2.0 + 2 * 3.0 * 0.5)
    check_grads(poly_global, Active(-0.3))


@pytest.mark.parametrize("w", [(0.5, 1.5, 2.0), [0.5, 1.5, 2.0], (1, 2, 3)])
def test_a_const_tuple_or_list_with_zip_loops_len_and_sum(w):
    x = np.array([0.3, 0.7, 1.1])

    def closed(x):  # check_grads passes constants bare (a bare tuple is a container)
        return weighted(x, w)
    check_grads(closed, Duplicated(x, np.zeros(3)))
    expected = np.array(w, dtype=float) * np.cos(x)
    expected[0] += sum(w) * x[1]
    expected[1] += sum(w) * x[0]
    expected[-1] += 2 * sum(w) * x[-1]
    assert srcad.gradient(weighted, x, srcad.Constant(w)) == pytest.approx(expected)
    shadow = np.zeros(3)
    srcad.autodiff(Reverse, weighted, Duplicated(x, shadow), Const(w))
    assert shadow == pytest.approx(expected)
    v = np.array([0.5, -1.0, 2.0])
    tangent = srcad.autodiff(Forward, weighted, Duplicated(x, v), Const(w))
    assert tangent == pytest.approx(expected @ v)


def test_an_int_tuple_indexes():
    x = np.array([0.3, 0.7, 1.1])
    check_grads(permuted, Duplicated(x, np.zeros(3)))
    expected = np.zeros(3)
    for k, j in enumerate((2, 0, 1)):
        expected[j] += (k + 1.0) * x[k]
        expected[k] += (k + 1.0) * x[j]
    assert srcad.gradient(permuted, x) == pytest.approx(expected)


def test_a_global_list_and_an_int_global_tuple():
    x = np.array([0.2, -0.4, 0.9])
    check_grads(global_list, Duplicated(x, np.zeros(3)))
    expected = np.array([0.5 * np.exp(x[0]), 0.25 * np.exp(x[1]), 0.25])
    assert srcad.gradient(global_list, x) == pytest.approx(expected)


def test_a_closure_cell_and_its_rebuild():
    f = scaled([2.0, 3.0])
    check_grads(f, Active(0.4))
    assert srcad.derivative(f, 0.5) == pytest.approx(2 * 2.0 * 0.5 + 3.0)
    g = scaled((4.0, -1.0))
    assert srcad.derivative(g, 0.5) == pytest.approx(2 * 4.0 * 0.5 - 1.0)


def test_a_rebound_global_tuple_rebuilds():
    global COEFFS
    old = COEFFS
    try:
        COEFFS = (0.0, 1.0, 10.0)
        assert srcad.derivative(poly_global, 0.5) == pytest.approx(1.0 + 20.0 * 0.5)
    finally:
        COEFFS = old
    assert srcad.derivative(poly_global, 0.5) == pytest.approx(2.0 + 2 * 3.0 * 0.5)


def test_a_global_list_changed_in_place_is_read_as_it_is():
    x = np.array([0.2, -0.4, 0.9])
    srcad.gradient(global_list, x)
    WEIGHTS[0] = 5.0
    try:
        got = srcad.gradient(global_list, x)
    finally:
        WEIGHTS[0] = 0.5
    assert got == pytest.approx([5.0 * np.exp(x[0]), 0.25 * np.exp(x[1]), 0.25])


def numba_case(x, coeffs=(0.5, 2.0)):
    s = 0.0
    for k, c in enumerate(coeffs):
        s = s + c * x[k] * COEFFS[k + 1]
    return s * x[ORDER[2]]


MIXED = [0.5, 1.5, -2.0]


def numpy_reads(x):
    s = np.sum(MIXED) * x[0] + np.dot(MIXED, x)
    for k, c in enumerate(MIXED):
        s = s + c * x[ORDER[k]] ** 2
    for c, v in zip(MIXED, x):
        s = s + c * np.sin(v)
    return s + len(MIXED) * np.mean(MIXED) * x[len(ORDER) - 1] + np.max(MIXED) * x[0] * x[1]


def test_numpy_reads_of_a_global_list():
    x = np.array([0.3, -0.2, 0.8])
    check_grads(numpy_reads, Duplicated(x, np.zeros(3)))
    c = np.array(MIXED)
    expected = c * np.cos(x) + c + np.sum(c) * np.array([1.0, 0.0, 0.0])
    for k, j in enumerate(ORDER):
        expected[j] += 2 * c[k] * x[j]
    expected[2] += 3 * np.mean(c)
    expected[0] += np.max(c) * x[1]
    expected[1] += np.max(c) * x[0]
    assert srcad.gradient(numpy_reads, x) == pytest.approx(expected)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba():
    pytest.importorskip("numba")
    x = np.array([0.3, 0.7])
    check_grads(numba_case, Duplicated(x, np.zeros(2)), modes=("rev", "fwd"), backend="numba")
    x = np.array([0.3, -0.2, 0.8])
    check_grads(numpy_reads, Duplicated(x, np.zeros(3)), modes=("rev", "fwd"), backend="numba")


def whole_tuple(x, w=(1.0, 2.0)):
    return x * len(w + (3.0,))


def nested_default(x, coeffs=((1.0, 2.0), (3.0, 4.0))):
    return sum(c[0] * x ** c[1] for c in coeffs)


def _problems(call):
    with pytest.raises(srcad.SrcadError) as info:
        call()
    err = info.value
    return [str(p) for p in getattr(err, "problems", [err])] or [str(err)]


def test_a_whole_tuple_use_is_refused_once_at_the_name():
    problems = _problems(lambda: srcad.derivative(whole_tuple, 0.5))
    assert len(problems) == 1 and "`w`" in problems[0], problems


def test_a_tuple_of_tuples_is_one_refusal_naming_it():
    problems = _problems(lambda: srcad.derivative(nested_default, 0.5))
    assert len(problems) == 1 and "`coeffs`" in problems[0], problems
    assert not any(g in problems[0] for g in GENERATED), problems


def reduction_of_guess(x):
    return sum(divmod(x, 1.0)[0] for _ in range(2))


def test_a_reduction_is_named_as_written():
    problems = _problems(lambda: srcad.autodiff(Reverse, reduction_of_guess, Active(0.5)))
    assert any("`sum(divmod(x, 1.0)[0] for _ in range(2))`" in p for p in problems), problems
    assert not any(g in p for p in problems for g in GENERATED), problems


def rnn(x, w):
    hs = x
    for _ in range(2):
        hs = divmod(w, 1.0)
        hs = hs[0] * x
    return hs * x


def calls_rnn(x):
    return rnn(x, 2.0) + x


def test_a_helpers_local_is_named_as_the_helper_spells_it():
    problems = _problems(lambda: srcad.autodiff(Forward, calls_rnn, Duplicated(0.5, 1.0)))
    assert len(problems) == 1, problems
    assert "`hs`" in problems[0] and "in rnn, called from calls_rnn" in problems[0], problems
    assert not any(g in problems[0] for g in GENERATED), problems


def comprehension_variable(x):
    s = 0.0
    for _ in range(2):
        s = s + sum(c[0] * x for c in (divmod(x, 1.0), divmod(x, 2.0)))
    return s


def test_a_comprehension_names_no_generated_name():
    problems = _problems(lambda: srcad.derivative(comprehension_variable, 0.5))
    assert not any(g in p for p in problems for g in GENERATED), problems
    assert not any("`s`" in p for p in problems), problems  # a consequence, not a cause


def sum_beside_a_list(y, a, cs=(1.0, 2.0)):
    s = a
    terms = []
    for i in range(2, len(y)):
        terms.append(y[i] * s)
    for v in terms:
        s = s * 0.5 + v
    return s * 0.5 + sum(cs) * a


def test_sum_of_a_constant_beside_a_list_is_a_number():
    y, a = np.array([0.3, 0.7, 1.1, -0.4]), 0.6
    check_grads(sum_beside_a_list, Duplicated(y, np.zeros(4)), Active(a))
    # s = a (0.125 + 0.25 y2 + 0.5 y3 + 3): the derivative by a
    expected = 0.125 + 0.25 * y[2] + 0.5 * y[3] + 3.0
    grads = srcad.autodiff(Reverse, sum_beside_a_list, Duplicated(y, np.zeros(4)), Active(a))
    assert grads[1] == pytest.approx(expected)
