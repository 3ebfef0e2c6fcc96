"""A prepared sparse jacobian checks that its pattern holds at each call by the decisions
f's forward code takes on varying values (srcad/operators/sparse/decisions.py) and by the
Constants' values (pattern_guard.py): a call whose branch reads an input outside the
pattern is refused, one whose branch changes within the pattern is answered (against
central differences and the dense jacobian), a Constant changed between calls is compared
by value (an index map changed is refused, where the answer was once silently wrong), and
a call with the preparation's decisions does not trace the pattern again."""

import math

import numpy as np
import pytest

import srcad
from srcad import Constant, Output
from srcad.operators.sparse import sparse_jacobian

pytest.importorskip("scipy")


def branchy_rows(x):
    y = np.zeros(4)
    for i in range(4):
        if x[i] > 0.5:
            y[i] = x[i] * x[(i + 1) % 4]
        else:
            y[i] = x[i] ** 2
    return y


def gather(x, idx):
    y = np.zeros(3)
    for i in range(3):
        y[i] = math.sin(x[idx[i]]) * x[i]
    return y


def masked(x):
    z = x[x > 0.5] * 2.0
    return z


def smooth(x, a):
    y = np.zeros(3)
    for i in range(3):
        y[i] = a * x[i] * x[i + 1]
    return y


def while_count(x):
    y = np.zeros(3)
    s = 0.0
    k = 0
    while s < x[0]:
        s += 1.0
        k += 1
    y[0] = x[k % 3] * 2.0
    y[1] = x[1] ** 2
    y[2] = x[2] ** 2
    return y


def break_index(x):
    y = np.zeros(3)
    k = 0
    for i in range(3):
        k = i
        if x[i] > 1.0:
            break
    y[0] = x[k] * 3.0
    y[1] = x[1] ** 2
    y[2] = x[2] ** 2
    return y


def where_pick(x):
    z = np.where(x[:3] > 0.5, x[:3] * x[3], x[:3] ** 2)
    return z


def builtin_max(x):
    y = np.zeros(2)
    y[0] = max(x[0], x[1])
    y[1] = x[2] * 2.0
    return y


def argmax_index(x):
    k = np.argmax(x[:3])
    y = np.zeros(2)
    y[0] = x[k] * 2.0
    y[1] = x[3] ** 2
    return y


def conditional_expression(x):
    y = np.zeros(2)
    for i in range(2):
        y[i] = x[i] * x[2] if x[i] > 0.5 else x[i] ** 2
    return y


def smallest(x):
    y = np.zeros(2)
    y[0] = np.sort(x)[0] + abs(x[1])
    y[1] = x[1] * 2.0
    return y


# (f, the preparation's point, a point whose pattern leaves the preparation's, a point whose
# decisions are the preparation's)
DECIDING = [
    (while_count, [0.5, 0.2, 0.3], [1.5, 0.2, 0.3], [0.7, 0.4, 0.3]),
    (break_index, [0.5, 0.2, 0.3], [0.5, 1.2, 0.3], [0.6, 0.3, 0.1]),
    (where_pick, [0.1, 0.2, 0.3, 0.4], [0.9, 0.2, 0.3, 0.4], [0.2, 0.1, 0.3, 0.5]),
    (builtin_max, [0.1, 0.2, 0.3], [0.9, 0.2, 0.3], [0.1, 0.5, 0.3]),
    (argmax_index, [0.1, 0.2, 0.3, 0.4], [0.9, 0.2, 0.3, 0.4], [0.1, 0.2, 0.5, 0.4]),
    (conditional_expression, [0.1, 0.2, 0.3], [0.9, 0.2, 0.3], [0.2, 0.1, 0.5]),
    (smallest, [0.1, 0.7, 0.3], [0.5, 0.7, 0.1], [0.2, 0.9, 0.4]),
]


@pytest.mark.parametrize("f, prepared, outside, same", DECIDING,
                         ids=[case[0].__name__ for case in DECIDING])
