"""A tuple or list literal passed to a NumPy function is the array NumPy makes of it: the
array rules see it (`np.mean((x, x + 2))` has derivative 1, not 0) in every mode; the tuple
and the list form behave alike; a call with no rule is refused whatever form its arguments
take, never differentiated as 0 (srcad/transform/normalize/literal_arguments.py,
srcad/analysis/type_refusals.py).
"""

import math
import statistics

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads

# (name, tuple form, list form, x): calls with a rule for arrays
WITH_RULES = [
    ("mean", lambda x: np.mean((x, x + 2.0)), lambda x: np.mean([x, x + 2.0]), 0.0),
    ("norm", lambda x: np.linalg.norm((x, x + 2.0)), lambda x: np.linalg.norm([x, x + 2.0]),
     0.0),
    ("dot", lambda x: np.dot((x, 2.0 * x), (1.0, 3.0)), lambda x: np.dot([x, 2.0 * x],
                                                                        [1.0, 3.0]), 0.7),
    ("sum", lambda x: np.sum((x, x * x)), lambda x: np.sum([x, x * x]), 0.7),
    ("max", lambda x: np.max((x, x * x, 0.5)), lambda x: np.max([x, x * x, 0.5]), 1.5),
    ("maximum", lambda x: np.sum(np.maximum((x, 2.0 * x), 1.5)),
     lambda x: np.sum(np.maximum([x, 2.0 * x], 1.5)), 1.0),
    ("sin", lambda x: np.sum(np.sin((x, 2.0 * x))), lambda x: np.sum(np.sin([x, 2.0 * x])), 1.0),
    ("mean of arrays", lambda x: np.mean((x, x * x)), lambda x: np.mean([x, x * x]),
     np.array([0.3, 0.8])),
    ("norm of arrays", lambda x: np.linalg.norm((x, 2.0 * x)),
     lambda x: np.linalg.norm([x, 2.0 * x]), np.array([0.3, 0.8])),
    # nested literals: rows (their derivative was 0 in the tuple form)
    ("sum of rows", lambda x: np.sum(((x, 1.0), (2.0, x * x))),
     lambda x: np.sum([[x, 1.0], [2.0, x * x]]), 0.3),
    ("mean of rows", lambda x: np.mean(((x, 1.0), (2.0, x * x))),
     lambda x: np.mean([[x, 1.0], [2.0, x * x]]), 0.3),
    ("det of rows", lambda x: np.linalg.det(((x, 1.0), (2.0, x * x))),
     lambda x: np.linalg.det([[x, 1.0], [2.0, x * x]]), 0.3),
    ("std of rows", lambda x: np.std(((x, 1.0), (2.0, x * x))),
     lambda x: np.std([[x, 1.0], [2.0, x * x]]), 0.3),
    ("array of rows", lambda x: np.sum(np.array(((x, 1.0), (2.0, x))) ** 2) * x,
     lambda x: np.sum(np.array([[x, 1.0], [2.0, x]]) ** 2) * x, 0.3),
    ("rows of rows", lambda x: np.sum((((x, 1.0), (2.0, x)), ((x, x), (1.0, 1.0)))),
     lambda x: np.sum([[[x, 1.0], [2.0, x]], [[x, x], [1.0, 1.0]]]), 0.3),
]


@pytest.mark.parametrize("name, as_tuple, as_list, x", WITH_RULES,
                         ids=[w[0] for w in WITH_RULES])
@pytest.mark.parametrize("transform", ["grad", "jacfwd", "jacrev"])
def test_literal_reaches_the_rule_as_an_array(name, as_tuple, as_list, x, transform):
    expected = central(as_tuple, x)
    for f in (as_tuple, as_list):
        got = getattr(srcad, transform)(f)(x)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def test_issue_examples_give_one():
    assert srcad.grad(lambda x: np.mean((x, x + 2)))(0.0) == pytest.approx(1.0)
    assert srcad.jacfwd(lambda x: np.mean((x, x + 2)))(0.0) == pytest.approx(1.0)
    assert srcad.grad(lambda x: np.linalg.norm((x, x + 2)))(0.0) == pytest.approx(1.0)


