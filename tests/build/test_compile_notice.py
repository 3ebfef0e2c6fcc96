"""A slow first numba compilation of generated code says so once, on the "srcad" logger,
naming the disk cache (srcad/build/compile_notice.py). The clock is replaced, not measured."""

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


def scaled_product(x):
    s = 1.0
    for i in range(len(x)):
        s *= 1.5 * x[i]
    return s


class SlowClock:
    """Every reading is 2.5 s after the previous one: every compilation looks slow."""

    def __init__(self, step):
        self.now, self.step = 0.0, step

    def __call__(self):
        self.now += self.step
        return self.now


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))  # a disk-cache miss: numba compiles
    monkeypatch.setattr(compile_notice, "_said", False)
    return tmp_path


def test_a_slow_first_compilation_logs_once_naming_the_cache(fresh, monkeypatch, caplog):
    monkeypatch.setattr(compile_notice, "clock", SlowClock(2.5))
    x = np.ones(3)
    with caplog.at_level(logging.WARNING, logger="srcad"):
        dx = np.zeros(3)
        srcad.autodiff(srcad.Reverse, scaled_sum, srcad.Duplicated(x, dx), backend="numba")
        srcad.autodiff(srcad.Reverse, scaled_product, srcad.Duplicated(x, np.zeros(3)),
                       backend="numba")
    assert np.allclose(dx, 3.0)
    notices = [r for r in caplog.records if r.name == "srcad"]
    assert len(notices) == 1  # the second slow compilation says nothing
    text = notices[0].getMessage()
    assert "scaled_sum" in text and "2.5 s" in text and str(fresh) in text


def test_a_fast_compilation_says_nothing(fresh, caplog):
    with caplog.at_level(logging.WARNING, logger="srcad"):
        compile_notice.compiled("f_reverse", 0.4)
    assert not caplog.records and not compile_notice._said


def test_numba_code_srcad_did_not_generate_is_ignored(fresh, monkeypatch, caplog):
    import numba
    monkeypatch.setattr(compile_notice, "clock", SlowClock(2.5))
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
