"""compile="background": the numba backend's first calls are answered by the python backend's
code while numba compiles on a thread; once it has compiled, numba's code answers. The
answers agree with the python backend's and with central differences; which backend answered
each call is counted (srcad/build/background.py); nothing here times anything."""

import math

import numpy as np
import pytest

import srcad
from srcad import Duplicated, Forward, Reverse
from srcad.build import background
from srcad.errors import ArgumentError, SrcadError

pytest.importorskip("numba")
from numba.core import event as numba_event  # noqa: E402


class _Compilations(numba_event.Listener):
    """The functions numba compiles while it listens."""

    def __init__(self):
        self.names = []

    def on_start(self, event):
        self.names.append(event.data["dispatcher"].py_func.__qualname__)

    def on_end(self, event):
        pass


def _central_gradient(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out


def softplus_energy(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.log(1.0 + np.exp(x[i] * x[i - 1])) / (1.0 + i)
    return s


def test_first_call_answered_by_python_then_numba_once_compiled():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    expected = _central_gradient(softplus_energy, x)

    def gradient():
        dx = np.zeros_like(x)
        srcad.autodiff(Reverse, softplus_energy, Duplicated(x, dx), backend="numba",
                       compile="background")
        return dx

    name = softplus_energy
    first = gradient()  # starts numba's compilation; the python backend answers
    assert background.answered.get((name, "python")) == 1
    assert background.answered.get((name, "numba"), 0) == 0
    background.wait()
    compiled_here = _Compilations()
    with numba_event.install_listener("numba:compile", compiled_here):
        later = gradient()  # the numba code, compiled on the thread: none compiled here
    assert compiled_here.names == []
    assert background.answered.get((name, "numba")) == 1
    np.testing.assert_allclose(first, expected, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(later, first, rtol=1e-12, atol=1e-14)
    again = gradient()  # numba's plan: the fast path of repeated calls
    np.testing.assert_allclose(again, first, rtol=1e-12, atol=1e-14)
    kinds = {e.request.backend for e in srcad.build.cache.entries()}
    assert kinds == {"python", "numba"}


def convolved(x):  # math.fsum of an array: refused by name on numba
    return math.fsum(np.convolve(x, np.array([1.0, -2.0])) ** 2) * x[0]


def test_numba_refusal_raised_by_the_call_after_it_is_known():
    x = np.array([0.5, 1.5, -0.5, 2.0])
    dx = np.zeros_like(x)
    srcad.autodiff(Reverse, convolved, Duplicated(x, dx), backend="numba",
                   compile="background")  # answered by the python backend
    np.testing.assert_allclose(dx, _central_gradient(convolved, x), rtol=1e-7)
    background.wait()
    with pytest.raises(SrcadError) as refused:
        srcad.autodiff(Reverse, convolved, Duplicated(x, np.zeros_like(x)),
                       backend="numba", compile="background")
    assert "math.fsum" in str(refused.value) and "test_background_compile.py" in str(
        refused.value)


@pytest.mark.parametrize("compile_, backend", [("later", "numba"), ("background", "python")])
def test_compile_values_refused(compile_, backend):
    with pytest.raises(ArgumentError, match="compile"):
        srcad.autodiff(Reverse, softplus_energy, Duplicated(np.ones(3), np.zeros(3)),
                       backend=backend, compile=compile_)


def wave(x, t):
    return np.sin(x * t) * x + t


@pytest.mark.slow  # compiles numba code: make test-all
def test_forward_mode_switches_too():
    answers = []
    for _ in range(2):
        answers.append(srcad.autodiff(Forward, wave, Duplicated(0.4, 1.0), 1.5,
                                      backend="numba", compile="background"))
        background.wait()
    name = wave
    assert background.answered[(name, "python")] == 1
    assert background.answered[(name, "numba")] == 1
    expected = 1.5 * np.cos(0.6) * 0.4 + np.sin(0.6)
    np.testing.assert_allclose(answers, [expected, expected], rtol=1e-12)