def test_decisions_of_each_kind(f, prepared, outside, same, monkeypatch):
    prep = srcad.prepare_jacobian(f, np.array(prepared), sparse=True)
    assert prep.state["guard"].decisions is not None  # the slice, not a trace per call
    with pytest.raises(srcad.ArgumentError, match="other branches"):
        srcad.jacobian(f, np.array(outside), prep=prep)
    x = np.array(same)
    dense = srcad.jacobian(f, x.copy())
    monkeypatch.setattr(sparse_jacobian, "jacobian_pattern", None)  # no trace: the slice
    J = srcad.jacobian(f, x.copy(), prep=prep).toarray()
    np.testing.assert_allclose(J, dense, rtol=1e-14)
    np.testing.assert_allclose(J, central_differences(f, x), atol=1e-8)


def central_differences(f, x, *constants, eps=1e-6):
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        columns.append((f(x + step, *constants) - f(x - step, *constants)) / (2 * eps))
    return np.stack(columns, axis=1)


LOW = np.array([0.1, 0.2, 0.3, 0.4])
HIGH = np.array([0.9, 0.2, 0.3, 0.4])
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]  # numba compiles ~15 s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_branch_reading_outside_the_pattern_is_refused(backend):
    prep = srcad.prepare_jacobian(branchy_rows, LOW.copy(), sparse=True, backend=backend)
    with pytest.raises(srcad.ArgumentError, match=r"other branches.*inputs \[1\]") as info:
        srcad.jacobian(branchy_rows, HIGH.copy(), prep=prep)
    assert "test_sparse_decisions.py" in str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_branch_changing_within_the_pattern_is_answered(backend):
    prep = srcad.prepare_jacobian(branchy_rows, HIGH.copy(), sparse=True, backend=backend)
    for x in (LOW, HIGH, np.array([0.95, 0.4, 0.1, 0.3])):
        J = srcad.jacobian(branchy_rows, x.copy(), prep=prep).toarray()
        np.testing.assert_allclose(J, central_differences(branchy_rows, x), atol=1e-8)
        np.testing.assert_allclose(J, srcad.jacobian(branchy_rows, x.copy()), rtol=1e-13)


def test_a_call_with_the_preparations_decisions_does_not_trace_again(monkeypatch):
    prep = srcad.prepare_jacobian(branchy_rows, LOW.copy(), sparse=True)
    assert prep.state["guard"].decisions is not None

    def traced(*args):
        raise AssertionError("traced again")

    monkeypatch.setattr(sparse_jacobian, "jacobian_pattern", traced)
    x = np.array([0.4, 0.3, 0.2, 0.1])  # every test on the same side as at preparation
    J = srcad.jacobian(branchy_rows, x.copy(), prep=prep)
    np.testing.assert_allclose(J.toarray(), np.diag(2.0 * x), rtol=1e-14)
    with pytest.raises(AssertionError, match="traced again"):  # another side: checked
        srcad.jacobian(branchy_rows, HIGH.copy(), prep=prep)


def test_a_function_without_decisions_on_x_runs_no_slice():
    prep = srcad.prepare_jacobian(smooth, np.ones(4), Constant(2.0), sparse=True)
    assert prep.state["pattern_source"] == "traced"
    assert prep.state["guard"].decisions is None


def test_a_changed_constant_index_map_is_refused():
    x = np.array([0.1, 0.7, 0.9, 0.2])
    prep = srcad.prepare_jacobian(gather, x, Constant(np.array([0, 1, 2])), sparse=True)
    # once: the preparation's pattern was used, J[0] = [cos(x0) x0 + sin(x0), 0, 0, 0]
    # instead of [sin(x3), 0, 0, cos(x3) x0]
    with pytest.raises(srcad.ArgumentError, match=r"inputs \[3\]"):
        srcad.jacobian(gather, x, Constant(np.array([3, 1, 0])), prep=prep)
    # changed within the pattern (each row still reads its own element): answered
    idx = np.array([0, 1, 2])
    prep = srcad.prepare_jacobian(gather, x, Constant(idx.copy()), sparse=True)
    J = srcad.jacobian(gather, x, Constant(idx.copy()), prep=prep).toarray()
    np.testing.assert_allclose(J, central_differences(gather, x, idx), atol=1e-8)


