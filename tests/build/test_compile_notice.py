"""A numba compilation of generated code still running after a second says so while it runs,
every time, on the "srcad" logger, naming the function and the disk cache
(srcad/build/compile_notice.py). The timer is replaced, not waited for."""

import logging

import numpy as np
import pytest

import srcad
from srcad.build import compile_notice

pytest.importorskip("numba")


def scaled_sum(x):
    s = 0.0
    for i in range(len(x)):
        s += 3.0 * x[i]
    return s


def scaled_difference(x):
    s = 0.0
    for i in range(len(x)):
        s -= 2.0 * x[i]
    return s


def scaled_product(x):
    s = 1.0
    for i in range(len(x)):
        s *= 1.5 * x[i]
    return s


class Timers:
    """start_timer replaced: records each timer; `fire=True` runs its callback at once (the
    compilation looks slow: the notice comes while numba compiles, as the real timer's
    would after a second)."""

    def __init__(self, fire):
        self.fire, self.started, self.cancelled, self.while_compiling = fire, [], 0, []

    def __call__(self, seconds, callback):
        self.started.append(seconds)
        if self.fire:
            self.while_compiling.append(compile_notice.compiling())
            callback()
        timers = self

        class Timer:
            def cancel(self):
                timers.cancelled += 1
        return Timer()


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))  # a disk-cache miss: numba compiles
    return tmp_path


def test_every_slow_compilation_is_announced_while_it_runs(fresh, monkeypatch, caplog):
    timers = Timers(fire=True)
    monkeypatch.setattr(compile_notice, "start_timer", timers)
    x = np.ones(3)
    with caplog.at_level(logging.WARNING, logger="srcad"):
        dx = np.zeros(3)
        srcad.autodiff(srcad.Reverse, scaled_sum, srcad.Duplicated(x, dx), backend="numba")
        srcad.autodiff(srcad.Reverse, scaled_product, srcad.Duplicated(x, np.zeros(3)),
                       backend="numba")
    assert np.allclose(dx, 3.0)
    notices = [r.getMessage() for r in caplog.records if r.name == "srcad"]
    assert len(notices) == 2  # each slow compilation, not only the first of the process
    assert "scaled_sum" in notices[0] and "scaled_product" in notices[1]
    for text in notices:
        assert "compiling" in text and "cached" in text and str(fresh) in text
    assert timers.while_compiling == [True, True] and not compile_notice.compiling()
    assert timers.started == [compile_notice.THRESHOLD_SECONDS] * 2


def test_a_fast_compilation_says_nothing(fresh, monkeypatch, caplog):
    timers = Timers(fire=False)
    monkeypatch.setattr(compile_notice, "start_timer", timers)
    with caplog.at_level(logging.WARNING, logger="srcad"):
        srcad.autodiff(srcad.Reverse, scaled_difference,
                       srcad.Duplicated(np.ones(2), np.zeros(2)), backend="numba")
    assert not caplog.records
    assert len(timers.started) == 1 and timers.cancelled == 1  # stopped when numba finished


def test_the_real_timer_announces_a_compilation_still_running(caplog):
    """The timer thread itself (no numba): a compilation that outlasts the threshold is
    announced before it ends; one that ended first is not."""
    import threading
    done = threading.Event()
    with caplog.at_level(logging.WARNING, logger="srcad"):
        timer = compile_notice.start_timer(0.0, lambda: (compile_notice.announce("g_reverse"),
                                                         done.set()))
        assert done.wait(30)
        quiet = compile_notice.start_timer(30.0, lambda: compile_notice.announce("h"))
        quiet.cancel()
    timer.join(30)
    texts = [r.getMessage() for r in caplog.records]
    assert len(texts) == 1 and "g_reverse" in texts[0]


def test_a_nested_compilation_is_part_of_the_outer_one(monkeypatch):
    timers = Timers(fire=False)
    monkeypatch.setattr(compile_notice, "start_timer", timers)
    compile_notice.started("outer_reverse")
    compile_notice.started("helper_reverse")  # numba compiling a callee
    compile_notice.ended()
    assert timers.cancelled == 0 and compile_notice.compiling()
    compile_notice.ended()
    assert timers.started == [compile_notice.THRESHOLD_SECONDS] and timers.cancelled == 1
    compile_notice.ended()  # an end whose start came before the listener: ignored
    assert not compile_notice.compiling()


def test_numba_code_srcad_did_not_generate_is_ignored(fresh, monkeypatch, caplog):
    import numba
    monkeypatch.setattr(compile_notice, "start_timer", Timers(fire=True))
    compile_notice.install()

    @numba.njit
    def users_own(x):
        return x + 1.0

    with caplog.at_level(logging.WARNING, logger="srcad"):
        assert users_own(1.0) == 2.0
    assert not caplog.records


def test_compile_events_of_other_objects_are_ignored_without_error():
    class Event:
        def __init__(self, data):
            self.data = data

    class Dispatcher:
        def __init__(self, module):
            self.py_func = type("F", (), {"__module__": module})()

    for data in ({"dispatcher": Dispatcher(None)}, {"dispatcher": object()}, {}, None,
                 {"dispatcher": Dispatcher("numpy")}):
        assert not compile_notice._generated(Event(data))
    assert compile_notice._generated(Event({"dispatcher": Dispatcher("srcad_f_0123")}))
