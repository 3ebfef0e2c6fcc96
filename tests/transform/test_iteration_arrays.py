"""An array a for loop's iteration defines once and reads in several statements goes on the
tape once per iteration, where the loop writes no array elements in place
(srcad/transform/reverse/iteration_values.py); where it does, each read keeps its own record.
The gradients stay those of central differences, forward mode and the other backend."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads


def shared_array(w, x, s):
    total = 0.0
    v = x * s
    for _ in range(3):
        a = np.sin(w * v)
        total = total + np.sum(a * a)
        total = total + np.sum(np.exp(a) * v)
        v = a * v + x
    return total


def filter_step(log_scale, observations, dt):
    """A Kalman filter's predict/update loop: `innovation_cov` read by three statements."""
    transition = np.eye(2)
    transition[0, 1] = dt
    observe = np.ones((1, 2))
    noise = np.exp(log_scale[0]) * np.eye(1)
    process = np.exp(log_scale[1]) * np.eye(2)
    mean = np.zeros(2)
    covariance = np.eye(2)
    total = 0.0
    for t in range(observations.shape[0]):
        mean = transition @ mean
        covariance = transition @ covariance @ transition.T + process
        innovation = observations[t] - observe @ mean
        innovation_cov = observe @ covariance @ observe.T + noise
        solved = np.linalg.solve(innovation_cov, innovation)
        sign, logdet = np.linalg.slogdet(innovation_cov)
        total = total - 0.5 * (logdet + innovation @ solved)
        gain = np.linalg.solve(innovation_cov, observe @ covariance).T
        mean = mean + gain @ innovation
        covariance = covariance - gain @ observe @ covariance
    return total


def written_between(w, x, s):
    total = 0.0
    v = x * s
    for _ in range(3):
        a = np.sin(w * v)
        total = total + np.sum(a * a)
        a[0] = 2.0 * a[1]  # the next read sees other values
        total = total + np.sum(np.exp(a) * v)
        v = a * v + x
    return total


def written_through_view(w, x, s):
    total = 0.0
    v = x * s
    for _ in range(3):
        a = np.sin(w * v)
        total = total + np.sum(a * a)
        b = a[1:]
        b[0] = 2.0 * v[0]  # writes a[1]
        total = total + np.sum(np.exp(a) * v)
        v = a * v + x
    return total


def written_after_the_loop(w, x, s):
    total = 0.0
    v = x * s
    a = x * 1.0
    for _ in range(3):
        a = np.sin(w * v)
        total = total + np.sum(a * a)
        total = total + np.sum(np.exp(a) * v)
        v = a * v + x
    b = a
    b[0] = 3.0 * s  # the last iteration's `a`, through an alias
    return total + np.sum(b * w)


W, X = np.array([0.3, -0.5, 0.8]), np.array([0.2, 0.4, -0.1])
OBSERVATIONS = np.array([[0.1], [0.3], [0.2], [0.6]])


def _args(w=W, s=0.7):
    """Mixed annotations: a Duplicated array, a constant array, an Active scalar."""
    return srcad.Duplicated(w.copy(), np.zeros(3)), X, srcad.Active(s)


def _pushes(f, args, backend, name):
    code = srcad.source(f, srcad.Reverse, *args, backend=backend)
    return sum(1 for line in code.splitlines() if ".append(" in line
               and line.strip().endswith((f"append({name})", f"append(np.copy({name}))",
                                          f"append(np.ascontiguousarray({name}))",
                                          f"ascontiguousarray(np.copy({name})))")))


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_an_array_read_by_several_statements_is_taped_once_per_iteration(backend):
    assert _pushes(shared_array, _args(), backend, "a") == 1
    kalman = (srcad.Duplicated(np.array([-1.0, -2.0]), np.zeros(2)), OBSERVATIONS, 0.1)
    assert _pushes(filter_step, kalman, backend, "innovation_cov") == 1
    assert _pushes(filter_step, kalman, backend, "innovation") == 1
    # `solved = np.linalg.solve(...)`: the call's value is `solved`, one record for both
    assert _pushes(filter_step, kalman, backend, "solved") == 1
    assert _pushes(filter_step, kalman, backend, "solve") == 0


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_an_array_written_in_the_loop_keeps_a_record_per_read(backend):
    for f in (written_between, written_through_view):
        assert _pushes(f, _args(), backend, "a") >= 2, f.__name__


def test_gradients_where_it_applies_and_where_it_does_not():
    for f in (shared_array, written_between, written_through_view, written_after_the_loop):
        check_grads(f, *_args())
    check_grads(filter_step, srcad.Duplicated(np.array([-1.0, -2.0]), np.zeros(2)),
                OBSERVATIONS, 0.1, modes=("rev",))


@pytest.mark.slow
def test_numba_agrees_with_python_and_central_differences():
    for f in (shared_array, written_between, written_through_view):
        gradients = [srcad.grad(f, argnums=(0, 2), backend=b)(W.copy(), X, 0.7)
                     for b in ("python", "numba")]
        for p, n in zip(*gradients):
            np.testing.assert_allclose(n, p, rtol=1e-12)
        check_grads(f, *_args(), modes=("rev",), backend="numba")
    log_scale = np.array([-1.0, -2.0])
    python, numba = (srcad.grad(filter_step, backend=b)(log_scale, OBSERVATIONS, 0.1)
                     for b in ("python", "numba"))
    np.testing.assert_allclose(numba, python, rtol=1e-12)
    check_grads(filter_step, srcad.Duplicated(log_scale, np.zeros(2)), OBSERVATIONS, 0.1,
                modes=("rev",), backend="numba")
