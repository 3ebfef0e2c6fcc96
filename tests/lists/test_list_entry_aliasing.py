"""A list entry that is an array object, or a view of one, sees later in-place writes of
that array (Python lists hold references, not copies). srcad lowers a list of arrays to a
buffer that holds copies; a store whose array is written afterwards while the list holds it
is refused naming its line (srcad/analysis/list_entries.py), and a list split into one
variable per entry follows the write as NumPy does (srcad/transform/normalize/views.py).
Stores of fresh arrays (`hs.append(h + x)`, `hs.append(h.copy())`, an array rebound before
it is written again, a row `A[i]` per iteration of `for i in range(...)`) keep working.
Right answers are NumPy's values and derivatives worked out by hand (each checked here
against central finite differences of the Python function too)."""

import inspect
import os

import numpy as np
import pytest

import srcad
from srcad import SrcadError
from srcad.testing import check_grads

THIS_FILE = os.path.basename(__file__)
X = np.array([1.0, 2.0, 3.0])
BACKENDS = ["python", "numba"]  # numba is in the dev extra


def _modes(f, x, backend):
    """(value, gradient) from reverse mode, the forward-mode gradient, the vector-mode
    (jacfwd) gradient."""
    value, grad = srcad.value_and_grad(f, backend=backend)(x.copy())
    forward = srcad.gradient(f, x.copy(), mode="forward", backend=backend)
    vector = srcad.jacfwd(f, backend=backend)(x.copy())
    return value, grad, forward, vector


def _line(f, text):
    lines, start = inspect.getsourcelines(f)
    return start + next(k for k, line in enumerate(lines) if text in line)


# -- refused: the stored array is written afterwards while the list holds it

def same_array_twice(x):
    h = np.zeros(len(x))
    hs = []
    for _t in range(2):
        h[:] = h + x
        hs.append(h)  # the same array twice
    return np.sum(np.stack(hs))


def scaled_in_the_next_iteration(x):
    hs = []
    h = x * 2.0
    for _t in range(2):
        h *= 0.5  # in place: the entry appended before sees it
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def written_after_append(x):
    a = x.copy()
    hs = []
    hs.append(a)
    a[0] = 5.0
    return np.sum(np.stack(hs))


def rows_of_a_later_filled_array(x):
    A = np.zeros((2, len(x)))
    rows = []
    for i in range(2):
        rows.append(A[i])
    for i in range(2):
        A[i] = x * (i + 1.0)
    return np.sum(np.stack(rows))


def argument_scaled_after_append(x):
    hs = []
    hs.append(x)
    x *= 3.0
    return np.sum(np.stack(hs))


def stored_by_index(x):
    a = x.copy()
    hs = [x * 2.0, x * 3.0]
    for i in range(2):
        hs[i] = a
    a[1] = 5.0
    return np.sum(np.stack(hs))


def extended(x):
    a = x.copy()
    hs = [x * 2.0]
    hs.extend([a, x])
    a[1] = 5.0
    return np.sum(np.stack(hs))


def inserted(x):
    a = x.copy()
    hs = [x * 2.0]
    hs.insert(0, a)
    a[1] = 5.0
    return np.sum(np.stack(hs))


def literal_then_appended(x):
    a = x.copy()
    hs = [a]
    hs.append(x * 2.0)
    a[0] = 5.0
    return np.sum(np.stack(hs))


def rows_looped_over(x):
    A = np.zeros((2, len(x)))
    A[0] = x
    A[1] = x * 2.0
    rows = []
    for v in A:
        rows.append(v)  # a view of A's row
    A[0] = x * 3.0
    return np.sum(np.stack(rows))


def filled_by_a_call(x):
    h = np.zeros(3)
    hs = []
    hs.append(h)
    h.fill(1.0)  # a call made for its effect writes the entry
    return np.sum(np.stack(hs)) * x[0]


def copied_into(x):
    h = np.zeros(3)
    hs = []
    hs.append(h)
    np.copyto(h, np.ones(3))
    return np.sum(np.stack(hs)) * x[0]


def literal_then_updated(x):
    a = np.sin(x)
    xs = [a]
    a += x
    return np.sum(xs[0])


REFUSED = [
    (same_array_twice, "hs.append(h)", "hs.append(h.copy())"),
    (written_after_append, "hs.append(a)", "hs.append(a.copy())"),
    (scaled_in_the_next_iteration, "hs.append(h)", "hs.append(h.copy())"),
    (rows_of_a_later_filled_array, "rows.append(A[i])", "rows.append(A[i].copy())"),
    (argument_scaled_after_append, "hs.append(x)", "hs.append(x.copy())"),
    (stored_by_index, "hs[i] = a", "a.copy()"),
    (extended, "hs.extend", "a.copy()"),
    (inserted, "hs.insert", "a.copy()"),
    (literal_then_appended, "hs = [a]", "a.copy()"),
    (rows_looped_over, "rows.append(v)", ".copy()"),
    (filled_by_a_call, "hs.append(h)", "hs.append(h.copy())"),
    (copied_into, "hs.append(h)", "hs.append(h.copy())"),
]


