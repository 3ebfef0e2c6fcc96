"""User loops over `reversed(...)`: a range with any start, stop and step, or an array, in
every mode (reverse, forward, vector) and backend."""

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated
from srcad.testing import check_grads

# numba is in the dev extra; it compiles each case for seconds (make test-all)
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.slow)]


def halving_sum(x):
    s = 0.0
    for i in reversed(range(len(x))):
        s = s * 0.5 + x[i] * x[i]
    return s


def from_one(x, a):
    s = a
    for i in reversed(range(1, len(x))):
        s = s * x[i] + a * x[i - 1]
    return s


def with_steps(x):
    s = 0.0
    for i in reversed(range(len(x) - 1, -1, -2)):
        s = s * x[i] + np.sin(s)
    for j in reversed(range(1, len(x) + 1, 3)):
        for k in reversed(range(j)):
            s = s * x[k] + x[j - 1]
    return s


def computed_bounds(x, n):
    s = 0.0
    for i in reversed(range(n // 2, 2 * n - 3, n - 2)):
        s = s * 0.9 + x[i % len(x)] * x[i % len(x)] * s + x[i % len(x)]
    return s


def empty_and_negative(x, n):
    s = 1.0
    for i in reversed(range(n, 2)):  # empty: n >= 2
        s = s * x[i]
    for _ in reversed(range(-n)):  # empty
        s = s * x[0]
    for i in reversed(range(2, -1, -1)):  # 0, 1, 2
        s = s * x[i] + x[i]
    return s


def over_elements(x):
    s = 1.0
    for v in reversed(x):
        s = s * v + 0.3
    return s


X = np.array([0.3, -0.7, 1.1, 0.4, 0.9])
CASES = {
    "halving_sum": (halving_sum, lambda: (Duplicated(X.copy(), np.zeros(5)),)),
    "from_one": (from_one, lambda: (Duplicated(X.copy(), np.zeros(5)), Active(0.6))),
    "with_steps": (with_steps, lambda: (Duplicated(X.copy(), np.zeros(5)),)),
    "computed_bounds": (computed_bounds, lambda: (Duplicated(X.copy(), np.zeros(5)), 5)),
    "empty_and_negative": (empty_and_negative, lambda: (Duplicated(X.copy(), np.zeros(5)), 3)),
    "over_elements": (over_elements, lambda: (Duplicated(X.copy(), np.zeros(5)),)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_reversed_loop_every_mode(name, backend):
    f, args = CASES[name]
    check_grads(f, *args(), backend=backend)  # forward, vector and reverse against FD


@pytest.mark.parametrize("backend", BACKENDS)
def test_reversed_loop_hand_derived_gradient(backend):
    # s = sum_i x[i]**2 * 0.5**i: x[i] enters i halvings before the end
    x = np.array([0.3, -0.7, 1.1, 0.4])
    expected = 2.0 * x * 0.5 ** np.arange(4)
    dx = np.zeros(4)
    srcad.autodiff(srcad.Reverse, halving_sum, Duplicated(x.copy(), dx), backend=backend)
    np.testing.assert_allclose(dx, expected, rtol=1e-14)
    tangents = [srcad.autodiff(srcad.Forward, halving_sum, Duplicated(x.copy(), e),
                               backend=backend) for e in np.eye(4)]
    np.testing.assert_allclose(tangents, expected, rtol=1e-14)


def over_a_sliced_range(x, k):
    s = 0.0
    for i in reversed(range(len(x))[:k]):
        s = s * x[i] + x[i]
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_reversed_sliced_range_is_refused_in_reverse_mode(backend):
    # forward mode runs it as written (srcad's own reverse loops have this form)
    args = (Duplicated(X.copy(), np.zeros(5)), 3)
    check_grads(over_a_sliced_range, *args, modes=("fwd", "vec"))
    with pytest.raises(srcad.SrcadError, match="slice of a range") as refused:
        srcad.autodiff(srcad.Reverse, over_a_sliced_range, *args, backend=backend)
    assert refused.value.filename == __file__