def helper_norm(a, b):
    return np.linalg.norm([a, b])


def inlined(x):
    return helper_norm(x[0], x[1]) + np.dot((x[0], 2.0 * x[1]), [1.0, 3.0])


def in_a_loop(x):
    s = 0.0
    for i in range(len(x)):
        s += np.mean((x[i], x[i] ** 2))
    return s


@pytest.mark.parametrize("f", [inlined, in_a_loop])
def test_literals_in_helpers_and_loops_every_mode(f):
    check_grads(f, srcad.Duplicated(np.array([0.3, 0.4]), np.zeros(2)))
    np.testing.assert_allclose(srcad.grad(f)(np.array([0.3, 0.4])),
                               central(f, np.array([0.3, 0.4])), rtol=1e-6)


def test_numba_backend():
    x = np.array([0.3, 0.4])
    np.testing.assert_allclose(srcad.grad(inlined, backend="numba")(x), central(inlined, x),
                               rtol=1e-6)


# calls another developer may give a rule: either refused or right, never 0, and the tuple
# and list forms alike
WITHOUT_RULES = [
    ("std", lambda x: np.std((x, 3.0 * x)), lambda x: np.std([x, 3.0 * x])),
    ("var", lambda x: np.var((x, 3.0 * x)), lambda x: np.var([x, 3.0 * x])),
    ("prod", lambda x: np.prod((x, 3.0 * x)), lambda x: np.prod([x, 3.0 * x])),
    ("average", lambda x: np.average((x, 3.0 * x)), lambda x: np.average([x, 3.0 * x])),
    ("median", lambda x: np.median((x, 3.0 * x, 2.0 * x)),
     lambda x: np.median([x, 3.0 * x, 2.0 * x])),
    ("interp", lambda x: np.interp(0.5, (0.0, 1.0, 2.0), (0.0, x, 4.0)),
     lambda x: np.interp(0.5, [0.0, 1.0, 2.0], [0.0, x, 4.0])),
    ("polyval", lambda x: np.polyval((x, 2.0), 1.5), lambda x: np.polyval([x, 2.0], 1.5)),
    ("ptp", lambda x: np.ptp((x, 3.0 * x)), lambda x: np.ptp([x, 3.0 * x])),
    ("fmean", lambda x: statistics.fmean((x, 3.0 * x)), lambda x: statistics.fmean([x, 3.0 * x])),
    ("fsum", lambda x: math.fsum((x, 3.0 * x)), lambda x: math.fsum([x, 3.0 * x])),
    ("math.prod", lambda x: math.prod((x, 3.0 * x)), lambda x: math.prod([x, 3.0 * x])),
]


def _outcome(transform, f, x):
    try:
        return float(getattr(srcad, transform)(f)(x))
    except SrcadError:
        return "refused"


@pytest.mark.parametrize("name, as_tuple, as_list", WITHOUT_RULES,
                         ids=[w[0] for w in WITHOUT_RULES])
@pytest.mark.parametrize("transform", ["grad", "jacfwd"])
def test_a_call_without_rule_is_refused_or_right(name, as_tuple, as_list, transform):
    x = 1.3
    expected = central(as_tuple, x)
    outcomes = [_outcome(transform, f, x) for f in (as_tuple, as_list) if f is not None]
    for outcome in outcomes:
        assert outcome == "refused" or outcome == pytest.approx(expected, rel=1e-5), outcome
    assert len(set(o if o == "refused" else "value" for o in outcomes)) == 1


@pytest.mark.parametrize("f", [lambda x: statistics.median_low((x, 3.0 * x)),
                               lambda x: statistics.median_low([x, 3.0 * x])],
                         ids=["tuple", "list"])
def test_a_library_call_on_a_literal_names_the_call(f):
    with pytest.raises(SrcadError, match="no derivative rule for `median_low`"):
        srcad.grad(f)(1.0)


def test_a_library_call_on_constants_runs():
    assert srcad.grad(lambda x: math.fsum([1.0, 2.0]) * x)(1.0) == pytest.approx(3.0)