def test_right_answers_of_the_refused_programs():
    """What the refusals protect: NumPy's answer differs from the answer of a list of
    copies (by hand: the same array twice holds 2x twice, so 4 * sum(x) and gradient 4)."""
    assert same_array_twice(X.copy()) == pytest.approx(24.0)
    assert written_after_append(X.copy()) == pytest.approx(10.0)
    assert scaled_in_the_next_iteration(X.copy()) == pytest.approx(7.0)  # 2 * sum((x/2)^2)
    assert rows_of_a_later_filled_array(X.copy()) == pytest.approx(18.0)
    assert argument_scaled_after_append(X.copy()) == pytest.approx(18.0)
    assert filled_by_a_call(X.copy()) == copied_into(X.copy()) == pytest.approx(3.0)
    assert rows_looped_over(X.copy()) == pytest.approx(30.0)  # rows 3x, 2x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, stored, hint", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_entry_written_after_it_is_stored_is_refused_by_line(f, stored, hint, backend):
    where = f"{THIS_FILE}:{_line(f, stored)}"
    for run in (lambda: srcad.value_and_grad(f, backend=backend)(X.copy()),
                lambda: srcad.gradient(f, X.copy(), mode="forward", backend=backend),
                lambda: srcad.jacfwd(f, backend=backend)(X.copy())):
        with pytest.raises(SrcadError) as raised:
            run()
        message = str(raised.value)
        assert where in message and "list entry aliasing an array" in message
        assert hint in message
        assert "_length" not in message and "_buffer" not in message
        assert "_index" not in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_list_entry_updated_in_place_is_refused_in_the_users_words(backend):
    with pytest.raises(SrcadError) as raised:
        srcad.value_and_grad(literal_then_updated, backend=backend)(X.copy())
    message = str(raised.value)
    assert f"{THIS_FILE}:" in message and "`xs[0]`" in message and "xs_0" not in message



def reshaped_view_appended(x):
    a = x * 2.0
    hs = []
    hs.append(a.reshape(-1))
    a[0] = 7.0
    return np.sum(hs[0] ** 2)


def test_an_appended_list_is_named_as_written_not_as_srcad_renamed_it():
    # `hs = []` then appends binds `hs` twice; srcad's second name for it (`hs_v1`) was in
    # the refusal: `the list entry `hs_v1[0]` is `a.reshape(-1)``
    with pytest.raises(SrcadError) as raised:
        srcad.grad(reshaped_view_appended)(X.copy())
    message = str(raised.value)
    assert f"{THIS_FILE}:{_line(reshaped_view_appended, 'hs.append')}" in message
    assert "`hs[0]`" in message and "hs_v" not in message

# -- followed or fresh: right answers

def split_entry_sees_the_write(x):
    a = np.zeros(len(x))
    a[:] = np.sin(x)
    xs = [a, x]
    a[0] = 5.0  # xs[0] is a: it sees the write
    return np.sum(xs[0]) + np.sum(xs[1] ** 2)


def row_per_iteration(x):
    A = np.zeros((2, len(x)))
    rows = []
    for i in range(2):
        A[i] = x * (i + 1.0)
        rows.append(A[i])  # the next iteration writes another row
    return np.sum(np.stack(rows) ** 2)


def rebound_each_iteration(x):
    h = np.zeros(len(x))
    hs = []
    for _t in range(2):
        h = h + x  # a new array: the entry keeps the old one
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def copied_each_iteration(x):
    h = np.zeros(len(x))
    hs = []
    for _t in range(2):
        h[:] = h + x
        hs.append(h.copy())
    return np.sum(np.stack(hs) ** 2)


def fresh_after_the_last_write(x):
    a = x.copy()
    a[0] = 5.0
    hs = []
    hs.append(a)  # no write of a after it
    hs.append(a * x)
    return np.sum(np.stack(hs) ** 2)


FOLLOWED = [
    # sum(5, sin x1, sin x2) + sum(x^2): d/dx0 = 2 x0, d/dxk = cos xk + 2 xk
    (split_entry_sees_the_write,
     lambda x: 5.0 + np.sin(x[1]) + np.sin(x[2]) + np.sum(x ** 2),
     lambda x: np.array([2 * x[0], np.cos(x[1]) + 2 * x[1], np.cos(x[2]) + 2 * x[2]])),
    # rows x and 2x: 5 sum(x^2), gradient 10 x
    (row_per_iteration, lambda x: 5.0 * np.sum(x ** 2), lambda x: 10.0 * x),
    (rebound_each_iteration, lambda x: 5.0 * np.sum(x ** 2), lambda x: 10.0 * x),
    (copied_each_iteration, lambda x: 5.0 * np.sum(x ** 2), lambda x: 10.0 * x),
    # rows (5, x1, x2) and (5 x0, x1^2, x2^2)
    (fresh_after_the_last_write,
     lambda x: 25.0 + 25.0 * x[0] ** 2 + np.sum(x[1:] ** 2 + x[1:] ** 4),
     lambda x: np.array([50.0 * x[0], *(2 * x[1:] + 4 * x[1:] ** 3)])),
]


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, value, gradient", FOLLOWED, ids=[f[0].__name__ for f in FOLLOWED])
def test_entries_that_are_not_written_later_give_numpys_answer(f, value, gradient, backend):
    assert f(X.copy()) == pytest.approx(value(X))  # the hand-worked answer is NumPy's
    got_value, *grads = _modes(f, X, backend)
    assert got_value == pytest.approx(value(X))
    for got in grads:
        np.testing.assert_allclose(got, gradient(X), rtol=1e-10)
    if backend == "python":
        check_grads(f, srcad.Duplicated(X.copy(), np.zeros(3)))
