"""Two threads generating numba code that calls the same recursive helper at once: one
compiling in the background (compile="background", generated outside srcad's cache lock),
the other waiting for its numba code (generated inside it). Neither waits for the other
forever, and both answer the closed-form derivative."""

import math
import threading

import pytest

import srcad
from srcad import Active, Reverse
from srcad.build import background
from srcad.operators import recursion_numba

pytest.importorskip("numba")


def tower(x, n):
    if n == 0:
        return x
    return math.sin(tower(x, n - 1))


def tower_of_three(x):
    return tower(x, 3) * 2.0


def tower_plus_x(x):
    return tower(x, 3) + x


def _tower_slope(x):  # d/dx sin(sin(sin(x)))
    a = math.sin(x)
    b = math.sin(a)
    return math.cos(b) * math.cos(a) * math.cos(x)


@pytest.mark.slow  # compiles numba code: make test-all
def test_two_threads_generating_one_recursive_helper_both_finish(monkeypatch):
    in_helper, other_asks = threading.Event(), threading.Event()
    first = []

    def held(writer):  # the first generation of the helper waits for the other thread
        def generate(*args):
            if not first:
                first.append(threading.current_thread().name)
                in_helper.set()
                other_asks.wait(20)
            return writer(*args)
        return generate

    def asking(number):
        def ask(key):
            if in_helper.is_set() and threading.current_thread().name != first[0]:
                other_asks.set()
            return number(key)
        return ask

    monkeypatch.setattr(recursion_numba, "derivative", held(recursion_numba.derivative))
    monkeypatch.setattr(recursion_numba, "primal", held(recursion_numba.primal))
    monkeypatch.setattr(recursion_numba, "_number", asking(recursion_numba._number))
    x = 0.4
    answers = {}
    # the python backend answers; the numba code is generated on a background thread
    answers["background"] = srcad.autodiff(Reverse, tower_of_three, Active(x),
                                           backend="numba", compile="background")[0]
    assert in_helper.wait(60)

    def waiting():  # generated under srcad's cache lock while the other thread generates
        answers["waiting"] = srcad.autodiff(Reverse, tower_plus_x, Active(x),
                                            backend="numba")[0]
    thread = threading.Thread(target=waiting, daemon=True)
    thread.start()
    thread.join(180)
    assert not thread.is_alive(), "the waiting compilation never finished (deadlock)"
    background.wait(180)
    answers["numba"] = srcad.autodiff(Reverse, tower_of_three, Active(x), backend="numba",
                                      compile="background")[0]
    assert background.answered[(tower_of_three, "numba")] == 1
    assert answers["background"] == pytest.approx(2.0 * _tower_slope(x), rel=1e-12)
    assert answers["numba"] == pytest.approx(2.0 * _tower_slope(x), rel=1e-12)
    assert answers["waiting"] == pytest.approx(_tower_slope(x) + 1.0, rel=1e-12)
