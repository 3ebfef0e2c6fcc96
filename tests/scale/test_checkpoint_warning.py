"""The automatic budget's CheckpointWarning names the loop's file, line and function and is
reported at the user's call (not inside srcad or its generated code), for autodiff and the
operators alike."""

import warnings

import numpy as np
import pytest

import srcad
from srcad.runtime import checkpointing


def time_steps(y0, steps):
    y = y0.copy()
    for _ in range(steps):  # carries y and loops over it each step: the automatic case
        for j in range(len(y)):
            y[j] = y[j] * np.cos(y[j]) + 0.5
    return np.sum(y)


LOOP_LINE = time_steps.__code__.co_firstlineno + 2


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(checkpointing, "DEFAULT_MEMORY", 500)
    srcad.build.cache.clear()  # the budget is part of the generated code
    yield
    srcad.build.cache.clear()


def test_warning_names_the_loop_and_points_at_the_call(small_budget):
    y0 = np.linspace(0.1, 0.9, 4)
    calls = [  # one line each: a warning reported at the call has the lambda's line
        lambda: srcad.gradient(time_steps, y0, srcad.Constant(40)),
        lambda: srcad.autodiff(srcad.Reverse, time_steps, srcad.Duplicated(y0, np.zeros(4)), 40),
        lambda: srcad.pullback(time_steps, y0, srcad.Constant(40), cotangent=1.0),
    ]
    for call in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        said = [w for w in caught if issubclass(w.category, srcad.CheckpointWarning)]
        assert len(said) == 1, said
        assert (said[0].filename, said[0].lineno) == (__file__, call.__code__.co_firstlineno)
        message = str(said[0].message)
        assert f"the loop at {__file__}:{LOOP_LINE} (in time_steps)" in message
        assert "over the default memory budget of 500 bytes" in message