def test_a_constant_changed_between_calls_on_a_static_pattern():
    def neighbour(y, x, idx):
        for i in range(3):
            y[i] = x[idx[i]] * x[i]

    x = np.array([0.5, 1.5, 2.5, 3.5])
    y = np.zeros(3)
    prep = srcad.prepare_jacobian(neighbour, Output(y), x, Constant(np.array([1, 2, 3])),
                                  sparse=True)
    assert prep.state["pattern_source"] == "static"
    with pytest.raises(srcad.ArgumentError, match=r"inputs \[0\]"):
        srcad.jacobian(neighbour, Output(y), x, Constant(np.array([1, 2, 0])), prep=prep)
    J = srcad.jacobian(neighbour, Output(y), x, Constant(np.array([1, 2, 3])), prep=prep)
    expected = np.zeros((3, 4))
    for i, k in enumerate([1, 2, 3]):
        expected[i, i] += x[k]
        expected[i, k] += x[i]
    np.testing.assert_allclose(J.toarray(), expected, rtol=1e-14)


def test_a_mask_of_x_that_moved_is_refused():
    prep = srcad.prepare_jacobian(masked, np.array([0.1, 0.7, 0.9, 0.2]), sparse=True)
    # once: [[0, 2, 0, 0], [0, 0, 2, 0]] where x[x > 0.5] picks x0 and x2
    with pytest.raises(srcad.ArgumentError, match="other branches"):
        srcad.jacobian(masked, np.array([0.7, 0.1, 0.9, 0.2]), prep=prep)


def test_ht_complicated_slice_holds_one_decision_and_answers_the_other_branch():
    # ht's objective branches on the norm of the global rotation (`norm < 0.0001`: the
    # identity); the slice computes that one decision, not the skinned mesh
    from srcad.gradbench.ports import ht

    theta, constants, complicated = ht.parse(ht.generate(**ht.SIZES["small-complicated"]))
    inputs, arguments = ht.complicated_arguments(theta, constants, complicated)
    err = np.zeros(3 * len(constants[5]))

    def args(point):
        return (Output(err), point) + tuple(Constant(c) for c in arguments)

    prep = srcad.prepare_jacobian(ht.ht_objective_complicated, *args(inputs), sparse=True)
    guard = prep.state["guard"]
    assert [len(log) for log in guard.logs] == [1]
    still = inputs.copy()
    still[:3] = [1e-5, 0.0, 0.0]  # the identity branch: a pattern inside the preparation's
    J = srcad.jacobian(ht.ht_objective_complicated, *args(still), prep=prep).toarray()
    fd = ht.central_differences(still[:ht.N_THETA], constants, (still[ht.N_THETA:],
                                                                 complicated[1]))
    np.testing.assert_allclose(J[:, :ht.N_THETA], fd[:, 2:], atol=1e-7 * np.abs(fd).max())
    assert len(guard.logs) == 2  # checked once in full, then remembered


class IndexHolder:
    def __init__(self, idx):
        self.idx = idx


def gather_from_object(x, holder):
    y = np.zeros(3)
    for i in range(3):
        y[i] = math.sin(x[holder.idx[i]]) * x[i]
    return y


def test_an_object_constant_changed_in_place_is_compared_by_its_attributes(monkeypatch):
    x = np.array([0.1, 0.7, 0.9, 0.2])
    holder = IndexHolder(np.array([0, 1, 2]))
    prep = srcad.prepare_jacobian(gather_from_object, x, Constant(holder), sparse=True)
    holder.idx[0] = 3  # the same object: once compared by identity, J[0] = [cos(x0) x0 +
    # sin(x0), 0, 0, 0] instead of [sin(x3), 0, 0, cos(x3) x0]
    with pytest.raises(srcad.ArgumentError, match=r"inputs \[3\]"):
        srcad.jacobian(gather_from_object, x, Constant(holder), prep=prep)
    holder.idx[0] = 0  # an equal object: the preparation's pattern, not traced again
    monkeypatch.setattr(sparse_jacobian, "jacobian_pattern", None)
    J = srcad.jacobian(gather_from_object, x, Constant(IndexHolder(np.array([0, 1, 2]))),
                       prep=prep).toarray()
    np.testing.assert_allclose(J, central_differences(gather, x, np.array([0, 1, 2])),
                               atol=1e-8)