def test_shapes_and_axes_stay_tuples():
    def f(x):
        return np.sum(np.reshape(x, (2, 1)) * np.zeros((2, 3)) + x[0]) + np.sum(x, axis=(0,))
    x = np.array([0.3, 0.4])
    np.testing.assert_allclose(srcad.grad(f)(x), central(f, x), rtol=1e-6)


def test_a_list_of_ints_is_refused_as_a_list():
    with pytest.raises(SrcadError, match=r"\[2, 1\]"):
        srcad.grad(lambda x: np.sum(np.reshape(x, [2, 1])))(np.ones(2))


def test_a_nested_literal_is_the_array_of_its_rows_not_zero():
    # refused once, then differentiated as NumPy's 2 x 2 array: (x + 2) / 2 + (1 + x) / 2
    for f in (lambda x: np.sum(np.mean(((x, 1.0), (2.0, x)), axis=0)),
              lambda x: np.sum(np.mean([[x, 1.0], [2.0, x]], axis=0))):
        assert srcad.grad(f)(0.5) == pytest.approx(1.0, rel=1e-12)
        assert srcad.jacfwd(f)(0.5) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("f", [
    lambda x: np.sum((x, x * x)),
    lambda x: np.max((x, x * x)),
    lambda x: np.min([x, x * x + 0.1]),
    lambda x: np.sum((x, x * x)) * np.sum((1, len(x))),
], ids=["sum", "max", "min", "ints"])
def test_numpy_reductions_of_array_literals_reduce_every_element(f):
    x = np.array([0.3, 0.5])
    value, gradient = srcad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x))
    np.testing.assert_allclose(gradient, central(f, x), rtol=1e-6)


@pytest.mark.parametrize("f", [lambda x: max((x * 2.0,)), lambda x: np.max((x * 2.0,))],
                         ids=["builtin", "numpy"])
def test_max_of_one_value(f):
    assert srcad.value_and_grad(f)(0.3) == (pytest.approx(0.6), pytest.approx(2.0))


def test_literal_with_more_params():
    def f(W, x, b, a, idx):
        h = np.sum(x ** 2)
        return h + np.linalg.norm([a, a, x[0] ** 2, np.sin(x[2])])
    x = np.array([0.3, 0.5, 0.7])
    args = (np.ones((2, 3)), x, np.ones(2), 0.4, np.array([0, 1]))
    np.testing.assert_allclose(srcad.grad(f, argnums=1)(*args),
                               central(lambda v: f(args[0], v, *args[2:]), x), rtol=1e-6)


def mean_rows(x):
    return np.sum(np.mean([x * 1.2, np.sin(x)], axis=0) * 0.5) + np.linalg.norm((x[0], x[1]))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_literal_of_arrays_on_numba(mode):
    x = np.array([0.3, 0.5, 0.7])
    np.testing.assert_allclose(srcad.gradient(mean_rows, x, backend="numba", mode=mode),
                               central(mean_rows, x), rtol=1e-6)


def asarray_of_rows(x):
    flat = np.asarray([x[0], 2.0 * x[1]]) * x[1:]
    square = np.asarray([[x[0], x[1] * x[2]], [x[2], 1.0]]) @ x[:2]
    return np.sum(flat * flat) + np.sum(square * square)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_asarray_of_a_list_written_out_is_the_array_np_array_makes(backend):
    x = np.array([0.3, 0.5, 0.7])
    check_grads(asarray_of_rows, srcad.Duplicated(x, np.zeros(3)), backend=backend)


def list_indices(x):
    y = np.zeros(4)
    y[[1, 3]] = x[:2] * x[2:]
    return np.sum(x[[0, 2, 1, 3]] * x) + np.sum(x[[-1, 0]] ** 2) + np.sum(y * x)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_a_list_written_in_an_index_is_the_index_array_numpy_reads(backend):
    x = np.array([0.31, 0.77, 0.52, 0.64])
    check_grads(list_indices, srcad.Duplicated(x, np.zeros(4)), backend=backend)
